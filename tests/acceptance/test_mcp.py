"""Issue 16.3: ``ds-gate mcp``, driven as an agent's runner drives it: a real ``python -m ds_gate mcp``
process started in a quest's worktree, spoken to over stdio by the ``mcp`` SDK's own client.

The tools' results are structured JSON; bad input is a tool error carrying the CLI's own
message, never a traceback; nothing is written. One test walks the whole loop: runs
pending, the closure check lists them, a draft review is completed and recorded as
DeepScientist main's ``artifact.record`` writes it, the check passes and the installed hook
lets the paper-bundle commit through.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio  # the test extra installs the SDK: a missing one is an error here, never a silent skip
import pytest
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_read_only import snapshot

from ds_gate.agent.toolspec import BY_NAME as TOOLS
from ds_gate.cli.main import main
from ds_gate.demo.example_quest import CheckpointRejected, ExampleQuest

from helpers import git

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

PASSED_ON = ("DEEPSCIENTIST_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "DS_GATE_CACHE_DIR", "XDG_CACHE_HOME")


def _field(obj: Any, name: str, camel: str) -> Any:
    """A result field under the SDK's 2.x name or its 1.x one (the extra allows both)."""
    return getattr(obj, name) if hasattr(obj, name) else getattr(obj, camel)


def is_error(result: Any) -> bool:
    return bool(_field(result, "is_error", "isError"))


def text(result: Any) -> str:
    [block] = result.content
    return str(block.text)


def payload(result: Any) -> dict[str, Any]:
    """The structured result, checked against the JSON text every client can read."""
    assert not is_error(result), text(result)
    structured = _field(result, "structured_content", "structuredContent")
    assert structured == json.loads(text(result))
    assert structured["schema_version"] == 1
    return dict(structured)


@asynccontextmanager
async def connect(cwd: Path, errlog: Path, *args: str, env: dict[str, str] | None = None) -> AsyncIterator[Any]:
    """A session with ``ds-gate mcp`` started in ``cwd``. The SDK starts servers with a short
    list of variables (HOME, PATH, ...), as a runner would; the test's isolated git and home
    are passed on, and ``DS_QUEST_ROOT`` only when given."""
    server_env = {name: os.environ[name] for name in PASSED_ON if name in os.environ} | (env or {})
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ds_gate", "mcp", *args], cwd=str(cwd), env=server_env
    )
    with errlog.open("a") as err:
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def drive(scenario: Callable[[], Awaitable[None]], errlog: Path) -> None:
    anyio.run(scenario)
    logged = errlog.read_text() if errlog.exists() else ""
    assert "Traceback" not in logged, logged


def cli_error(*args: str, capsys: pytest.CaptureFixture[str]) -> str:
    """What the CLI says for the same bad input (exit 2), without its ``ds-gate: `` prefix."""
    capsys.readouterr()
    assert main(list(args)) == 2
    line = capsys.readouterr().err.strip()
    assert line.startswith("ds-gate: ") and "\n" not in line
    return line.removeprefix("ds-gate: ")


def recall_priors_on(quest: ExampleQuest, **more: Any) -> None:
    meta = yaml.safe_load((quest.root / "quest.yaml").read_text())
    quest.write_quest_yaml(startup_contract={**meta["startup_contract"], "recall_priors": True}, **more)


def test_the_server_lists_the_five_tools_each_read_only_and_described(make_quest, tmp_path) -> None:
    quest = make_quest()
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(quest.root, errlog) as session:
            listed = (await session.list_tools()).tools
            assert sorted(tool.name for tool in listed) == sorted(TOOLS)  # the names install --agent approves
            for tool in listed:
                hints = tool.annotations
                assert _field(hints, "read_only_hint", "readOnlyHint") is True
                assert _field(hints, "destructive_hint", "destructiveHint") is False
                assert len(tool.description or "") > 80
            schemas = {tool.name: _field(tool, "input_schema", "inputSchema") for tool in listed}
            assert schemas["draft_distill_review"]["required"] == ["run_ids"]
            assert set(schemas["list_knowledge_summaries"]["properties"]) == {
                "domain_tags",
                "kind",
                "limit",
                "query",
                "max_chars",
                "order",
            }
            assert set(schemas["list_recent"]["properties"]) == {"kind", "limit"}
            assert (
                schemas["check_closure"].get("properties") == {} == schemas["list_distill_candidates"].get("properties")
            )

    drive(scenario, errlog)


