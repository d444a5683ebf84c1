"""``ds-gate mcp``: the agent's tools (``agent/tools.py``) served over MCP's stdio transport (docs/agent-tools.md).

A thin adapter over the tool table (``agent/toolspec.py``): each tool returns its dict as the
result's structured content and as JSON text. Bad input is a tool error (``isError``) whose text is
the CLI's own message, an unexpected error one line too: the client never sees a traceback, because
what an agent reads back becomes its next step. The quest is found again at each call, so a
worktree removed and added back costs one failed call, not the server. The optional ``mcp`` SDK is
imported only when the server starts; both lines work: 2.x (``MCPServer``) and 1.x from 1.19
(``FastMCP``; the first to pass a tool's own ``CallToolResult`` through, and DeepScientist's floor).
"""

from __future__ import annotations

import importlib
import json
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from ds_gate.agent import tools as agent_tools
from ds_gate.agent.mcp_limits import run_stdio
from ds_gate.agent.skill import SERVER_NAME
from ds_gate.agent.toolspec import READ_ONLY, TOOLS, ToolSpec, pass_unknown, sdk_function
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.git import GitError
from ds_gate.kernel.jsonout import dumps
from ds_gate.kernel.version import __version__
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


def build_server(start: str, home: str | None = None, *, debug: bool = False) -> Any:
    """The server with its six tools, each reading the quest at ``start`` (any path inside it),
    each with its result's ``outputSchema``, the server named with ds-gate's version."""
    cls = server_class()
    from mcp.types import CallToolResult, ToolAnnotations
    from pydantic import Field, RootModel

    class AnyResult(RootModel[dict[str, Any] | None]):
        """A result as the SDK's model sees it: an object, or none for an error (the schema says the rest)."""

    lock = threading.Lock()  # the SDK may run sync tools on worker threads; recall's index is per process
    read_only = ToolAnnotations.model_validate(READ_ONLY)

    def answer(call: Callable[[], dict[str, Any]]) -> CallToolResult:
        with lock:
            try:
                result = call()
            except Exception as exc:
                if debug:
                    traceback.print_exc(file=sys.stderr)
                return CallToolResult.model_validate(
                    {"content": [{"type": "text", "text": _error_text(exc)}], "isError": True}
                )
        text = json_safe(dumps(result, ensure_ascii=False))  # a stray byte shows as \xff, a NaN as "NaN"
        return CallToolResult.model_validate(
            {"content": [{"type": "text", "text": text}], "structuredContent": json.loads(text), "isError": False}
        )

    def run(spec: ToolSpec, given: dict[str, Any]) -> CallToolResult:
        return answer(lambda: agent_tools.call(spec.name, start, given, home))

    try:
        server = cls(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING", version=__version__)
    except TypeError:  # mcp 1.x: FastMCP takes no version; its low-level server carries it
        server = cls(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING")
        server._mcp_server.version = __version__
    for spec in TOOLS:
        server.add_tool(
            sdk_function(spec, run, Field, CallToolResult),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=read_only,
        )
        tool = server._tool_manager.get_tool(spec.name)
        pass_unknown(tool)  # an argument the tool does not take reaches ``checked``, which refuses it
        tool.fn_metadata.output_schema = spec.output
        tool.fn_metadata.output_model = AnyResult  # mcp 1.x validates every result it passes through with a model
        if spec.required:  # required to the client; a call without it is refused in one line, not by pydantic
            tool.parameters["required"] = spec.required
    return server


def serve(start: str, home: str | None = None, *, debug: bool = False) -> None:
    """Serve over stdin/stdout until the client closes them."""
    run_stdio(build_server(start, home, debug=debug))
