"""``ArtifactService``'s finalization and review methods ask ds-gate first, in DeepScientist's process.

Copied beside ``wrap.py`` into DeepScientist's environment as ``_ds_gate_ds_service.py``; standard
library only. ``complete_quest``, ``submit_paper_bundle`` and an ``interact`` asking for
``quest_completion_approval`` are answered ``ok: false`` before ``main`` runs while ds-gate's closure
fails; ``record`` of a distill review is refused when ds-gate would not accept the review. Wrapping
the class, not a tool, meets every caller. ``wrap.patch`` calls ``wrap_service_class``.
"""

import functools
from collections.abc import Callable
from typing import Any

if __name__.startswith("ds_gate."):  # its sibling under the name it has here and in DeepScientist's runtime
    from ds_gate.integration import wrap
else:
    import _ds_gate_ds_wrap as wrap  # type: ignore[import-not-found, no-redef]

# each method's parameters as Python spells them (``shape``): names, kinds and order, defaults aside
APPROVAL = "quest_completion_approval"
SERVICE_SHAPES = {
    "record": "self, quest_root, payload, *, checkpoint, workspace_root, commit_message, push",
    "complete_quest": "self, quest_root, *, summary",
    "submit_paper_bundle": "self, quest_root, *, title, summary, outline_path, draft_path, writing_plan_path, "
    "references_path, claim_evidence_map_path, compile_report_path, pdf_path, latex_root_path, package_type, "
    "prepare_open_source",
    "interact": "self, quest_root, *, kind, message, summary_preview, response_phase, importance, "
    "deliver_to_bound_conversations, include_recent_inbound_messages, recent_message_limit, attachments, "
    "interaction_id, expects_reply, reply_mode, options, surface_actions, connector_hints, allow_free_text, "
    "reply_schema, reply_to_interaction_id, supersede_open_requests, dedupe_key, suppress_if_unchanged, "
    "min_interval_seconds",
}


def is_review(payload: Any) -> bool:
    """Either encoding of a distill review (ds-gate's ``model.records.review_encoding``)."""
    if not isinstance(payload, dict):
        return False
    kind = payload.get("kind")
    return (kind == "decision" and payload.get("action") == "distill_review") or (
        kind == "report" and payload.get("report_type") == "distill_review"
    )


def _finalizing(tool: str, original: Any) -> Any:
    @functools.wraps(original)
    def wrapper(self: Any, quest_root: Any, *args: Any, **kwargs: Any) -> Any:
        asked = wrap.ASKED.root == str(quest_root)  # the tool above asked already
        refusal = None if asked else wrap.ask(self, quest_root, {"op": "finalization", "tool": tool})
        return refusal if refusal is not None else original(self, quest_root, *args, **kwargs)

    return wrapper


def decision_type(schema: Any) -> str:
    """``reply_schema.decision_type`` as main reads it (``ArtifactService._interaction_decision_type``:
    ``str(value or "").strip()``, a schema that is no dict read as empty), so a spelling main
    takes for the completion approval is one here too."""
    return str((schema if isinstance(schema, dict) else {}).get("decision_type") or "").strip()


def _interact(original: Any) -> Any:
    @functools.wraps(original)
    def interact(self: Any, quest_root: Any, *args: Any, **kwargs: Any) -> Any:
        if decision_type(kwargs.get("reply_schema")) == APPROVAL:
            refusal = wrap.ask(self, quest_root, {"op": "finalization", "tool": "interact"})
            if refusal is not None:
                return refusal
        return original(self, quest_root, *args, **kwargs)

    return interact


def _record(original: Any) -> Any:
    @functools.wraps(original)
    def record(self: Any, quest_root: Any, payload: Any, *args: Any, **kwargs: Any) -> Any:
        if is_review(payload):
            refusal = wrap.ask(self, quest_root, {"op": "review", "tool": "record", "payload": payload})
            if refusal is not None:
                return refusal
        return original(self, quest_root, payload, *args, **kwargs)

    return record


SERVICE_WRAPPERS: dict[str, Callable[[Any], Any]] = {
    "record": _record,
    "complete_quest": functools.partial(_finalizing, "complete_quest"),
    "submit_paper_bundle": functools.partial(_finalizing, "submit_paper_bundle"),
    "interact": _interact,
}


def wrap_service_class(cls: Any) -> list[str]:
    """Wrap ``ArtifactService``'s four methods, or nothing when one has another shape."""
    problems: list[str] = wrap.shape_problems(cls, SERVICE_SHAPES, "ArtifactService")
    if problems:
        return problems
    for name, make in SERVICE_WRAPPERS.items():
        original = cls.__dict__.get(name) or getattr(cls, name)
        wrap.remember(cls, name, original, f"{cls.__name__}.{name}")
        setattr(cls, name, make(original))
    return []