def test_each_tool_answers_with_structured_json(make_quest, home, tmp_path) -> None:
    quest = make_quest()
    recall_priors_on(quest, domains=["sparse-routing"])
    idea = quest.worktree("idea-a", "idea/001-a")
    long_summary = "Experts collapse. " * 400
    big = quest.run(
        idea,
        "main-001",
        summary=long_summary,
        metrics_summary={f"m{i}": i / 7 for i in range(1000)},
        details={"primary_metric_id": "acc", "primary_value": 0.84, "baseline_value": 0.8},
    )
    quest.checkpoint(idea, "experiment: record main main-001")
    gone = quest.worktree("gone", "run/001-gone")
    tip = quest.run(gone, "main-002", summary="Dense baseline reproduced.")
    quest.checkpoint(gone, "experiment: record main main-002")
    git(quest.root, "worktree", "remove", str(gone))  # the run now lives only on its branch
    quest.run(quest.root, "main-000", status="failed")
    lesson = quest.card(
        "global",
        "Routing collapses at high learning rates",
        claim="lr above 1e-3 collapses experts.",
        tags=["stage:baseline", "topic:routing"],
    )
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(idea, errlog) as session:
            found = payload(await session.call_tool("list_distill_candidates", {}))
            assert found["pending_count"] == 2 and found["omitted"] == 0
            by_id = {c["run_id"]: c for c in found["candidates"]}
            assert set(by_id) == {big, tip}
            first = by_id[big]
            assert (first["experiment_run_id"], first["run_kind"], first["workspace"], first["branch"]) == (
                "main-001",
                "main_experiment",
                ".ds/worktrees/idea-a",
                "idea/001-a",
            )
            assert first["created_at"].startswith("2026-") and first["unread"] is None
            assert first["summary"].startswith("Experts collapse.") and len(first["summary"]) < 2100
            assert "clipped: " in first["summary"] and {"summary", "metrics_summary"} <= set(first["clipped"])
            assert 0 < len(first["metrics_summary"]) < 1000 and first["metrics_summary"]["m0"] == 0
            assert first["primary_metric"] == {"id": "acc", "value": 0.84, "baseline_value": 0.8}
            from_git = by_id[tip]
            assert from_git["path"] == f"refs/heads/run/001-gone:artifacts/runs/{tip}.json"
            assert from_git["summary"] == "Dense baseline reproduced." and from_git["metrics_summary"] == {"acc": 0.84}
            assert from_git["branch"] == "run/001-gone" and from_git["unread"] is None

            recalled = payload(await session.call_tool("list_knowledge_summaries", {}))
            # empty tags and no query: the newest cards (the RFC), recall_priors on or off; the
            # stage-entry tags come back to be passed next
            assert recalled["tag_sources"]["stage"] == ["stage:baseline"]
            assert recalled["tag_sources"]["domains"] == ["sparse-routing"]
            assert recalled["domain_tags"] == [] and recalled["rank_by"] == "recent"
            assert [r["card_id"] for r in recalled["results"]] == [lesson]
            assert recalled["results"][0]["summary"].startswith("lr above 1e-3 collapses experts.")
            assert recalled["counts"] == {"cards_in_scope": 1, "of_kind": 1, "matching": 1, "returned": 1}
            assert "stage:baseline, sparse-routing" in recalled["notes"][0]
            tagged = payload(
                await session.call_tool(
                    "list_knowledge_summaries", {"domain_tags": ["topic:nothing"], "kind": "knowledge", "limit": 5}
                )
            )
            assert tagged["results"] == [] and tagged["tag_sources"] is None
            assert tagged["left_out"] == {"other_kinds": 0, "no_shared_tag": 1, "over_limit": 0, "collapsed_copies": 0}

            latest = payload(await session.call_tool("list_recent", {"kind": "run", "limit": 2}))
            assert latest["request"] == {"kind": "run", "limit": 2} and len(latest["results"]) == 2
            assert all(item["kind"] == "run" for item in latest["results"])

            closure = payload(await session.call_tool("check_closure", {}))
            assert (closure["ok"], closure["verdict"], closure["encoding"]) == (False, "rejected", "report")
            assert closure["pending_run_ids"] == sorted([big, tip])
            assert {f["rule"] for f in closure["findings"]} == {"coverage.pending-run"}
            assert closure["next_call"][0].startswith("artifact.record(payload={'kind': 'report'")
            assert repr(big) in closure["next_call"][1]

            drafted = payload(await session.call_tool("draft_distill_review", {"run_ids": [big, tip, big]}))
            assert drafted["encoding"] == "report" and drafted["already_reviewed"] == []
            assert drafted["payload"]["reviewed_run_ids"] == [big, tip]
            assert drafted["payload"]["report_type"] == "distill_review"
            assert drafted["payload"]["suppress_if_semantically_equivalent"] is False
            assert [n["card_id"] for n in drafted["neighbours"][big]] == [lesson]
            assert set(drafted["neighbours"][big][0]) == {
                "card_id",
                "title",
                "scope",
                "kind",
                "claim",
                "matched_tags",
                "path",
            }
            assert "artifact.record(payload=" in drafted["instructions"]

    drive(scenario, errlog)


