"""Would ds-gate accept this review? The one place the integration asks it.

``judge_review`` answers for a payload *before* it is recorded, through
``agent.tools.validate_distill_review`` (the review put into the quest as ``closure`` reads it).
A review that would cover nothing (``valid`` false) is one the gate would not accept, so the
wrapped ``artifact.record`` refuses it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ds_gate.agent.tools import validate_distill_review
from ds_gate.kernel.errors import QuestError
from ds_gate.model.findings import SCHEMA_VERSION
from ds_gate.rules.coverage import COVERAGE_PENDING_RUN

NOT_A_REVIEW = (
    "the payload is no distill review: kind 'report' with report_type 'distill_review' "
    "(or kind 'decision' with action 'distill_review')"
)


def judge_review(root: Path | str, payload: dict[str, Any]) -> dict[str, Any]:
    """``{"accepted": bool, "errors": [...], "findings": [...], "validation": <validate_distill_review's
    answer>}`` for ``payload`` in the quest at ``root``."""
    try:
        answer = validate_distill_review(root, payload)
    except QuestError as exc:
        return {
            "schema_version": SCHEMA_VERSION,
            "accepted": False,
            "is_review": False,
            "encoding": None,
            "findings": [],
            "errors": [str(exc) or NOT_A_REVIEW],
            "validation": None,
        }
    findings: list[dict[str, Any]] = answer["findings"]
    errors = [_line(f) for f in findings if f.get("severity") == "error" and f.get("rule") != COVERAGE_PENDING_RUN.id]
    if not answer["valid"] and not errors:
        errors = [f"the review would cover no run (runs it names: {', '.join(answer['runs_meant']) or 'none'})"]
    return {
        "schema_version": SCHEMA_VERSION,
        "accepted": bool(answer["valid"]),
        "is_review": True,
        "encoding": answer["encoding"],
        "findings": findings,
        "errors": errors,
        "validation": answer,
    }


def _line(finding: dict[str, Any]) -> str:
    where = f" at {finding['pointer']}" if finding.get("pointer") else ""
    hint = f" (fix: {finding['hint']})" if finding.get("hint") else ""
    return f"{finding.get('rule')}{where}: {finding.get('message')}{hint}"


def refusal_for_review(judged: dict[str, Any]) -> dict[str, Any]:
    """What ``artifact.record`` answers instead of recording a review the gate would not accept."""
    errors: list[str] = judged["errors"]
    message = (
        "ds-gate refused to record this distill review: the closure gate would not accept it, so it would cover "
        f"no run. {len(errors)} problem(s): "
        + "; ".join(errors)
        + ". Fix the payload (artifact.validate_distill_review(payload=...) checks it), then call artifact.record "
        "again; nothing was recorded."
    )
    return refusal("distill_review_invalid", message, errors, findings=judged["findings"])


def refusal(status: str, message: str, errors: list[str], **more: Any) -> dict[str, Any]:
    """What a refused call returns instead of ``main``'s answer, shaped like ``main``'s own refusals."""
    return {
        "ok": False,
        "status": status,
        "gate": "ds-gate",
        "message": message,
        "errors": errors,
        "warnings": [],
        **more,
    }
