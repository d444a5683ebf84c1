"""Would ds-gate accept this review? The one place the integration asks it.

``judge_review`` answers for a payload *before* it is recorded, with ds-gate's existing
review validation: the record rules a recorded review meets (``plugins.record_checker``:
schema, targets, actions this quest's DeepScientist accepts, card ids, every plugin's rule)
and the reviewed ids checked against the quest's runs (``rules.coverage.RunIndex``), both
through ``engine.documents.check_documents`` as ``ds-gate validate`` runs them. A review
with any error there is one the gate would not accept (it covers nothing, or fails closure).

Kept behind this one function so that ``engine.agent_tools.validate_review`` (the exact
answer ``closure`` gives about a review) can take its place without touching the callers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ds_gate.model.findings import ERROR, SCHEMA_VERSION

DISPLAY = "artifact.record payload"
FOLDERS = {"decision": "decisions", "report": "reports"}


def judge_review(root: Path | str, payload: dict[str, Any]) -> dict[str, Any]:
    """``{"accepted": bool, "findings": [...], ...}`` for ``payload`` in the quest at ``root``."""
    from ds_gate.engine.documents import GivenFile, check_documents
    from ds_gate.engine.loader import load_quest
    from ds_gate.model.records import review_encoding
    from ds_gate.sources.location import locate

    quest_root = locate(root).root
    raw = json.dumps(payload, indent=2, default=str).encode()  # ASCII: a lone surrogate from the agent is text too
    kind = payload.get("kind")
    encoding = review_encoding(payload, kind if isinstance(kind, str) else None)
    folder = FOLDERS.get(kind, "") if isinstance(kind, str) else ""
    findings, _ = check_documents([GivenFile(DISPLAY, raw, folder)], lambda _doc: load_quest(quest_root), quest_root)
    errors = [f for f in findings if f.severity == ERROR]
    return {
        "schema_version": SCHEMA_VERSION,
        "accepted": encoding is not None and not errors,
        "is_review": encoding is not None,
        "encoding": encoding,
        "findings": [f.as_dict() for f in findings],
        "errors": [_line(f.as_dict()) for f in errors] if encoding is not None
        else ["the payload is no distill review: kind 'report' with report_type 'distill_review' "
              "(or kind 'decision' with action 'distill_review')"],
    }


def _line(finding: dict[str, Any]) -> str:
    where = f" at {finding['pointer']}" if finding.get("pointer") else ""
    hint = f" (fix: {finding['hint']})" if finding.get("hint") else ""
    return f"{finding.get('rule')}{where}: {finding.get('message')}{hint}"


def refusal_for_review(judged: dict[str, Any]) -> dict[str, Any]:
    """What ``artifact.record`` answers instead of recording a review the gate would not accept."""
    errors: list[str] = judged["errors"]
    message = ("ds-gate refused to record this distill review: the closure gate would not accept it, so it would cover "
               f"no run. {len(errors)} problem(s): " + "; ".join(errors)
               + ". Fix the payload (artifact.validate_distill_review(payload=...) checks it), then call artifact.record "
               "again; nothing was recorded.")
    return {"ok": False, "status": "distill_review_invalid", "gate": "ds-gate", "message": message, "errors": errors,
            "warnings": [], "findings": judged["findings"]}
