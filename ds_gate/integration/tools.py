"""The RFC's read-only tools, registered on DeepScientist's own artifact and memory servers.

Copied beside ``wrap.py`` as ``_ds_gate_ds_tools.py``. Tools on ``main``'s built-in servers reach
every runner, Claude and Kimi included, which start no extra MCP server. They are the rows of
ds-gate's tool table (``agent/toolspec.py``) naming main's server: each checks its arguments there,
then asks ds-gate (``wrap.judge``) for the dict ``ds-gate mcp`` gives; a failure is an ``ok: false``
answer naming it, never an exception in the server. A tool ``main`` already has is left alone.

No postponed annotations here: the MCP SDK reads the tool functions' annotations as objects.
"""

import functools
import importlib
import inspect
from typing import Any

if __name__.startswith("ds_gate."):  # its siblings under the names they have here and in DeepScientist's runtime
    from ds_gate.agent import toolspec as table
    from ds_gate.integration import wrap
else:
    import _ds_gate_ds_toolspec as table  # type: ignore[import-not-found, no-redef]
    import _ds_gate_ds_wrap as wrap  # type: ignore[import-not-found, no-redef]

PREFIX = "ds-gate: "  # on main's servers, a tool says whose it is
COMMENT = inspect.Parameter(
    "comment", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=str | dict[str, Any] | None
)  # every tool of main's takes one
WRITE_NOTE = " Default scope is global (ds-gate integration); pass scope='quest' for quest-internal notes."


def _existing(server: Any, name: str) -> bool:
    return server._tool_manager.get_tool(name) is not None


def _add_ours(server: Any, context: Any, where: str, problems: list[str]) -> None:
    """The table's tools for main's ``where`` server, with main's ``comment``, each answering with
    ds-gate's dict for the quest of this server's context. A wrong argument raises the SDK's
    ``ToolError`` (beside its server class): the exception whose text both SDK lines pass on."""
    from mcp.types import ToolAnnotations
    from pydantic import Field

    errors = importlib.import_module(type(server).__module__.rsplit(".", 1)[0] + ".exceptions")
    read_only = ToolAnnotations.model_validate(table.READ_ONLY)  # the wire names: both SDK lines take them

    def ask(spec: Any, given: dict[str, Any]) -> dict[str, Any]:
        try:
            arguments = table.checked(spec, given, ("comment",))
        except table.BadArgument as exc:
            raise errors.ToolError(str(exc)) from None
        try:
            request = {"op": "tool", "tool": spec.name, "args": arguments}
            result = wrap.judge(wrap.about(context, context.require_quest_root(), request)).get("result")
            if not isinstance(result, dict):
                raise RuntimeError("ds-gate answered no result")
            return result
        except Exception as exc:
            refusal: dict[str, Any] = wrap.error_refusal(spec.name, exc)
            return refusal

    for spec in table.TOOLS:
        if spec.deepscientist != where:
            continue
        if _existing(server, spec.name):
            problems.append(
                f"{server.name}.{spec.name} exists in this DeepScientist; ds-gate's tool of that name is not added"
            )
            continue
        server.add_tool(
            table.sdk_function(spec, ask, Field, dict[str, Any], COMMENT),
            name=spec.name,
            description=PREFIX + spec.description,
            annotations=read_only,
        )
        tool = server._tool_manager.get_tool(spec.name)
        table.pass_unknown(tool)  # as ds-gate mcp: an argument the tool does not take is refused by ``checked``
        if spec.required:  # as ds-gate mcp declares it: a call without it is refused by ``checked``, in one line
            tool.parameters["required"] = spec.required


def _guard_tool(server: Any, context: Any, name: str, problems: list[str]) -> None:
    """Ask ds-gate in the tool itself, before ``main``'s function: main's ``submit_paper_bundle``
    tool cuts the service's answer down to a few fields (``compact_paper_write_result``), which
    would drop the refusal's status, run ids and call. The service wrapper beneath stays (it
    guards every other caller) and is not asked twice (``wrap.tool_asked``)."""
    tool = server._tool_manager.get_tool(name)
    original = getattr(tool, "fn", None)
    if tool is None or not callable(original) or inspect.iscoroutinefunction(original):
        problems.append(
            f"{server.name}.{name} is not the tool this ds-gate knows; its refusal reaches the agent "
            "as main's own answer"
        )
        return

    @functools.wraps(original)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            root = context.require_quest_root()
        except Exception:
            return original(*args, **kwargs)  # main's own error
        refusal = wrap.ask(context, root, {"op": "finalization", "tool": name})
        if refusal is not None:
            return refusal
        with wrap.tool_asked(root):
            return original(*args, **kwargs)

    tool.fn = guarded


