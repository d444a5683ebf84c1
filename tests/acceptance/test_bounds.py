"""Issue 24, "bounded, never crashing", on the real commands: deeply nested tags never crash
``recall`` or the MCP tools, recall refuses inputs past its documented bounds with one clear
line (exit 2), and ``ds-gate mcp`` answers a request over its cap with a JSON-RPC error and
carries on (a raw subprocess speaking JSON-RPC over stdio, as any client does). The bounds
are asserted, not timings; ``docs/limits.md`` has the measured memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ds_gate.recall.entries import MAX_RECALL_TAGS
from ds_gate.recall.jsonl import MAX_JSONL_RECORDS
from ds_gate.sources.tag_values import MAX_TAGS

from helpers import McpLines

DEEP = "[" * 100_000 + "]" * 100_000


def ds_gate(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ds_gate", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


def deep_card(home: Path) -> None:
    folder = home / "memory" / "knowledge"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "k-deep.md").write_text(
        f"---\nid: k-deep\ntype: knowledge\ntitle: deep\ntags: '{DEEP}'\n"
        f"updated_at: '2026-01-01T00:00:00+00:00'\n---\nbody\n"
    )
    (folder / "k-fine.md").write_text(
        "---\nid: k-fine\ntype: knowledge\ntitle: fine\ntags: [topic:a]\n"
        "updated_at: '2026-01-01T00:00:00+00:00'\n---\nbody\n"
    )


@pytest.mark.slow
def test_recall_over_deeply_nested_tags_in_a_card_and_a_jsonl_record(home: Path, tmp_path: Path) -> None:
    deep_card(home)
    findings = tmp_path / "findings.jsonl"
    findings.write_text(
        json.dumps({"type": "finding", "content": "x", "tags": DEEP})
        + "\n"
        + json.dumps({"type": [[[["deep kind"]]]], "content": "y", "tags": ["topic:a"]})
        + "\n"
    )
    done = ds_gate("recall", "--tags", "topic:a", "--home", str(home), "--jsonl", str(findings), "--format", "json")
    assert done.returncode == 0, done.stderr
    found = {r["card_id"] for r in json.loads(done.stdout)["results"]}
    assert "k-fine" in found and len(found) == 2  # the fine card and the fine record; the deep ones match nothing
    checked = ds_gate("validate", str(home / "memory" / "knowledge" / "k-deep.md"))
    assert checked.returncode == 0 and "card.tags-over-limit" in checked.stdout


@pytest.mark.slow
def test_recall_refuses_a_jsonl_past_its_record_bound_with_one_line(home: Path, tmp_path: Path) -> None:
    findings = tmp_path / "findings.jsonl"
    findings.write_text('{"content": "x"}\n' * (MAX_JSONL_RECORDS + 1))
    done = ds_gate("recall", "--tags", "topic:a", "--home", str(home), "--jsonl", str(findings))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"more than {MAX_JSONL_RECORDS:,} records" in done.stderr and "docs/limits.md" in done.stderr


@pytest.mark.slow
def test_recall_refuses_more_tags_than_its_bound_across_records(home: Path, tmp_path: Path) -> None:
    findings = tmp_path / "findings.jsonl"
    record = json.dumps({"content": "x", "tags": [f"t{i}" for i in range(MAX_TAGS)]})
    findings.write_text((record + "\n") * (MAX_RECALL_TAGS // MAX_TAGS + 1))
    done = ds_gate("recall", "--tags", "t1", "--home", str(home), "--jsonl", str(findings))
    assert done.returncode == 2 and f"{MAX_RECALL_TAGS:,} tags" in done.stderr


@pytest.mark.slow
def test_a_card_of_a_million_tags_is_refused_not_parsed(home: Path) -> None:
    folder = home / "memory" / "knowledge"
    folder.mkdir(parents=True)
    (folder / "k-big.md").write_text(
        "---\nid: k-big\ntitle: t\ntags: [" + ", ".join(f"t{i}" for i in range(1_000_000)) + "]\n---\nbody\n"
    )
    done = ds_gate("validate", str(folder / "k-big.md"))
    assert done.returncode == 1 and "input.too-large" in done.stdout and "; not read" in done.stdout
    assert ds_gate("recall", "--tags", "t5", "--home", str(home)).returncode == 0


def call(ident: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


@pytest.mark.slow
def test_the_mcp_server_answers_a_request_over_its_cap_and_carries_on(make_quest, home: Path) -> None:
    quest = make_quest()
    deep_card(home)
    server = McpLines(quest.root)
    server.send(call(1, "list_knowledge_summaries", {"domain_tags": ["x" * (3 << 20)]}))
    refused = server.receive()
    assert refused["id"] == 1 and refused["error"]["code"] == -32600
    assert (
        "request too large" in refused["error"]["message"]
        and "DS_GATE_MCP_MAX_REQUEST_MB" in refused["error"]["message"]
    )
    # the TypeScript SDK writes the id last
    tail_id = (
        json.dumps(
            {
                "method": "tools/call",
                "params": {"name": "check_closure", "arguments": {"x": "y" * (2 << 20)}},
                "jsonrpc": "2.0",
                "id": "req-7",
            }
        ).encode()
        + b"\n"
    )
    server.send(tail_id)
    assert server.receive()["id"] == "req-7"
    server.send(call(2, "list_knowledge_summaries", {"domain_tags": ["topic:a"]}))  # deep tags in the home: no crash
    answered = server.receive()
    assert answered["id"] == 2 and not answered["result"].get("isError"), answered
    assert [r["card_id"] for r in answered["result"]["structuredContent"]["results"]] == ["k-fine"]
    assert "Traceback" not in server.close()


@pytest.mark.slow
def test_an_over_long_first_line_is_answered_before_the_session_starts(make_quest) -> None:
    quest = make_quest()
    server = McpLines(
        quest.root,
        first=b'{"jsonrpc": "2.0", "id": 99, "method": "initialize", "params": {"x": "' + b"y" * (2 << 20) + b'"}}\n',
    )
    server.send(call(1, "list_recent", {"limit": 1}))
    assert server.receive()["id"] == 1
    assert "Traceback" not in server.close()


@pytest.mark.slow
def test_the_cap_is_the_environments(make_quest) -> None:
    quest = make_quest()
    server = McpLines(quest.root, env={"DS_GATE_MCP_MAX_REQUEST_MB": "0.02"})
    server.send(call(1, "list_recent", {"kind": "x" * 30_000}))
    assert "cap of 20,971 bytes" in server.receive()["error"]["message"]
    server.send(call(2, "list_recent", {"limit": 1}))
    assert server.receive()["id"] == 2
    server.close()
    bad = ds_gate("mcp", cwd=quest.root, env={"DS_GATE_MCP_MAX_REQUEST_MB": "lots"})
    assert bad.returncode == 2 and "DS_GATE_MCP_MAX_REQUEST_MB must be" in bad.stderr


@pytest.mark.parametrize(
    ("head", "tail", "ident"),
    [
        (b'{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {', b"", 12),
        (b'{"method": "tools/call", "params": {"id": 3, ', b', "jsonrpc": "2.0", "id": "a\\"b"}', 'a"b'),
        (b'{"params": {"id": 3, ', b"}}", None),
    ],
)
def test_the_id_of_an_over_long_request_is_read_from_its_ends(head: bytes, tail: bytes, ident: object) -> None:
    from ds_gate.agent.mcp_limits import request_id

    assert request_id(head, tail) == ident


@pytest.mark.slow
@pytest.mark.parametrize("name", ["quest.yaml", ".ds-gate.yaml"])
def test_every_yaml_the_quest_writes_is_bounded_and_closure_stops_on_one_past_it(make_quest, name: str) -> None:
    """The value bound of card frontmatter holds for every YAML input (``io.yamldoc.load_yaml``):
    a ``quest.yaml`` or ``.ds-gate.yaml`` of 150,000 values (~1 MB) is not built by PyYAML;
    what it fails to say may turn the gate on, so closure stops (exit 2) naming it."""
    from ds_gate.io.yamldoc import MAX_VALUES

    quest = make_quest()
    path = quest.root / name
    head = path.read_text() if path.exists() else ""
    path.write_text(head + "padding: [" + ", ".join("v" for _ in range(MAX_VALUES + 50_000)) + "]\n")
    done = ds_gate("closure", str(quest.root))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"more than {MAX_VALUES:,} values" in done.stderr and name in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
