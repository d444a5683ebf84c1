"""The agent's tools, one ``ToolSpec`` row each, and the one check of their arguments.

A tool is its row and the function of its name in ``agent/tools.py``, served by ``ds-gate mcp``,
the skill and the DeepScientist integration. Standard library only: ``install --deepscientist``
copies this file into DeepScientist's runtime Python. ``checked`` reads the schemas the client is
shown, so a wrong type is one line naming the argument; a range is the engine's to say, in the
CLI's words.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

STR, INT, BOOL, OBJ = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"type": "object"}


def _opt(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _strings() -> dict[str, Any]:
    return {"type": "array", "items": STR}


def _result(**properties: dict[str, Any]) -> dict[str, Any]:
    """An object result: every key listed is always there (more may be added, never removed)."""
    props = {"schema_version": INT, **properties}
    return {"type": "object", "properties": props, "required": sorted(props)}


FINDINGS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["rule", "severity", "message"],
        "properties": {"rule": STR, "severity": STR, "message": STR, "path": _opt(STR), "hint": _opt(STR)},
    },
}

# argument -> (its JSON Schema, what it must be, in words): the same in every tool that takes it
ARGUMENTS: dict[str, tuple[dict[str, Any], str]] = {
    "domain_tags": (_opt(_strings()), "a list of tag strings (or null)"),
    "kind": (_opt(STR), "a string (or null)"),
    "limit": ({"type": "integer", "minimum": 1, "maximum": 200}, "an integer from 1 to 200"),
    "query": (_opt(STR), "a string (or null)"),
    "max_chars": (_opt({"type": "integer", "minimum": 0, "maximum": 200_000}), "an integer from 0 to 200000 (or null)"),
    "order": ({"enum": ["rfc", "relevance"]}, "'rfc' or 'relevance'"),
    "run_ids": (_strings(), "a list of run artifact ids (strings, run-xxxxxxxx)"),
    "payload": (OBJ, "a JSON object: the payload artifact.record would take"),
}
JSON_TYPES = {"string": str, "integer": int, "boolean": bool, "object": dict, "array": list, "null": type(None)}
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}


@dataclass(frozen=True)
class Arg:
    """An argument as one tool shows it; a required one is passed as None when missing, for ``checked`` to refuse."""

    name: str
    description: str
    default: Any = None
    required: bool = False


@dataclass(frozen=True)
class ToolSpec:
    name: str  # also its function's in agent/tools.py
    title: str
    description: str
    output: dict[str, Any]  # the result's JSON Schema
    arguments: tuple[Arg, ...] = ()
    reads_home: bool = False  # its function takes the home (the global cards)
    deepscientist: str = ""  # the server of main's the integration adds it to ("artifact", "memory"), if any

    @property
    def required(self) -> list[str]:
        return [arg.name for arg in self.arguments if arg.required]


# a table: one row a tool, each laid out as its parts read, not as the formatter would split them
# fmt: off
TOOLS = (
    ToolSpec(
        "list_distill_candidates", "Runs awaiting a distill review",
        "The completed runs of this quest that no valid distill review covers yet. Call it after a batch of runs "
        "completes and before finalizing. Returns candidates: run_id (the run's artifact id, run-xxxxxxxx: what a "
        "review lists), experiment_run_id (main-001), run_kind, workspace, branch, created_at, summary, reason, "
        "metrics_summary, metric_rows, metrics, primary_metric (long values clipped, named in clipped), plus "
        "pending_count, omitted (runs beyond the first 200) and baselined_count (finished runs the user's "
        "trusted baseline takes out of review).",
        _result(quest_root=STR, quest_id=_opt(STR), experience_distill=BOOL, experience_distill_on=BOOL,
                pending_count=INT, baselined_count=INT, candidates={"type": "array", "items": {
                    "type": "object", "required": ["run_id"], "properties": {"run_id": STR}}},
                omitted=INT, notes=_strings()),
        deepscientist="artifact"),
    ToolSpec(
        "list_knowledge_summaries", "Recall memory cards",
        "Recall lessons from memory cards (global and this quest's; other quests' and the home's quirks files only "
        "where the home's memory.read_visibility_mode is shared_across_quests) with their content. domain_tags "
        "only: ranked by shared tags, then recency (the RFC); query: by full-text relevance. Empty domain_tags and no "
        "query: the most recent cards (tag_sources then holds this quest's stage-entry tags when recall_priors is on). "
        "Call it at stage entry and before writing a card. Returns results (card_id, title, summary: the claim and "
        "first body lines within max_chars, tags, kind, scope, path, overlap, matched_tags, support: how many quests "
        "hold the lesson, copies: every copy when duplicates were collapsed, matched_by: tags, text or recent, problems: "
        "what check or lineage finds wrong with the card), rank_by, unmatched_tags (tags no card "
        "carries, with the closest known), counts, left_out, source_problems (path, line, why: what was skipped "
        "of the JSONL lesson files the user's configuration names) and visibility (the mode applied and where "
        "it came from).",
        _result(request=OBJ, domain_tags=_strings(), tag_sources=_opt(OBJ), results={"type": "array", "items": {
            "type": "object", "required": ["card_id", "title", "summary", "tags", "kind", "scope", "path", "support"],
            "properties": {"card_id": STR, "title": _opt(STR), "summary": STR, "tags": _strings(), "kind": STR,
                           "scope": STR, "path": STR, "support": INT, "copies": {"type": "array", "items": OBJ},
                           "fields": OBJ}}},
                rank_by={"enum": ["recent", "tags", "relevance", "text", "text (no tag matched)"]},
                unmatched_tags={"type": "array", "items": OBJ}, counts=_opt(OBJ), left_out=_opt(OBJ),
                source_problems={"type": "array", "items": {
                    "type": "object", "required": ["path", "line", "why"],
                    "properties": {"path": STR, "line": _opt(INT), "why": STR}}}, notes=_strings(),
                visibility=OBJ),
        (Arg("domain_tags", "tags such as stage:experiment, topic:routing (case, -/_/space, plurals and British "
                            "spellings are matched); empty with no query: the most recent cards"),
         Arg("kind", "a memory kind (knowledge, papers, ...); none: every kind"),
         Arg("limit", "how many cards, 1..200", 20),
         Arg("query", "free text: cards ranked by full-text relevance (BM25) over title, tags, claim and body, the "
                      "domain_tags' words included"),
         Arg("max_chars", "at most this many characters of summaries in all (default 8000)"),
         Arg("order", "with domain_tags only: 'rfc' (shared-tag count, then recency) or 'relevance' (rare shared tags "
                      "weigh more); fewer than limit sharing a tag: text matches follow (matched_by 'text')", "rfc")),
        reads_home=True, deepscientist="memory"),
    ToolSpec(
        "list_recent", "The quest's newest artifacts",
        "This quest's newest artifacts from every workspace and unchecked-out branch, newest first "
        "(artifact_id, kind, status, updated_at, summary, workspace, path). kind='run' shows what was just recorded.",
        _result(request=OBJ, results={"type": "array", "items": {
            "type": "object", "required": ["artifact_id", "kind", "updated_at"],
            "properties": {"artifact_id": STR, "kind": _opt(STR), "updated_at": STR}}}),
        (Arg("kind", "an artifact kind (run, decision, report, ...); none: every kind"),
         Arg("limit", "how many artifacts, 1..200", 20)),
        deepscientist="artifact"),
    ToolSpec(
        "check_closure", "The closure gate's verdict",
        "The closure gate: call it after recording a review, and always before artifact.submit_paper_bundle or "
        "artifact.complete_quest. Returns ok, verdict (passed, rejected, or 'passed (gate off)' when the quest's "
        "experience_distill is off), pending_run_ids, baselined_count (finished runs the user's trusted baseline "
        "takes out of review), findings (rule, severity, path, message, hint), next_call "
        "(the artifact.record call that covers the pending runs, or null) and encoding (report or decision).",
        _result(ok=BOOL, verdict={"enum": ["passed", "passed (gate off)", "rejected"]}, enforced=BOOL,
                pending_run_ids=_strings(), pending_count=INT, baselined_count=INT, findings=FINDINGS,
                findings_count=INT, next_call=_opt(_strings()), encoding=STR, notes=_strings()),
        reads_home=True),
    ToolSpec(
        "draft_distill_review", "Draft a distill review",
        "A ready distill-review payload for run_ids, in the encoding this quest's DeepScientist accepts, with "
        "up to 5 neighbouring memory cards per run (found by recall from the run's tags, the stage-entry tags and "
        "its summary). Complete cards_written and neighbor_decisions (or reason_if_empty) as instructions says, "
        "record it with artifact.record(payload=...), then call check_closure. Every id must be a completed run; "
        "a run reviewed before may be reviewed again.",
        _result(encoding=STR, payload=OBJ, neighbours=OBJ, recall=OBJ, already_reviewed=_strings(), instructions=STR),
        (Arg("run_ids", "the runs to review, by artifact id (run-xxxxxxxx), as list_distill_candidates gives them",
             required=True),),
        reads_home=True),
    ToolSpec(
        "validate_distill_review", "What closure would say about a review",
        "What check_closure would say about a distill review once recorded, before it is recorded: call it with the "
        "completed payload before artifact.record. Writes nothing. Returns ok (the review would cover its runs and "
        "raise no error), valid, covers (the run ids it would cover), findings (rule, severity, path, message, hint: "
        "closure's own), pending_after (the runs still pending then), superseded_by and notes.",
        _result(ok=BOOL, valid=BOOL, artifact_id=_opt(STR), path=STR, encoding=STR, runs_meant=_strings(),
                covers=_strings(), superseded_by=_opt(_strings()), pending_after=_strings(), pending_after_count=INT,
                closure_ok_after=BOOL, findings=FINDINGS, findings_count=INT, notes=_strings()),
        (Arg("payload", "the review payload, as it would be passed to artifact.record(payload=...)", required=True),),
        reads_home=True, deepscientist="artifact"),
)
# fmt: on
BY_NAME = {spec.name: spec for spec in TOOLS}


class BadArgument(ValueError):
    """An argument of the wrong type (or a required one missing), said in one line."""


def fits(schema: dict[str, Any], value: Any) -> bool:
    """Whether ``value`` is of the type ``schema`` says (``anyOf``, ``enum``, ``type``, ``items``)."""
    if "anyOf" in schema:
        return any(fits(option, value) for option in schema["anyOf"])
    if "enum" in schema:
        return value in schema["enum"]
    kind = schema.get("type")
    if kind == "array":
        return isinstance(value, list) and all(fits(schema.get("items", {}), item) for item in value)
    return kind is None or (isinstance(value, JSON_TYPES[kind]) and (kind == "boolean") == isinstance(value, bool))


def _shown(value: Any) -> str:
    """``value`` in at most 60 characters; one whose ``repr`` fails (an integer of more digits than
    Python converts, a list nested deeper than the stack) is named, not shown. This file runs inside
    DeepScientist's runtime on the standard library alone, so it cannot import ``kernel.errors.shown``,
    the package's one safe repr: this is its copy (``tests/unit/test_shown.py`` holds them equal)."""
    try:
        text = repr(value)
    except Exception:  # any failure of a value's own repr is the same "cannot show"
        return "(too large or too deeply nested to show)"
    return text if len(text) <= 60 else text[:57] + "..."


