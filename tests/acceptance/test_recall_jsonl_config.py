"""Issue 37.4: JSONL lessons reach the agent. The trusted configuration's ``recall_jsonl`` names
ScienceClaw files that ``list_knowledge_summaries`` searches (``ds-gate mcp``, the integration:
``test_integration.py``), and ``recall --jsonl`` adds to them; a line that is no JSON object and a
configured file that cannot be read are said (``source_problems``: path, line, why; notes, first
ten then a count; warnings on the CLI's stderr), never skipped silently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mcp import _field, connect, drive, payload

from ds_gate.agent.tools import call
from ds_gate.agent.toolspec import BY_NAME
from ds_gate.cli.main import main
from ds_gate.config.settings import load
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.recall.api import _INDEXES
from ds_gate.recall.jsonl import MAX_PROBLEMS, SHOWN_PROBLEMS, read_jsonl

PITFALL = {"type": "pitfall", "id": "p-shards", "issue": "uneven shards hang", "fix": "drop_last", "tags": ["t:d"]}
pytestmark = pytest.mark.usefixtures("fresh_recall_indexes")


def configured(folder: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A trusted configuration outside every quest and home, named by $DS_GATE_CONFIG."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.yaml"
    path.write_text(text)
    monkeypatch.setenv("DS_GATE_CONFIG", str(path))
    return path


def findings(path: Path, *lines: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines))
    return path


def recall_tool(quest: ExampleQuest, home: Path, **args: Any) -> dict[str, Any]:
    found = call("list_knowledge_summaries", quest.root, args, home)
    jsonschema.validate(found, BY_NAME["list_knowledge_summaries"].output)  # the schema the client is shown
    return found


@pytest.fixture
def setup(make_quest, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ExampleQuest, Path]:
    """Quest 001 and a configuration naming ``findings.jsonl`` (two bad lines) and a missing file,
    by paths relative to the configuration."""
    findings(tmp_path / "cfg" / "findings.jsonl", json.dumps(PITFALL), "not json {", "", "[1, 2]")
    configured(tmp_path / "cfg", "recall_jsonl: [findings.jsonl, ../gone/lessons.jsonl]\n", monkeypatch)
    return make_quest(), tmp_path


def test_the_agents_recall_searches_the_configured_files_and_says_each_problem(setup, home) -> None:
    quest, tmp = setup
    source, gone = str(tmp / "cfg" / "findings.jsonl"), str(tmp / "gone" / "lessons.jsonl")
    found = recall_tool(quest, home, query="uneven shards")
    assert [(r["card_id"], r["scope"], r["kind"]) for r in found["results"]] == [("p-shards", "jsonl", "pitfall")]
    assert found["source_problems"] == [
        {"path": source, "line": 2, "why": "not JSON (Expecting value at column 1); skipped"},
        {"path": source, "line": 4, "why": "not a JSON object (an array); skipped"},
        {"path": gone, "line": None, "why": "cannot be read: No such file or directory"},
    ]
    assert [n for n in found["notes"] if "jsonl" in n] == [
        f"{source}:2: not JSON (Expecting value at column 1); skipped",
        f"{source}:4: not a JSON object (an array); skipped",
        f"{gone}: cannot be read: No such file or directory",
    ]
    # a record type is a kind the agent may ask for once a JSONL file is configured
    assert [r["card_id"] for r in recall_tool(quest, home, kind="pitfall")["results"]] == ["p-shards"]


def test_the_file_that_comes_later_is_read_and_its_problem_goes(setup, home) -> None:
    quest, tmp = setup
    assert len(recall_tool(quest, home)["source_problems"]) == 3
    findings(tmp / "gone" / "lessons.jsonl", json.dumps({"type": "finding", "id": "f-late", "finding": "late lesson"}))
    again = recall_tool(quest, home)  # the same process, as a long-lived MCP server
    assert "f-late" in [r["card_id"] for r in again["results"]] and len(again["source_problems"]) == 2


def test_a_new_process_says_the_problems_again_from_the_cached_index(setup, home) -> None:
    quest, _ = setup
    first = recall_tool(quest, home)["source_problems"]
    _INDEXES.clear()  # a new process: the index comes from the cache file's snapshot
    assert recall_tool(quest, home)["source_problems"] == first and len(first) == 3


def test_many_bad_lines_are_ten_notes_then_a_count_and_at_most_a_hundred_listed(
    make_quest, home, tmp_path, monkeypatch
) -> None:
    source = findings(tmp_path / "cfg" / "findings.jsonl", json.dumps(PITFALL), *(["{broken"] * 150))
    configured(tmp_path / "cfg", "recall_jsonl: findings.jsonl\n", monkeypatch)
    found = recall_tool(make_quest(), home)
    problems = found["source_problems"]
    assert len(problems) == MAX_PROBLEMS + 1 and problems[0]["line"] == 2 and problems[99]["line"] == 101
    assert problems[-1] == {"path": str(source), "line": None, "why": "50 more bad line(s) skipped"}
    said = [n for n in found["notes"] if "findings.jsonl" in n or "source_problems" in n]
    assert len(said) == SHOWN_PROBLEMS + 1 and said[-1] == (
        "and 91 more problem(s) of the JSONL sources (source_problems)"
    )
    assert [r["card_id"] for r in found["results"]] == ["p-shards"]


def test_the_cli_adds_jsonl_to_the_configured_and_warns_on_stderr(setup, home, tmp_path, capsys) -> None:
    other = findings(tmp_path / "more.jsonl", json.dumps({**PITFALL, "id": "p-other", "fix": "pad"}), "7")
    capsys.readouterr()
    code = main(["recall", "--home", str(home), "--jsonl", str(other), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0
    report = json.loads(out)
    assert sorted(r["card_id"] for r in report["results"]) == ["p-other", "p-shards"]
    assert [(p["path"], p["line"]) for p in report["recall"]["source_problems"]] == [
        (str(other), 2),
        (str(tmp_path / "cfg" / "findings.jsonl"), 2),
        (str(tmp_path / "cfg" / "findings.jsonl"), 4),
        (str(tmp_path / "gone" / "lessons.jsonl"), None),
    ]
    assert err.splitlines() == [
        f"ds-gate: warning: {other}:2: not a JSON object (a number); skipped",
        f"ds-gate: warning: {tmp_path / 'cfg' / 'findings.jsonl'}:2: not JSON (Expecting value at column 1); skipped",
        f"ds-gate: warning: {tmp_path / 'cfg' / 'findings.jsonl'}:4: not a JSON object (an array); skipped",
        f"ds-gate: warning: {tmp_path / 'gone' / 'lessons.jsonl'}: cannot be read: No such file or directory",
    ]
    # a file given with --jsonl that cannot be read is still the usage error it was
    assert main(["recall", "--home", str(home), "--jsonl", str(tmp_path / "nope.jsonl")]) == 2


def test_the_same_file_configured_and_given_is_read_once(setup, home, tmp_path, capsys) -> None:
    capsys.readouterr()
    code = main(
        ["recall", "--home", str(home), "--jsonl", str(tmp_path / "cfg" / "findings.jsonl"), "--format", "json"]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["card_id"] for r in report["results"]] == ["p-shards"]
    assert len(report["recall"]["source_problems"]) == 3  # each bad line once, the missing file once


def test_only_the_trusted_configuration_names_jsonl_files(make_quest, home, tmp_path, monkeypatch) -> None:
    quest = make_quest()
    lessons = findings(tmp_path / "lessons.jsonl", json.dumps(PITFALL))
    (quest.root / ".ds-gate.yaml").write_text(f"recall_jsonl: [{lessons}]\n")  # the quest's own: not a key it has
    assert recall_tool(quest, home)["results"] == []
    inside = configured(home / "cfg", f"recall_jsonl: [{lessons}]\n", monkeypatch)  # a file the agent can write
    found = recall_tool(quest, home)
    assert found["results"] == [] and found["source_problems"] == []
    assert any(str(inside) in n and "its recall_jsonl names are not read" in n for n in found["notes"])
    configured(tmp_path / "cfg", "recall_jsonl: 7\n", monkeypatch)
    assert "recall_jsonl is a list of JSONL file paths" in (load().problem or "")
    assert main(["closure", str(quest.root)]) == 2  # a trusted file that cannot be used stops the gate, as before


@pytest.mark.slow
def test_ds_gate_mcp_returns_the_configured_records_and_their_problems(setup, home, tmp_path) -> None:
    """The real SDK client and a real ``ds-gate mcp`` started with the runner's short environment
    plus $DS_GATE_CONFIG (as the user's shell exports it)."""
    quest, tmp = setup
    errlog = tmp_path / "server.err"
    env = {"DS_GATE_CONFIG": str(tmp / "cfg" / "config.yaml")}

    async def scenario() -> None:
        async with connect(quest.root, errlog, env=env) as session:
            found = payload(await session.call_tool("list_knowledge_summaries", {"query": "uneven shards"}))
            assert [r["card_id"] for r in found["results"]] == ["p-shards"]
            assert [(p["line"], p["why"]) for p in found["source_problems"]] == [
                (2, "not JSON (Expecting value at column 1); skipped"),
                (4, "not a JSON object (an array); skipped"),
                (None, "cannot be read: No such file or directory"),
            ]
            assert f"{tmp / 'cfg' / 'findings.jsonl'}:4: not a JSON object (an array); skipped" in found["notes"]
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            schema = _field(listed["list_knowledge_summaries"], "output_schema", "outputSchema")
            assert "source_problems" in schema["required"]

    drive(scenario, errlog)


LINES = st.one_of(
    st.binary(max_size=40).filter(lambda b: b"\n" not in b),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=8,
    ).map(lambda value: json.dumps(value).encode()),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, max_size=12))
def test_every_line_is_a_record_or_a_problem_never_silence(tmp_path, lines: list[bytes]) -> None:
    source = tmp_path / "any.jsonl"
    source.write_bytes(b"\n".join(lines) + b"\n")
    entries, problems = read_jsonl(source)
    kept = [n for n, line in enumerate(lines, start=1) if line.decode("utf-8", "replace").strip()]
    assert len(entries) + len(problems) == len(kept)
    assert all(p.line in kept and p.path == str(source) and p.why.endswith("skipped") for p in problems)
    assert sorted([int(e.path.rsplit(":", 1)[1]) for e in entries] + [p.line or 0 for p in problems]) == kept