def _artifact(server: Any, context: Any, problems: list[str]) -> None:
    """Only on the quest's artifact server: main's special profiles (``settings_issue``,
    ``start_setup_prepare``) build one with a single tool and no quest work; it stays so."""
    if not (_existing(server, "record") and _existing(server, "complete_quest")):
        return
    _guard_tool(server, context, "submit_paper_bundle", problems)
    _add_ours(server, context, "artifact", problems)


def _memory(server: Any, context: Any, settings: dict[str, Any], problems: list[str]) -> None:
    _add_ours(server, context, "memory", problems)
    if settings.get("memory_global_scope") is True:
        _global_write(server, problems)


WRITE_SHAPE = ("kind", "title", "body", "markdown", "scope", "tags", "metadata", "comment")


def _global_write(server: Any, problems: list[str]) -> None:
    """``memory.write`` with ``scope='global'`` as its default; main's own function does the writing."""
    tool = server._tool_manager.get_tool("write")
    original: Any = getattr(tool, "fn", None)
    params = inspect.signature(original).parameters if callable(original) else {}
    if not callable(original) or tuple(params) != WRITE_SHAPE or params["scope"].default != "quest":
        problems.append("memory.write has not main's shape; its default scope is left as it is")
        return

    def write(
        kind: str,
        title: str,
        body: str = "",
        markdown: str | None = None,
        scope: str = "global",
        tags: list[str] | str | None = None,
        metadata: dict[str, Any] | None = None,
        comment: str | dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        result: dict[str, Any] = original(
            kind=kind,
            title=title,
            body=body,
            markdown=markdown,
            scope=scope,
            tags=tags,
            metadata=metadata,
            comment=comment,
        )
        return result

    description = (getattr(tool, "description", "") or "") + WRITE_NOTE
    if hasattr(server, "remove_tool"):
        server.remove_tool("write")
    else:
        server._tool_manager._tools.pop("write")
    server.add_tool(write, name="write", description=description)


def add_tools(builder: str, server: Any, context: Any, settings: dict[str, Any]) -> list[str]:
    """The tools for the server ``builder`` built; what was not added, one line each."""
    problems: list[str] = []
    if not (hasattr(server, "add_tool") and hasattr(getattr(server, "_tool_manager", None), "get_tool")):
        return [f"{builder}: the MCP server has no add_tool / tool manager this ds-gate knows; no tool added"]
    if builder == "build_artifact_server":
        _artifact(server, context, problems)
    elif builder == "build_memory_server":
        _memory(server, context, settings, problems)
    return problems


SERVER_SHAPES = {"build_artifact_server": "context", "build_memory_server": "context", "main": ""}


def wrap_server_module(module: Any) -> list[str]:
    """Wrap ``deepscientist.mcp.server``'s two builders so each server gets ds-gate's tools, or
    nothing when a builder has another shape (the caller then puts everything back)."""
    problems: list[str] = wrap.shape_problems(module, SERVER_SHAPES, wrap.SERVER)
    if problems:
        return problems
    for name in ("build_artifact_server", "build_memory_server"):
        original = getattr(module, name)
        wrap.remember(module, name, original, name)
        setattr(module, name, _builder(name, original))
    return []


def _builder(name: str, original: Any) -> Any:
    """A server builder that adds ds-gate's tools to the server ``main`` built; a failure
    to add them leaves ``main``'s server as it is (the service wrapping still holds)."""

    @functools.wraps(original)
    def build(context: Any) -> Any:
        server = original(context)
        try:
            wrap.add_problems(add_tools(name, server, context, wrap.config()))
        except Exception as exc:
            wrap.add_problems([f"{name}: tools not added ({type(exc).__name__}: {exc})"])
            wrap.say(f"{name}: tools not added ({type(exc).__name__}: {exc})")
        return server

    return build
