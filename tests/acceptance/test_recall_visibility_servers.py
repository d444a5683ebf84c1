"""Issue 37.2 on the two servers an agent reaches recall through, each driven by the real MCP SDK
client: ``ds-gate mcp`` and main's own memory server with the integration installed (the stand-in
runtime of ``test_integration.py``). The home's config.yaml is rewritten between calls of one
session: it is read at each call, as main reads it. Neither tool takes an argument that widens it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_integration import PASSED_ON, install, runtime, undo
from test_mcp import _field, connect, drive, is_error, payload, text
from visibility_home import HIDDEN, SHARED, TAG, assert_hidden, configure, ids, plant

pytestmark = pytest.mark.slow
__all__ = ["runtime"]  # test_integration's fixture: a runtime environment with the stand-in installed

CASES = [(name, body, False) for name, body in HIDDEN.items()] + [(name, body, True) for name, body in SHARED.items()]


def judge(case: str, shared: bool, result: dict[str, Any]) -> None:
    if shared:
        found = {r["card_id"]: r for r in result["results"]}
        assert set(found) == {"k-a", "k-b", "k-global"}, case
        assert found["k-b"]["scope"] == "shared_quest" and found["k-b"]["document_id"].startswith("sharedmemory::B::")
        assert result["visibility"]["mode"] == "shared_across_quests", case
    else:
        assert ids(result["results"]) == {"k-a", "k-global"}, case
        assert_hidden(result, case)
        assert result["visibility"]["mode"] == "independent", case


def no_widening(schema: dict[str, Any]) -> None:
    assert set(schema["properties"]) == {"domain_tags", "kind", "limit", "query", "max_chars", "order"} | (
        {"comment"} if "comment" in schema["properties"] else set()
    )


def test_ds_gate_mcp_follows_the_homes_setting_call_by_call(home: Path, tmp_path: Path) -> None:
    roots = plant(home, tmp_path / "outside")
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(roots["A"], errlog) as session:
            [tool] = [t for t in (await session.list_tools()).tools if t.name == "list_knowledge_summaries"]
            no_widening(_field(tool, "input_schema", "inputSchema"))
            for case, body, shared in CASES:
                configure(home, body)
                judge(case, shared, payload(await session.call_tool(tool.name, {"domain_tags": [TAG]})))
            configure(home, HIDDEN["independent"])
            refused = await session.call_tool(tool.name, {"domain_tags": [TAG], "visibility": "all"})
            assert is_error(refused) and "takes no argument 'visibility'" in text(refused)
            quirk = payload(await session.call_tool(tool.name, {"query": "validator relative"}))
            assert all(r["scope"] != "home_quirks" for r in quirk["results"])  # independent: no quirks either

    drive(scenario, errlog)


def test_mains_memory_server_with_the_integration_follows_it_too(runtime: dict[str, Path], tmp_path: Path) -> None:
    home = runtime["home"]
    roots = plant(home, tmp_path / "outside")
    env = {name: os.environ[name] for name in PASSED_ON if name in os.environ}
    env |= {"DEEPSCIENTIST_HOME": str(home), "DS_QUEST_ROOT": str(roots["A"]), "DS_QUEST_ID": "A"}
    params = StdioServerParameters(
        command=str(runtime["python"]), args=["-m", "deepscientist.mcp.server", "--namespace", "memory"], env=env
    )

    def result_of(answer: Any) -> dict[str, Any]:
        structured = getattr(answer, "structured_content", None) or getattr(answer, "structuredContent", None)
        assert isinstance(structured, dict), answer
        out = structured.get("result", structured)
        assert out.get("schema_version") == 1, out
        return dict(out)

    async def scenario() -> None:
        with (tmp_path / "memory.err").open("a") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                [tool] = [t for t in (await session.list_tools()).tools if t.name == "list_knowledge_summaries"]
                no_widening(_field(tool, "input_schema", "inputSchema"))
                for case, body, shared in CASES:
                    configure(home, body)
                    judge(case, shared, result_of(await session.call_tool(tool.name, {"domain_tags": [TAG]})))
                configure(home, SHARED["shared_across_quests"])
                found = result_of(await session.call_tool(tool.name, {"query": "validator relative"}))
                assert found["results"][0]["scope"] == "home_quirks", found
                refused = await session.call_tool(tool.name, {"domain_tags": [TAG], "visibility": "all"})
                assert is_error(refused) and "takes no argument 'visibility'" in text(refused)

    install(home)
    try:
        anyio.run(scenario)
    finally:
        undo(home)
    assert "Traceback" not in (tmp_path / "memory.err").read_text()