def test_bad_input_is_a_tool_error_with_the_clis_message(make_quest, tmp_path, capsys) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    failed = quest.run(quest.root, "main-000", status="failed")
    nowhere = tmp_path / "not-a-quest"
    nowhere.mkdir()
    errlog = tmp_path / "server.err"
    messages = {
        "limit": cli_error("recent", str(quest.root), "--limit", "0", capsys=capsys),
        "recall-limit": cli_error("recall", "--limit", "201", "--quest", str(quest.root), capsys=capsys),
        "kind": cli_error("recent", str(quest.root), "--kind", "lesson", capsys=capsys),
        "recall-kind": cli_error("recall", "--kind", "lesson", "--quest", str(quest.root), capsys=capsys),
        "not-a-quest": cli_error("closure", str(nowhere), capsys=capsys),
    }
    got: dict[str, str] = {}

    async def scenario() -> None:
        async with connect(quest.root, errlog) as session:
            for name, tool, arguments in (
                ("limit", "list_recent", {"limit": 0}),
                ("recall-limit", "list_knowledge_summaries", {"domain_tags": ["a"], "limit": 201}),
                ("kind", "list_recent", {"kind": "lesson"}),
                ("recall-kind", "list_knowledge_summaries", {"kind": "lesson"}),
                ("experiment-id", "draft_distill_review", {"run_ids": ["main-001"]}),
                ("typo", "draft_distill_review", {"run_ids": [run[:-1] + "x"]}),
                ("failed-run", "draft_distill_review", {"run_ids": [run, failed]}),
                ("no-ids", "draft_distill_review", {"run_ids": []}),
                ("not-a-list", "draft_distill_review", {"run_ids": "run-1"}),
                ("limit-text", "list_recent", {"limit": "many"}),
                ("tags-text", "list_knowledge_summaries", {"domain_tags": [1, 2]}),
                ("no-payload", "validate_distill_review", {}),
                ("payload-list", "validate_distill_review", {"payload": [1]}),
                ("not-a-review", "validate_distill_review", {"payload": {"kind": "report", "report_type": "summary"}}),
                ("unknown-argument", "list_recent", {"limt": 1}),
            ):
                result = await session.call_tool(tool, arguments)
                assert is_error(result), (name, text(result))
                got[name] = text(result)
            assert not is_error(await session.call_tool("check_closure", {}))  # the server lives on
        async with connect(tmp_path, errlog, env={"DS_QUEST_ROOT": str(nowhere)}) as session:
            for tool in TOOLS:
                arguments = {
                    "draft_distill_review": {"run_ids": [run]},
                    "validate_distill_review": {"payload": {"kind": "report", "report_type": "distill_review"}},
                }
                result = await session.call_tool(tool, arguments.get(tool, {}))
                if (
                    tool == "list_knowledge_summaries"
                ):  # recall reads a folder that is no quest yet, as PR #60 (issue 38)
                    assert not is_error(result), text(result)
                    continue
                assert is_error(result) and text(result) == messages["not-a-quest"], (tool, text(result))

    drive(scenario, errlog)
    for name in ("limit", "recall-limit", "kind", "recall-kind"):
        assert got[name] == messages[name]
    assert got["experiment-id"] == (
        f"run_ids[0] is 'main-001', the experiment run_id of {run}, not a run artifact "
        f"id; did you mean {run}? a review lists run artifact ids (run-xxxxxxxx)"
    )
    assert got["typo"].endswith(f"which is not a run of this quest; did you mean {run}?")
    assert got["failed-run"].startswith(
        f"run_ids[1] is '{failed}', a run of this quest that is not completed (status 'failed'"
    )
    assert got["no-ids"].startswith("run_ids must name at least one completed run")
    # issue 25: a wrong argument type is one line naming the argument, not the validator's report with a link
    assert got["not-a-list"] == "run_ids must be a list of run artifact ids (strings, run-xxxxxxxx), not str 'run-1'"
    assert got["limit-text"] == "limit must be an integer from 1 to 200, not str 'many'"
    assert got["tags-text"] == "domain_tags must be a list of tag strings (or null), not list [1, 2]"
    assert got["no-payload"] == "payload is required: a JSON object: the payload artifact.record would take"
    assert got["payload-list"].startswith("payload must be a JSON object")
    assert (
        got["unknown-argument"] == "list_recent takes no argument 'limt'; it takes: kind, limit (did you mean limit?)"
    )
    assert got["not-a-review"].startswith("the payload is no distill review: record one as kind 'report'")
    assert all("\n" not in message and "pydantic" not in message for message in got.values())
    assert all("Traceback" not in message for message in got.values())


