"""Issue 36: an agent tool is one row of ``agent/toolspec.py``. Every reader serves the table as
it is: the MCP server lists its rows, the skill approves them, the DeepScientist integration
adds the rows naming main's servers and answers them; each row has its function of the same
name in ``agent/tools.py``, and arguments are checked from the row's schemas alone."""

from __future__ import annotations

import ast
import asyncio
import inspect
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ds_gate.agent import tools, toolspec
from ds_gate.agent.mcp_server import build_server, server_class
from ds_gate.agent.skill import mcp_entries
from ds_gate.agent.toolspec import BY_NAME, TOOLS, BadArgument, checked
from ds_gate.integration import installer
from ds_gate.integration import tools as integration_tools
from ds_gate.integration.call import answer
from ds_gate.model.reports import MAX_LIMIT
from ds_gate.recall.api import DEFAULT_ORDER

ROOT = Path(__file__).resolve().parents[2]
NAMES = [spec.name for spec in TOOLS]


def test_the_mcp_server_lists_exactly_the_table(tmp_path: Path) -> None:
    listed = asyncio.run(build_server(str(tmp_path)).list_tools())
    assert [tool.name for tool in listed] == NAMES
    for tool in listed:
        spec = BY_NAME[tool.name]
        assert (tool.title, tool.description) == (spec.title, spec.description)
        schema = tool.inputSchema if hasattr(tool, "inputSchema") else tool.input_schema
        assert list(schema["properties"]) == [arg.name for arg in spec.arguments]
        assert schema.get("required", []) == spec.required


def test_the_skill_approves_exactly_the_table() -> None:
    entries = mcp_entries(["ds-gate", "mcp"])
    assert list(entries["codex"]["entry"]["tools"]) == NAMES
    assert [line for line in entries["codex"]["snippet"].splitlines() if ".tools." in line] == [
        f"[mcp_servers.ds_gate.tools.{name}]" for name in NAMES
    ]


def test_the_integration_adds_exactly_the_rows_naming_mains_servers() -> None:
    context = SimpleNamespace(home=None, require_quest_root=lambda: Path("/q"))
    added: dict[str, list[str]] = {}
    artifact_tools = ("record", "complete_quest", "submit_paper_bundle")  # main's quest artifact server
    for where, builder, mains in (
        ("artifact", "build_artifact_server", artifact_tools),
        ("memory", "build_memory_server", ()),
    ):
        server = server_class()(where)
        for name in mains:
            server.add_tool(lambda: {}, name=name)
        assert integration_tools.add_tools(builder, server, context, {}) == []
        added[where] = [tool.name for tool in server._tool_manager.list_tools() if tool.name not in mains]
        for name in added[where]:
            tool = server._tool_manager.get_tool(name)
            assert tool.description == integration_tools.PREFIX + BY_NAME[name].description
            arguments = [arg.name for arg in BY_NAME[name].arguments]
            assert list(tool.parameters["properties"]) == [*arguments, "comment"]
    assert added == {where: [spec.name for spec in TOOLS if spec.deepscientist == where] for where in added}
    assert {spec.deepscientist for spec in TOOLS} == {"artifact", "memory", ""}


def test_each_row_has_its_function_of_the_same_name_and_no_function_is_left_out() -> None:
    defined = {
        name
        for name, value in vars(tools).items()
        if inspect.isfunction(value) and value.__module__ == tools.__name__ and not name.startswith("_")
    }
    assert defined - {"call"} <= set(NAMES)  # a tool function here is a row (validate_distill_review is the engine's)
    for spec in TOOLS:
        parameters = list(inspect.signature(getattr(tools, spec.name)).parameters)
        assert [name for name in parameters if name != "home"] == ["root", *(arg.name for arg in spec.arguments)]
        assert ("home" in parameters) == spec.reads_home


def test_the_integration_answers_every_row_and_no_other_name(tmp_path: Path) -> None:
    for name in NAMES:
        request = {"op": "tool", "root": str(tmp_path), "tool": name, "args": {"run_ids": "x", "payload": 1}}
        assert "unknown tool" not in answer(request).get("error", "")  # recall answers on any folder (issue 38)
    assert answer({"op": "tool", "root": str(tmp_path), "tool": "recall", "args": {}}) == {
        "error": "unknown tool 'recall'"
    }