def checked(spec: ToolSpec, given: dict[str, Any], also: tuple[str, ...] = ()) -> dict[str, Any]:
    """The tool's arguments out of ``given`` (a missing one: its default), each of its schema's
    type, else ``BadArgument`` naming the first that is not. An argument the tool does not take
    is refused with the tool's list (a misspelt ``limt`` would otherwise be its default, silently);
    ``also``: the names the server itself adds (main's ``comment``), dropped."""
    unknown = sorted(name for name in given if name not in also and name not in {arg.name for arg in spec.arguments})
    if unknown:
        takes = ", ".join(arg.name for arg in spec.arguments) or "no arguments"
        raise BadArgument(
            f"{spec.name} takes no argument {', '.join(map(_shown, unknown))}; it takes: {takes}"
            + (f" (did you mean {close[0]}?)" if (close := _close(unknown[0], spec)) else "")
        )
    arguments = {}
    for arg in spec.arguments:
        value = given.get(arg.name, arg.default)
        schema, words = ARGUMENTS[arg.name]
        if not fits(schema, value):
            if value is None:
                raise BadArgument(f"{arg.name} is required: {words}")
            raise BadArgument(f"{arg.name} must be {words}, not {type(value).__name__} {_shown(value)}")
        arguments[arg.name] = value
    return arguments


