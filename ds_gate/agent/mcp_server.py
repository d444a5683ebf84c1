"""``ds-gate mcp``: the agent's tools (``agent/tools.py``) served over MCP's stdio transport.

A thin adapter: each tool calls one agent_tools function and returns its dict as the
result's structured content (and as JSON text, for clients that read only text). Bad input
(not a quest, a bad limit or kind, an unknown run id) is a tool error (``isError``) whose
text is the CLI's own message; an unexpected error is one line too. The client never sees
a traceback, because what an agent reads back becomes its next step.

The quest is found again at each call, from ``--quest``, ``$DS_QUEST_ROOT`` or the working
directory the server started in (DeepScientist starts a runner's servers in the quest or
worktree folder and passes no quest root): a worktree removed and added again, or a quest
that is not one yet, costs one failed call, not a dead server.

The ``mcp`` package is an optional extra, imported only here and only when the server
starts. Both SDK lines work: 2.x (``MCPServer``) and 1.x from 1.19 (``FastMCP``; 1.19 is
the first to pass a tool's own ``CallToolResult`` through, and DeepScientist's floor). This
module deliberately does not use postponed annotations: the SDK reads the tool functions'
annotations as objects, and these functions are defined after the lazy import.
"""

import importlib
import json
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Annotated, Any

from ds_gate.agent import tools as agent_tools
from ds_gate.agent.mcp_limits import run_stdio
from ds_gate.agent.mcp_schemas import ARGUMENTS, OUTPUT_SCHEMAS, REQUIRED, checked
from ds_gate.agent.skill import SERVER_NAME
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.git import GitError
from ds_gate.kernel.jsonout import dumps
from ds_gate.kernel.version import __version__
from ds_gate.recall.api import DEFAULT_ORDER
from ds_gate.reporters.escape import json_safe, printable

MISSING = "ds-gate mcp needs the mcp package: pip install 'ds-gate[mcp]'"
INSTRUCTIONS = (
    "ds-gate checks that every completed experiment run of this DeepScientist quest is covered by a distill "
    "review before the quest is finalized. Read-only: cards are written with memory.write and the review is "
    "recorded with artifact.record. Order: list_distill_candidates, draft_distill_review, complete the payload, "
    "validate_distill_review, record it with artifact.record, check_closure (it must pass before artifact.submit_paper_bundle or artifact.complete_quest)."
)


class MissingExtra(Exception):
    """The ``mcp`` package is not installed: ``ds-gate mcp`` says how to install it (exit 2)."""


def server_class() -> Any:
    """The SDK's decorator-style server: ``MCPServer`` (mcp 2.x) or ``FastMCP`` (mcp 1.x)."""
    try:
        importlib.import_module("mcp.types")
    except ModuleNotFoundError as exc:
        if exc.name == "mcp" or (exc.name or "").startswith("mcp."):
            raise MissingExtra(MISSING) from exc
        raise
    try:
        return importlib.import_module("mcp.server.mcpserver").MCPServer
    except ModuleNotFoundError:
        return importlib.import_module("mcp.server.fastmcp").FastMCP


def _error_text(exc: BaseException) -> str:
    """The CLI's message for bad input (what ``ds-gate`` prints after ``ds-gate: ``); one line
    naming the error for anything else, with the traceback on stderr under ``--debug`` only."""
    if isinstance(exc, (QuestError, GitError)):
        return printable(str(exc))
    return printable(f"internal error: {type(exc).__name__}: {exc}")


def _arg(name: str, description: str) -> Any:
    """An argument's ``Field``: the SDK passes it through as any JSON value, shown with its real
    type's schema (``mcp_schemas.ARGUMENTS``) and checked by ``mcp_schemas.checked``, so a wrong
    type is one line."""
    from pydantic import Field


    return Field(description=description, json_schema_extra=ARGUMENTS[name][0])


def _tool_class(server_cls: Any) -> Any:
    """The SDK's ``Tool`` beside its server class (``mcp.server.mcpserver`` or ``mcp.server.fastmcp``)."""
    return importlib.import_module(server_cls.__module__.rsplit(".", 1)[0] + ".tools").Tool