def test_the_quest_is_found_at_each_call_from_ds_quest_root_or_quest(make_quest, home, tmp_path) -> None:
    """DeepScientist passes no quest root; a path that is not a quest yet fails that call only."""
    later = home / "quests" / "002"
    errlog = tmp_path / "server.err"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    quest = make_quest()
    run = quest.run(quest.root, "main-001")

    async def scenario() -> None:
        async with connect(elsewhere, errlog, env={"DS_QUEST_ROOT": str(later)}) as session:
            assert "no such file or directory" in text(await session.call_tool("check_closure", {}))
            ExampleQuest(later, "002").create()
            assert payload(await session.call_tool("check_closure", {}))["verdict"] == "passed"
        async with connect(elsewhere, errlog, "--quest", str(quest.root / "artifacts")) as session:
            assert payload(await session.call_tool("check_closure", {}))["pending_run_ids"] == [run]

    drive(scenario, errlog)


def test_the_whole_loop_closes_the_quest_and_lets_the_paper_bundle_through(make_quest, home, tmp_path) -> None:
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")
    main_run = quest.run(
        idea, "main-001", summary="Top-2 routing with a balancing loss matches dense at half the FLOPs"
    )
    quest.checkpoint(idea, "experiment: record main main-001")
    slice_ws = quest.worktree("analysis-a", "analysis/a/camp1-slice-a", "idea/001-a")
    slice_run = quest.run(slice_ws, "camp1:slice-a", run_kind="analysis.slice")
    quest.checkpoint(slice_ws, "experiment: record analysis slice camp1:slice-a")
    older = quest.card("global", "A balancing loss keeps routing stable", tags=["stage:baseline", "topic:routing"])
    assert main(["install", str(quest.root)]) == 0
    paper = quest.worktree("paper", "paper/main-001", "idea/001-a")
    (paper / "paper").mkdir()
    (paper / "paper" / "paper_bundle_manifest.json").write_text('{"package_type": "paper_draft_checkpoint"}\n')
    with pytest.raises(CheckpointRejected):
        quest.checkpoint(paper, "paper: bundle")
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(idea, errlog) as session:  # the runner starts the server in its worktree
            before = payload(await session.call_tool("check_closure", {}))
            assert before["verdict"] == "rejected" and before["pending_run_ids"] == sorted([main_run, slice_run])
            candidates = payload(await session.call_tool("list_distill_candidates", {}))
            ids = [c["run_id"] for c in candidates["candidates"]]
            drafted = payload(await session.call_tool("draft_distill_review", {"run_ids": ids}))
            assert older in [n["card_id"] for n in drafted["neighbours"][main_run]]
            as_drafted = payload(await session.call_tool("validate_distill_review", {"payload": drafted["payload"]}))
            assert not as_drafted["ok"] and as_drafted["covers"] == []  # the placeholder is the agent's to write
            assert {f["rule"] for f in as_drafted["findings"]} == {"review.placeholder", "coverage.pending-run"}

            review = drafted["payload"]  # completed as the skill says: one global lesson per run
            for run in ids:
                card = quest.card(
                    "global",
                    f"What {run} taught",
                    claim=f"A falsifiable lesson of {run}.",
                    lineage=[{"quest": "001", "run": run}],
                    tags=["stage:baseline", "topic:routing"],
                    body=f"Context: {run}.\n\nObservation: what it showed.",
                )
                review["cards_written"].append(
                    {"card_id": card, "scope": "global", "action": "new", "target_run_id": run}
                )
            review["neighbor_decisions"].append(
                {
                    "candidate_card_id": older,
                    "decision": "neighbor_but_separate",
                    "target_run_id": main_run,
                    "reason": "a cost claim, not a stability one",
                }
            )
            review["summary"] = "two runs distilled into two global lessons"
            checked = payload(await session.call_tool("validate_distill_review", {"payload": review}))
            assert (checked["ok"], checked["covers"], checked["pending_after"]) == (True, ids, []), checked
            recorded = quest.artifact_record(idea, review)  # DeepScientist main's validator, record file, index line
            assert recorded["ok"], recorded
            assert (idea / "artifacts" / "reports" / f"{recorded['artifact_id']}.json").is_file()
            index_line = json.loads((idea / "artifacts" / "_index.jsonl").read_text().splitlines()[-1])
            assert (index_line["artifact_id"], index_line["kind"]) == (recorded["artifact_id"], "report")
            quest.checkpoint(idea, f"artifact: report {recorded['artifact_id']}")

            after = payload(await session.call_tool("check_closure", {}))
            assert (after["ok"], after["verdict"], after["pending_run_ids"], after["next_call"]) == (
                True,
                "passed",
                [],
                None,
            )
            assert [f for f in after["findings"] if f["severity"] == "error"] == []
            assert payload(await session.call_tool("list_distill_candidates", {}))["candidates"] == []

    drive(scenario, errlog)
    quest.checkpoint(paper, "paper: bundle")  # a real git commit through the installed hook
    assert git(paper, "log", "-1", "--format=%s").stdout.strip() == "paper: bundle"


