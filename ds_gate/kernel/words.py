"""The words DeepScientist accepts, and what its ``artifact.record`` accepts: is this a kind
it takes, a decision action it takes, and does ``validate_artifact_payload`` let this record
through (``main_refusals``, the one copy of main's acceptance in ds-gate).

Apart from ``rules.vocabulary`` (which words the findings, with a did-you-mean) because the
commit hook asks these questions of every staged record and must not import the findings'
dataclasses to hear "yes".
"""

from __future__ import annotations

from ds_gate.kernel.layout import ARTIFACT_DIRS

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Any, TypeGuard

# artifact/schemas.py DECISION_ACTIONS on DeepScientist main (b366244)
MAIN_DECISION_ACTIONS = frozenset(
    {
        "continue",
        "launch_experiment",
        "launch_analysis_campaign",
        "branch",
        "prepare_branch",
        "activate_branch",
        "reuse_baseline",
        "attach_baseline",
        "publish_baseline",
        "waive_baseline",
        "iterate",
        "reset",
        "stop",
        "write",
        "finalize",
        "request_user_decision",
    }
)
# PR #60's review action; main records the same review as a report with this report_type
REVIEW_ACTION = "distill_review"
# ... plus PR #60's distill_review, which ds-gate always reads (a fork or a later release may have it)
DECISION_ACTIONS = MAIN_DECISION_ACTIONS | {REVIEW_ACTION}
SCIENCE_KINDS = frozenset(
    {
        "science.package_check",
        "science.computational_run",
        "science.dataset_analysis",
        "science.parameter_sweep",
        "science.validation_result",
        "science.claim",
    }
)
KINDS = frozenset(ARTIFACT_DIRS) | SCIENCE_KINDS


def unknown_kind(kind: object) -> TypeGuard[str]:
    """A text ``kind`` DeepScientist does not know (``decisions``, ``Decision``); main strips
    a science kind (`` science.claim `` is one) but no other. A missing or non-text one is
    ``main_refusals``'s to report."""
    return isinstance(kind, str) and kind not in ARTIFACT_DIRS and kind.strip() not in SCIENCE_KINDS


def unknown_action(action: object, actions: Collection[str]) -> TypeGuard[str]:
    """A text decision action outside ``actions``, as main tests it (truthy, then exact
    membership: ``" "`` is refused as an unknown action, not as a missing one); a missing,
    empty or non-text one is ``main_refusals``'s to report."""
    return isinstance(action, str) and bool(action) and action not in actions


def main_refusals(data: dict[str, Any], actions: Collection[str] = MAIN_DECISION_ACTIONS) -> list[tuple[str, str]]:
    """``(field, main's error text)`` for each reason DeepScientist main's
    ``validate_artifact_payload`` refuses ``data`` (artifact/schemas.py, b366244), with
    ``actions`` as the decision actions it takes (a fork's, PR #60's ``distill_review``).
    Python's semantics, as main's: a required field need only be truthy (``" "``, ``["x"]``,
    ``true``, NaN pass; ``0``, ``-0.0``, ``[]``, ``""`` do not), and an ``action`` or
    ``kind`` that cannot be hashed makes main raise (a refusal too). A record main wrote is
    main's defaults overlaid by the payload, so it carries the payload's fields as given."""
    kind = data.get("kind")
    if isinstance(kind, str) and kind.strip() in SCIENCE_KINDS:
        return [("", error) for error in science_refusals(data)]
    if isinstance(kind, (list, dict)):
        return [("kind", f"main raises TypeError: unhashable type: '{type(kind).__name__}' (kind)")]
    if kind not in ARTIFACT_DIRS:
        return [("kind", f"Unknown artifact kind: {kind}")]
    out = []
    if kind == "decision":
        out = [
            (field, f"Decision artifact requires `{field}`.")
            for field in ("verdict", "action", "reason")
            if not data.get(field)
        ]
        action = data.get("action")
        if action and isinstance(action, (list, dict)):  # main tests `action and action not in ...`
            out.append(("action", f"main raises TypeError: unhashable type: '{type(action).__name__}' (action)"))
        elif action and action not in actions:
            out.append(("action", f"Unknown decision action: {action}"))
    elif kind == "run" and not data.get("run_kind"):
        out.append(("run_kind", "Run artifact requires `run_kind`."))
    return out


def _text(value: object) -> str:
    return str(value or "").strip()


def _any_path(data: dict[str, Any], fields: tuple[str, ...]) -> bool:
    for field in fields:
        value = data.get(field)
        if isinstance(value, list) and any(_text(item) for item in value):
            return True
        if isinstance(value, str) and value.strip():
            return True
    return False


def _any_node(data: dict[str, Any]) -> bool:
    return _any_path({k: v for k, v in data.items() if isinstance(v, list)}, ("parent_node_ids", "related_node_ids"))


SCIENCE_STATUSES = frozenset(
    {
        "planned",
        "ready",
        "queued",
        "running",
        "success",
        "failed",
        "blocked",
        "warning",
        "passed",
        "active",
        "superseded",
    }
)
EVIDENCE = ("evidence_paths", "validation_paths", "output_paths", "log_paths")


def science_refusals(data: dict[str, Any]) -> list[str]:
    """main's ``validate_science_payload``: a science node's id, status and claim rules."""
    kind, status = _text(data.get("kind") or data.get("node_type")), _text(data.get("status"))
    errors = []
    if status and status not in SCIENCE_STATUSES:
        errors.append(f"Unknown science status: {status}")
    if not _text(data.get("node_id")):
        errors.append("Science artifact requires `node_id`.")
    action = _text(data.get("action") or "record_node") or "record_node"
    if action == "link_nodes":
        return errors + (
            [] if _any_node(data) else ["Science link_nodes requires related_node_ids or parent_node_ids."]
        )
    claim = _text(data.get("claim_type"))
    if kind == "science.claim" and not claim and action == "record_node":
        errors.append("Science claim requires `claim_type`.")
    elif kind == "science.claim" and claim and claim not in ("computed", "parsed", "digitized", "hypothesis"):
        errors.append(f"Unknown science claim_type: {claim}")
    if kind == "science.claim" and claim == "computed" and not (_any_path(data, EVIDENCE) or _any_node(data)):
        errors.append(
            "Computed science claim requires evidence_paths, validation_paths, output/log paths, or related_node_ids."
        )
    if kind == "science.validation_result" and not _any_node(data):
        errors.append("Science validation_result must reference a related or parent run, analysis, or sweep node.")
    if (
        kind == "science.computational_run"
        and status == "success"
        and not _any_path(data, ("input_paths", "log_paths", "output_paths", "evidence_paths"))
    ):
        errors.append("Successful computational_run requires at least one input, log, output, or evidence path.")
    if kind == "science.package_check" and status == "passed" and not _any_path(data, EVIDENCE):
        errors.append("Passed package_check requires environment-check evidence.")
    return errors