def _close(name: Any, spec: ToolSpec) -> list[str]:
    names = [arg.name for arg in spec.arguments]
    return difflib.get_close_matches(name, names, n=1, cutoff=0.7) if isinstance(name, str) else []


def pass_unknown(tool: Any) -> None:
    """Let the SDK hand ``checked`` the arguments the tool does not take: its argument model
    (pydantic's, built from ``sdk_function``'s signature) would drop them before the call. Only
    a tool with the SDK's ``fn_metadata.arg_model`` (mcp 1.x and 2.x) is changed."""
    metadata: Any = getattr(tool, "fn_metadata", None)
    base: Any = getattr(metadata, "arg_model", None)
    if base is None or not hasattr(base, "model_dump_one_level"):
        return

    class WithUnknown(base):  # type: ignore[misc]
        model_config = {**base.model_config, "extra": "allow"}  # noqa: RUF012  # pydantic reads it at class creation

        def model_dump_one_level(self) -> dict[str, Any]:
            return {**super().model_dump_one_level(), **(self.model_extra or {})}

    metadata.arg_model = WithUnknown


def sdk_function(
    spec: ToolSpec,
    answer: Callable[[ToolSpec, dict[str, Any]], Any],
    field: Callable[..., Any],
    returns: Any,
    *extra: inspect.Parameter,
) -> Callable[..., Any]:
    """The tool as the MCP SDK reads a function: named after it, one parameter an argument (any
    JSON value, shown with its schema and description through pydantic's ``field``), then
    ``extra``; a call hands what it was given to ``answer``."""

    def tool(**given: Any) -> Any:
        return answer(spec, given)

    tool.__name__ = tool.__qualname__ = spec.name
    parameters = [
        inspect.Parameter(
            arg.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=arg.default,
            annotation=(Annotated[Any, field(description=arg.description, json_schema_extra=ARGUMENTS[arg.name][0])]),
        )
        for arg in spec.arguments
    ]
    tool.__signature__ = inspect.Signature([*parameters, *extra], return_annotation=returns)  # type: ignore[attr-defined]
    return tool