def test_a_session_calling_every_tool_writes_nothing(make_quest, home, tmp_path) -> None:
    quest = make_quest()
    recall_priors_on(quest)
    idea = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(idea, "main-001")
    quest.checkpoint(idea, "record")
    quest.card("global", "A lesson", tags=["stage:baseline"])
    quest.card("quest", "A local note", tags=["topic:a"])
    git(quest.root, "add", "-A")  # a staged index, as a checkpoint in progress leaves it
    before = snapshot(home)
    assert "quests/001/.git/index" in before and any(name.startswith("memory/knowledge/") for name in before)
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(idea, errlog) as session:
            for tool, arguments in (
                ("list_distill_candidates", {}),
                ("list_knowledge_summaries", {}),
                ("list_knowledge_summaries", {"domain_tags": ["topic:a"], "kind": "knowledge", "limit": 3}),
                ("list_recent", {}),
                ("check_closure", {}),
                ("draft_distill_review", {"run_ids": [run]}),
                ("draft_distill_review", {"run_ids": ["main-001"]}),
                ("list_recent", {"limit": 0}),
                (
                    "validate_distill_review",
                    {
                        "payload": {
                            "kind": "report",
                            "report_type": "distill_review",
                            "artifact_id": "report-0000beef",
                            "reviewed_run_ids": [run],
                            "cards_written": [],
                            "reason_if_empty": "noise",
                        }
                    },
                ),
            ):
                await session.call_tool(tool, arguments)

    drive(scenario, errlog)
    assert snapshot(home) == before


