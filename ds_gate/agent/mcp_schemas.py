"""What each ``ds-gate mcp`` tool takes and returns, as JSON Schema, and the one-line check
of its arguments.

The result schemas are the tools' ``outputSchema``: a client may check every result against
them (the SDK's client does). Arguments are declared to the SDK as any JSON value with the
schema of their real type, and checked here, so a wrong type is one line naming the
argument and what it must be, as the CLI says it, not the validator's multi-line report
with a link.
"""

from __future__ import annotations

from typing import Any

from ds_gate.kernel.errors import QuestError

STR, INT, BOOL, OBJ, ARR = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"type": "object"}, {"type": "array"}


def _opt(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _strings() -> dict[str, Any]:
    return {"type": "array", "items": STR}


def _result(**properties: dict[str, Any]) -> dict[str, Any]:
    """An object result: every key listed is always there (more may be added, never removed)."""
    props = {"schema_version": INT, **properties}
    return {"type": "object", "properties": props, "required": sorted(props)}


FINDINGS = {"type": "array", "items": {"type": "object", "required": ["rule", "severity", "message"],
                                       "properties": {"rule": STR, "severity": STR, "message": STR,
                                                      "path": _opt(STR), "hint": _opt(STR)}}}

OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "list_distill_candidates": _result(
        quest_root=STR, quest_id=_opt(STR), experience_distill=BOOL, experience_distill_on=BOOL, pending_count=INT,
        candidates={"type": "array", "items": {"type": "object", "required": ["run_id"], "properties": {"run_id": STR}}},
        omitted=INT, notes=_strings()),
    "list_knowledge_summaries": _result(
        request=OBJ, domain_tags=_strings(), tag_sources=_opt(OBJ), results={"type": "array", "items": {
            "type": "object", "required": ["card_id", "title", "summary", "tags", "kind", "scope", "path", "support"],
            "properties": {"card_id": STR, "title": _opt(STR), "summary": STR, "tags": _strings(), "kind": STR,
                           "scope": STR, "path": STR, "support": INT, "copies": {"type": "array", "items": OBJ},
                           "fields": OBJ}}},
        rank_by={"enum": ["recent", "tags", "relevance", "text", "text (no tag matched)"]},
        unmatched_tags={"type": "array", "items": OBJ}, counts=_opt(OBJ), left_out=_opt(OBJ), notes=_strings()),
    "list_recent": _result(request=OBJ, results={"type": "array", "items": {
        "type": "object", "required": ["artifact_id", "kind", "updated_at"],
        "properties": {"artifact_id": STR, "kind": _opt(STR), "updated_at": STR}}}),
    "check_closure": _result(
        ok=BOOL, verdict={"enum": ["passed", "passed (gate off)", "rejected"]}, enforced=BOOL, pending_run_ids=_strings(),
        pending_count=INT, findings=FINDINGS, findings_count=INT, next_call=_opt(_strings()), encoding=STR,
        notes=_strings()),
    "draft_distill_review": _result(
        encoding=STR, payload=OBJ, neighbours=OBJ, recall=OBJ, already_reviewed=_strings(), instructions=STR),
    "validate_distill_review": _result(
        ok=BOOL, valid=BOOL, artifact_id=_opt(STR), path=STR, encoding=STR, runs_meant=_strings(), covers=_strings(),
        superseded_by=_opt(_strings()), pending_after=_strings(), pending_after_count=INT, closure_ok_after=BOOL,
        findings=FINDINGS, findings_count=INT, notes=_strings()),
}

# argument -> (its JSON Schema, what it must be, in words)
ARGUMENTS: dict[str, tuple[dict[str, Any], str]] = {
    "domain_tags": ({"anyOf": [_strings(), {"type": "null"}]}, "a list of tag strings (or null)"),
    "kind": ({"anyOf": [STR, {"type": "null"}]}, "a string (or null)"),
    "limit": ({"type": "integer", "minimum": 1, "maximum": 200}, "an integer from 1 to 200"),
    "query": ({"anyOf": [STR, {"type": "null"}]}, "a string (or null)"),
    "max_chars": ({"anyOf": [{"type": "integer", "minimum": 0, "maximum": 200_000}, {"type": "null"}]},
                  "an integer from 0 to 200000 (or null)"),
    "order": ({"enum": ["rfc", "relevance"]}, "'rfc' or 'relevance'"),
    "run_ids": (_strings(), "a list of run artifact ids (strings, run-xxxxxxxx)"),
    "payload": (OBJ, "a JSON object: the payload artifact.record would take"),
}


REQUIRED = {"draft_distill_review": ["run_ids"], "validate_distill_review": ["payload"]}  # declared, checked here


def _fits(name: str, value: Any) -> bool:
    if name == "domain_tags":
        return value is None or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    if name in ("kind", "query"):
        return value is None or isinstance(value, str)
    if name == "max_chars":
        return value is None or (isinstance(value, int) and not isinstance(value, bool))
    if name == "order":
        return value in ("rfc", "relevance")
    if name == "limit":
        return isinstance(value, int) and not isinstance(value, bool)  # the range is the engine's to say
    if name == "run_ids":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, dict)


def checked(name: str, value: Any) -> Any:
    """``value`` when it has the argument's type, else ``QuestError`` in one line."""
    if _fits(name, value):
        return value
    if value is None:
        raise QuestError(f"{name} is required: {ARGUMENTS[name][1]}")
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    raise QuestError(f"{name} must be {ARGUMENTS[name][1]}, not {type(value).__name__} {shown}")