def test_the_table_is_copied_into_deepscientists_runtime_and_imports_the_standard_library_only() -> None:
    assert installer.MODULES["_ds_gate_ds_toolspec.py"] == "../agent/toolspec.py"
    assert installer.runtime_files({})["_ds_gate_ds_toolspec.py"] == Path(toolspec.__file__).read_text()
    tree = ast.parse(Path(toolspec.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert {name.split(".")[0] for name in imported} <= sys.stdlib_module_names | {"__future__"}


def test_the_defaults_and_bounds_are_the_engines() -> None:
    [order] = [arg for arg in BY_NAME["list_knowledge_summaries"].arguments if arg.name == "order"]
    assert order.default == DEFAULT_ORDER
    assert toolspec.ARGUMENTS["limit"][0]["maximum"] == MAX_LIMIT


@pytest.mark.parametrize(
    ("tool", "given", "said"),
    [
        ("list_recent", {"limit": "many"}, "limit must be an integer from 1 to 200, not str 'many'"),
        ("list_recent", {"limit": True}, "limit must be an integer from 1 to 200, not bool True"),
        ("list_recent", {"limit": None}, "limit is required: an integer from 1 to 200"),
        (
            "list_knowledge_summaries",
            {"domain_tags": [1, 2]},
            "domain_tags must be a list of tag strings (or null), not list [1, 2]",
        ),
        ("list_knowledge_summaries", {"order": "newest"}, "order must be 'rfc' or 'relevance', not str 'newest'"),
        (
            "list_knowledge_summaries",
            {"max_chars": 1.5},
            "max_chars must be an integer from 0 to 200000 (or null), not float 1.5",
        ),
        ("draft_distill_review", {}, "run_ids is required: a list of run artifact ids (strings, run-xxxxxxxx)"),
        (
            "validate_distill_review",
            {"payload": ["x" * 80]},
            "payload must be a JSON object: the payload artifact.record would take, not list ['" + "x" * 55 + "...",
        ),
    ],
)
def test_a_wrong_argument_is_one_line_from_the_rows_schema(tool: str, given: dict[str, Any], said: str) -> None:
    with pytest.raises(BadArgument) as raised:
        checked(BY_NAME[tool], given)
    assert str(raised.value) == said


def test_arguments_of_their_type_pass_with_the_defaults_and_ranges_are_left_to_the_engine() -> None:
    assert checked(BY_NAME["list_recent"], {"limit": 0, "comment": "x"}, ("comment",)) == {"kind": None, "limit": 0}
    assert checked(BY_NAME["list_knowledge_summaries"], {"domain_tags": ["a"], "max_chars": -1}) == {
        "domain_tags": ["a"],
        "kind": None,
        "limit": 20,
        "query": None,
        "max_chars": -1,
        "order": "rfc",
    }
    assert checked(BY_NAME["check_closure"], {}) == {}


@pytest.mark.parametrize(
    ("tool", "given", "said"),
    [
        (
            "list_recent",
            {"limt": 5},
            "list_recent takes no argument 'limt'; it takes: kind, limit (did you mean limit?)",
        ),
        ("check_closure", {"anything": 1}, "check_closure takes no argument 'anything'; it takes: no arguments"),
        ("list_recent", {"limit": 5, "comment": "x"}, "list_recent takes no argument 'comment'; it takes: kind, limit"),
    ],
)
def test_an_unknown_argument_is_refused_with_the_tools_list(tool: str, given: dict[str, Any], said: str) -> None:
    """Issue 39: an unknown argument was dropped, so a misspelt limit silently became its default."""
    with pytest.raises(BadArgument) as raised:
        checked(BY_NAME[tool], given)
    assert str(raised.value) == said


def test_the_mcp_server_hands_an_unknown_argument_to_the_check(one_run_quest) -> None:
    """The SDK's argument model would drop it before the tool is called: the server refuses it."""
    import asyncio

    from ds_gate.agent.mcp_server import build_server

    server = build_server(str(one_run_quest.root))

    async def call(arguments: dict[str, Any]) -> Any:
        return await server.call_tool("list_recent", arguments)

    def is_error(result: Any) -> bool:  # mcp 2.x's name, then 1.x's
        return bool(getattr(result, "is_error", getattr(result, "isError", None)))

    refused = asyncio.run(call({"limt": 1}))
    assert is_error(refused) and refused.content[0].text.startswith("list_recent takes no argument 'limt'")
    assert not is_error(asyncio.run(call({"limit": 1})))


def test_architecture_names_the_table_as_the_place_to_add_a_tool() -> None:
    page = (ROOT / "ARCHITECTURE.md").read_text()
    bullet = page[page.index("- **An agent tool**") :].split("\n- ")[0]
    assert "`agent/toolspec.py`" in bullet and (ROOT / "ds_gate" / "agent" / "toolspec.py").is_file()


def _nested(depth: int, inner: Any) -> Any:
    for _ in range(depth):
        inner = [inner]
    return inner


@pytest.mark.parametrize(
    ("name", "given"),
    [
        ("list_recent", {"kind": 10**5000}),  # more digits than Python's int -> str conversion takes
        ("draft_distill_review", {"run_ids": _nested(5000, "run-1")}),  # a repr deeper than the stack
    ],
)
def test_an_argument_that_cannot_be_shown_is_still_one_line(name: str, given: dict[str, Any], tmp_path: Path) -> None:
    """Issue 36's adversary: the one-line message built ``repr(value)``, which raised ValueError or
    RecursionError past ``tools.call``; the argument is named, not shown."""
    with pytest.raises(tools.QuestError) as raised:
        tools.call(name, tmp_path, given)
    assert "\n" not in str(raised.value) and "too large or too deeply nested to show" in str(raised.value)


def test_a_payload_nested_past_the_stack_is_a_one_line_tool_error(one_run_quest: Any) -> None:
    """A review payload that passes the type check but holds a value nested deeper than the stack
    (the adversary's ``validate_distill_review``): a QuestError naming the tool, not a RecursionError."""
    deep: dict[str, Any] = {}
    here = deep
    for _ in range(5000):
        here["a"] = {}
        here = here["a"]
    payload = {"kind": "report", "report_type": "distill_review", "reviewed_run_ids": ["run-1"], "extra": deep}
    with pytest.raises(tools.QuestError, match="validate_distill_review: an argument is nested too deeply"):
        tools.call("validate_distill_review", one_run_quest.root, {"payload": payload})