def build_server(start: str, home: str | None = None, *, debug: bool = False) -> Any:
    """The server with its six tools, each reading the quest at ``start`` (any path inside it),
    each with its result's ``outputSchema``, the server named with ds-gate's version."""
    cls = server_class()
    from mcp.types import CallToolResult, ToolAnnotations
    from pydantic import RootModel

    class AnyResult(RootModel[dict[str, Any] | None]):
        """A result as the SDK's model sees it: an object, or none for an error (the schema says the rest)."""

    lock = threading.Lock()  # the SDK may run sync tools on worker threads; recall's index is per process
    read_only = ToolAnnotations.model_validate({"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                                                "openWorldHint": False})

    def answer(call: Callable[[], dict[str, Any]]) -> CallToolResult:
        with lock:
            try:
                result = call()
            except Exception as exc:  # noqa: BLE001 - every failure becomes a tool error, never a traceback
                if debug:
                    traceback.print_exc(file=sys.stderr)
                return CallToolResult.model_validate(
                    {"content": [{"type": "text", "text": _error_text(exc)}], "isError": True})
        text = json_safe(dumps(result, ensure_ascii=False))  # a stray byte shows as \xff, a NaN as "NaN"
        return CallToolResult.model_validate(
            {"content": [{"type": "text", "text": text}], "structuredContent": json.loads(text), "isError": False})

    def list_distill_candidates() -> CallToolResult:
        return answer(lambda: agent_tools.candidates(start))

    def list_knowledge_summaries(
        domain_tags: Annotated[Any, _arg("domain_tags", "tags such as stage:experiment, topic:routing (case, -/_/space, "
                          "plurals and British spellings are matched); empty with no query: the most recent cards")] = None,
        kind: Annotated[Any, _arg("kind", "a memory kind (knowledge, papers, ...); none: every kind")] = None,
        limit: Annotated[Any, _arg("limit", "how many cards, 1..200")] = 20,
        query: Annotated[Any, _arg("query", "free text: cards ranked by full-text relevance (BM25) over title, tags, "
                    "claim and body, the domain_tags' words included")] = None,
        max_chars: Annotated[Any, _arg("max_chars", "at most this many characters of summaries in all (default 8000)")] = None,
        order: Annotated[Any, _arg("order", "with domain_tags only: 'rfc' (shared-tag count, then recency) or "
                    "'relevance' (rare shared tags weigh more)")] = DEFAULT_ORDER,
    ) -> CallToolResult:
        return answer(lambda: agent_tools.knowledge(start, checked("domain_tags", domain_tags), checked("kind", kind),
                                                    checked("limit", limit), home, checked("query", query),
                                                    checked("max_chars", max_chars), checked("order", order)))

    def list_recent(
        kind: Annotated[Any, _arg("kind", "an artifact kind (run, decision, report, ...); none: every kind")] = None,
        limit: Annotated[Any, _arg("limit", "how many artifacts, 1..200")] = 20,
    ) -> CallToolResult:
        return answer(lambda: agent_tools.recent(start, checked("kind", kind), checked("limit", limit)))

    def check_closure() -> CallToolResult:
        return answer(lambda: agent_tools.closure(start, home))

    def draft_distill_review(
        run_ids: Annotated[Any, _arg("run_ids", "the runs to review, by artifact id (run-xxxxxxxx), as list_distill_candidates "
                      "gives them")] = None,
    ) -> CallToolResult:
        return answer(lambda: agent_tools.draft(start, checked("run_ids", run_ids), home))

    def validate_distill_review(
        payload: Annotated[Any, _arg("payload", "the review payload, as it would be passed to artifact.record(payload=...)")] = None,
    ) -> CallToolResult:
        return answer(lambda: agent_tools.validate_review(start, checked("payload", payload), home))

    tool_cls = _tool_class(cls)
    tools = []
    for fn, title in (
        (list_distill_candidates, "Runs awaiting a distill review"),
        (list_knowledge_summaries, "Recall memory cards"),
        (list_recent, "The quest's newest artifacts"),
        (check_closure, "The closure gate's verdict"),
        (draft_distill_review, "Draft a distill review"),
        (validate_distill_review, "What closure would say about a review"),
    ):
        tool = tool_cls.from_function(fn, name=fn.__name__, title=title, description=DESCRIPTIONS[fn.__name__],
                                      annotations=read_only)
        tool.fn_metadata.output_schema = OUTPUT_SCHEMAS[fn.__name__]
        tool.fn_metadata.output_model = AnyResult  # mcp 1.x validates every result it passes through with a model
        if fn.__name__ in REQUIRED:  # required to the client; a call without it is refused in one line, not by pydantic
            tool.parameters["required"] = REQUIRED[fn.__name__]
        tools.append(tool)
    try:
        server = cls(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING", tools=tools, version=__version__)
    except TypeError:  # mcp 1.x: FastMCP takes no version; its low-level server carries it
        server = cls(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING", tools=tools)
        server._mcp_server.version = __version__
    return server


DESCRIPTIONS = {
    "list_distill_candidates": (
        "The completed runs of this quest that no valid distill review covers yet. Call it after a batch of runs "
        "completes and before finalizing. Returns candidates: run_id (the run's artifact id, run-xxxxxxxx: what a "
        "review lists), experiment_run_id (main-001), run_kind, workspace, branch, created_at, summary, reason, "
        "metrics_summary, metric_rows, metrics, primary_metric (long values clipped, named in clipped), plus "
        "pending_count and omitted (runs beyond the first 200)."),
    "list_knowledge_summaries": (
        "Recall lessons from memory cards (global, this quest's and other quests') with their content. domain_tags "
        "only: ranked by shared tags, then recency (the RFC); query: by full-text relevance. Empty domain_tags and no "
        "query: the most recent cards (tag_sources then holds this quest's stage-entry tags when recall_priors is on). "
        "Call it at stage entry and before writing a card. Returns results (card_id, title, summary: the claim and "
        "first body lines within max_chars, tags, kind, scope, path, overlap, matched_tags, support: how many quests "
        "hold the lesson, copies: every copy when duplicates were collapsed), rank_by, unmatched_tags (tags no card "
        "carries, with the closest known), counts and left_out."),
    "list_recent": (
        "This quest's newest artifacts from every workspace and unchecked-out branch, newest first "
        "(artifact_id, kind, status, updated_at, summary, workspace, path). kind='run' shows what was just recorded."),
    "validate_distill_review": (
        "What check_closure would say about a distill review once recorded, before it is recorded: call it with the "
        "completed payload before artifact.record. Writes nothing. Returns ok (the review would cover its runs and "
        "raise no error), valid, covers (the run ids it would cover), findings (rule, severity, path, message, hint: "
        "closure's own), pending_after (the runs still pending then), superseded_by and notes."),
    "check_closure": (
        "The closure gate: call it after recording a review, and always before artifact.submit_paper_bundle or "
        "artifact.complete_quest. Returns ok, verdict (passed, rejected, or 'passed (gate off)' when the quest's "
        "experience_distill is off), pending_run_ids, findings (rule, severity, path, message, hint), next_call "
        "(the artifact.record call that covers the pending runs, or null) and encoding (report or decision)."),
    "draft_distill_review": (
        "A ready distill-review payload for run_ids, in the encoding this quest's DeepScientist accepts, with "
        "up to 5 neighbouring memory cards per run (found by recall from the run's tags, the stage-entry tags and "
        "its summary). Complete cards_written and neighbor_decisions (or reason_if_empty) as instructions says, "
        "record it with artifact.record(payload=...), then call check_closure. Every id must be a completed run; "
        "a run reviewed before may be reviewed again."),
}


def serve(start: str, home: str | None = None, *, debug: bool = False) -> None:
    """Serve over stdin/stdout until the client closes them."""
    run_stdio(build_server(start, home, debug=debug))