def test_without_the_extra_ds_gate_mcp_exits_2_with_one_line(tmp_path) -> None:
    hide = "import sys; sys.modules['mcp'] = None; from ds_gate.cli.main import main; sys.exit(main(['mcp']))"
    done = subprocess.run(
        [sys.executable, "-c", hide], cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "ds-gate mcp needs the mcp package: pip install 'ds-gate[mcp]'\n"


# ---------------------------------------------------------------- issue 25.3


def test_the_server_says_its_version_and_the_schema_of_every_result(make_quest, home, tmp_path) -> None:
    """Every tool declares an ``outputSchema`` and every result, an error's aside, fits it."""
    import jsonschema

    from ds_gate.kernel.version import __version__

    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.card("global", "A lesson", tags=["stage:baseline"])
    errlog = tmp_path / "server.err"
    calls = {
        "list_distill_candidates": {},
        "list_knowledge_summaries": {},
        "list_recent": {},
        "check_closure": {},
        "draft_distill_review": {"run_ids": [run]},
        "validate_distill_review": {
            "payload": {"kind": "report", "report_type": "distill_review", "reviewed_run_ids": ["main-001"]}
        },
    }
    assert set(calls) == set(TOOLS)
    cli_version = subprocess.run(
        [sys.executable, "-m", "ds_gate", "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()

    async def scenario() -> None:
        server_env = {name: os.environ[name] for name in PASSED_ON if name in os.environ}
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "ds_gate", "mcp"], cwd=str(quest.root), env=server_env
        )
        with errlog.open("a") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
                started = await session.initialize()
                info = _field(started, "server_info", "serverInfo")
                assert (info.name, info.version) == ("ds_gate", __version__)
                assert info.version and f"ds-gate {info.version}" == cli_version  # issue 27: it said ''
                listed = {
                    tool.name: _field(tool, "output_schema", "outputSchema")
                    for tool in (await session.list_tools()).tools
                }
                for tool, arguments in calls.items():
                    schema = listed[tool]
                    assert schema and schema["type"] == "object" and "schema_version" in schema["required"], tool
                    jsonschema.validate(payload(await session.call_tool(tool, arguments)), schema)

    drive(scenario, errlog)


def test_the_candidates_say_when_the_gate_is_off(make_quest, tmp_path) -> None:
    quest = make_quest(experience_distill=None)
    run = quest.run(quest.root, "main-001")
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(quest.root, errlog) as session:
            found = payload(await session.call_tool("list_distill_candidates", {}))
            assert [c["run_id"] for c in found["candidates"]] == [run]
            assert found["experience_distill_on"] is False and found["experience_distill"] is False
            assert any(
                "experience_distill is off" in note and "nothing requires their review" in note
                for note in found["notes"]
            )
            quest.write_quest_yaml(startup_contract={"experience_distill": "on"})
            found = payload(await session.call_tool("list_distill_candidates", {}))
            assert found["experience_distill_on"] is True and found["notes"] == []

    drive(scenario, errlog)


def test_empty_domain_tags_recall_the_newest_cards_when_recall_priors_is_off(make_quest, home, tmp_path) -> None:
    """The RFC: "Empty domain_tags=[] falls back to recent summaries"."""
    quest = make_quest()
    older = quest.card("global", "An older lesson", tags=["topic:a"])
    newer = quest.card("quest", "A newer note", tags=["topic:b"])
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(quest.root, errlog) as session:
            for arguments in ({}, {"domain_tags": []}, {"domain_tags": None}):
                recalled = payload(await session.call_tool("list_knowledge_summaries", arguments))
                assert [r["card_id"] for r in recalled["results"]] == [newer, older], arguments
                assert recalled["domain_tags"] == [] and "recall_priors is off" in recalled["notes"][0]
            limited = payload(await session.call_tool("list_knowledge_summaries", {"limit": 1}))
            assert [r["card_id"] for r in limited["results"]] == [newer]
            assert limited["left_out"]["over_limit"] == 1

    drive(scenario, errlog)


def test_recent_lists_indexed_records_not_the_graph_deepscientist_writes_beside_them(
    make_quest, tmp_path, gate_json
) -> None:
    """PR #60's ``list_recent`` reads index lines; ``QuestService.create`` (through
    ``export_git_graph``) writes ``artifacts/graphs/git-graph.json``, indexed by nothing and
    with no timestamp: it is no recent artifact."""
    quest = make_quest()
    graphs = quest.root / "artifacts" / "graphs"
    graphs.mkdir(parents=True)
    (graphs / "git-graph.json").write_text(json.dumps({"kind": "graph", "nodes": [], "edges": []}))
    run = quest.run(quest.root, "main-001")
    unindexed = quest.record(
        quest.root, "decision", {"action": "continue", "verdict": "good", "reason": "r"}, index=False
    )["artifact_id"]
    errlog = tmp_path / "server.err"
    seen: dict[str, list[str]] = {}

    async def scenario() -> None:
        async with connect(quest.root, errlog) as session:
            seen["mcp"] = [r["artifact_id"] for r in payload(await session.call_tool("list_recent", {}))["results"]]

    drive(scenario, errlog)
    code, out = gate_json("recent", str(quest.root))
    assert code == 0 and seen["mcp"] == [r["artifact_id"] for r in out["results"]] == [run]
    assert unindexed not in seen["mcp"] and "git-graph" not in seen["mcp"]


def test_recall_over_mcp_takes_a_text_query_and_a_budget_and_returns_the_lessons_content(
    make_quest, home, tmp_path
) -> None:
    """Issue 29: the agent reaches what the CLI's --query does, with each card's summary, within max_chars."""
    quest = make_quest()
    recall_priors_on(quest, domains=["sparse-routing"])
    target = quest.card(
        "global",
        "Experts collapse without the balancing loss",
        tags=["topic:moe"],
        claim="Two experts took all tokens when the auxiliary load-balancing loss was off.",
        body="Context: MoE pretraining.\n\nObservation: the router sent 90% of tokens to two experts.",
    )
    for n in range(8):
        quest.card("global", f"Unrelated stage lesson {n}", tags=["stage:baseline"], claim=f"Lesson {n}.")
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(quest.root, errlog) as session:
            found = payload(
                await session.call_tool(
                    "list_knowledge_summaries",
                    {
                        "domain_tags": ["stage:baseline"],
                        "query": "router collapse balancing loss",
                        "limit": 3,
                        "max_chars": 90,
                    },
                )
            )
            assert found["rank_by"] == "text" and found["results"][0]["card_id"] == target
            assert found["results"][0]["summary"].startswith("Two experts took all tokens")
            assert sum(len(r["summary"]) for r in found["results"]) <= 90
            assert found["request"]["query"] == "router collapse balancing loss" and found["request"]["max_chars"] == 90
            unknown = payload(await session.call_tool("list_knowledge_summaries", {"domain_tags": ["topic:moes"]}))
            assert [r["card_id"] for r in unknown["results"]] == [target]  # the plural matches
            bad = await session.call_tool("list_knowledge_summaries", {"max_chars": "lots"})
            assert is_error(bad) and "max_chars must be an integer from 0 to 200000" in text(bad)

    drive(scenario, errlog)
