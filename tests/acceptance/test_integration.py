"""Issue 25.2: ds-gate's DeepScientist integration, end to end.

A real virtual environment stands for DeepScientist's runtime (``<home>/runtime/python-env``)
with a stand-in ``deepscientist`` package installed into it by pip (``tests/standin``: main's
service and server shapes, written from the reference, not copied); the SDK comes from this
interpreter's site-packages through a path entry, ds-gate does not (``import ds_gate.engine``
fails there: the integration must work without it). Then the real ``ds-gate install
--deepscientist --home``, a real git quest, and the real MCP SDK client talking to
``python -m deepscientist.mcp.server --namespace artifact`` started from that environment, as
every runner starts it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from ds_gate.agent.skill import deepscientist_approvals
from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

STANDIN = Path(__file__).resolve().parents[1] / "standin"
PASSED_ON = ("HOME", "PATH", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "DS_GATE_CACHE_DIR", "XDG_CACHE_HOME")
APPROVAL = {
    "kind": "decision_request",
    "reply_mode": "blocking",
    "message": "May I complete the quest?",
    "reply_schema": {"decision_type": "quest_completion_approval"},
}


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """One DeepScientist home with its runtime environment per module (the machine is small)."""
    home = tmp_path_factory.mktemp("ds-home")
    env = home / "runtime" / "python-env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "_sdk.pth").write_text(str(_without_ds_gate(home / "sdk")) + "\n")  # the mcp SDK, PyYAML: not ds-gate
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            str(STANDIN),
        ],
        check=True,
        capture_output=True,
    )
    yield {"home": home, "env": env, "python": python, "site": site}


def _without_ds_gate(folder: Path) -> Path:
    """This interpreter's packages (the mcp SDK and what it needs), linked one by one into
    ``folder``, except ds-gate itself: DeepScientist's environment must not import ds-gate,
    whether this one installed it editable (a ``.pth``, which a ``.pth``-added folder never
    runs) or as a plain package (a ``ds_gate/`` folder CI's ``pip install .`` puts beside mcp)."""
    folder.mkdir()
    for entry in Path(sysconfig.get_path("purelib")).iterdir():
        if not entry.name.lower().replace("-", "_").startswith(("ds_gate", "__editable__")):
            (folder / entry.name).symlink_to(entry)
    return folder


def quest(home: Path, name: str) -> tuple[ExampleQuest, Path, str]:
    q = ExampleQuest(home / "quests" / name, name, home=home).create()
    run = q.run(q.root, "main-001")
    q.checkpoint(q.root, "experiment: record main main-001")
    return q, q.root, run


def install(home: Path, *extra: str) -> None:
    assert main(["install", "--deepscientist", "--home", str(home), *extra]) == 0


def undo(home: Path) -> None:
    assert main(["install", "--deepscientist", "--undo", "--home", str(home)]) == 0


def call(
    rt: dict[str, Path],
    root: Path,
    calls: list[tuple[str, dict[str, Any]]],
    namespace: str = "artifact",
    errlog: Path | None = None,
) -> list[Any]:
    """Start the server as a runner does and make ``calls`` in order; the tool list comes first."""
    env = {name: os.environ[name] for name in PASSED_ON if name in os.environ}
    env |= {"DEEPSCIENTIST_HOME": str(rt["home"]), "DS_QUEST_ROOT": str(root), "DS_QUEST_ID": root.name}
    params = StdioServerParameters(
        command=str(rt["python"]),
        args=["-m", "deepscientist.mcp.server", "--namespace", namespace],
        cwd=str(root),
        env=env,
    )
    out: list[Any] = []
    log = errlog or root.parent / f"{root.name}-{namespace}.log"

    async def scenario() -> None:
        with log.open("a") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                out.append(sorted(tool.name for tool in (await session.list_tools()).tools))
                for name, args in calls:
                    result = await session.call_tool(name, args)
                    structured = getattr(result, "structured_content", None) or getattr(
                        result, "structuredContent", None
                    )
                    out.append(structured.get("result", structured) if isinstance(structured, dict) else result)

    anyio.run(scenario)
    assert "Traceback" not in log.read_text(), log.read_text()
    return out


def review(run_ids: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "kind": "report",
        "report_type": "distill_review",
        "summary": "distilled",
        "reviewed_run_ids": run_ids,
        "cards_written": [],
        "neighbor_decisions": [],
        "reason_if_empty": "a smoke test: nothing reusable",
        "suppress_if_semantically_equivalent": False,
        **extra,
    }


def reply(root: Path, interaction_id: str) -> None:
    """The user approves (the stand-in reads the reply from the quest's .ds folder)."""
    path = root / ".ds" / "replies" / f"{interaction_id}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("approve")


def tree_hash(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def test_an_approval_spelt_with_spaces_is_refused_as_main_reads_it(runtime) -> None:
    """Issue 35: main strips ``decision_type``, so `` quest_completion_approval `` asks the user
    for completion; the integration reads it the same way and refuses it while a run is pending."""
    _, root, run = quest(runtime["home"], "q-spaced")
    install(runtime["home"])
    try:
        spaced = {**APPROVAL, "reply_schema": {"decision_type": " quest_completion_approval "}}
        _, asked = call(runtime, root, [("interact", spaced)])
        assert asked["ok"] is False and asked["status"] == "distill_review_required" and run in asked["message"], asked
        assert not (root / ".ds" / "interaction_state.json").exists()  # no human was asked
    finally:
        undo(runtime["home"])


def test_complete_quest_is_refused_with_the_pending_ids_until_a_valid_review_is_recorded(runtime) -> None:
    q, root, run = quest(runtime["home"], "q-complete")
    install(runtime["home"])
    try:
        before = (root / "quest.yaml").read_bytes()
        untouched = tree_hash(root)
        tools, asked, completed, candidates, bad_check, bad_record, rfc_record = call(
            runtime,
            root,
            [
                ("interact", APPROVAL),
                ("complete_quest", {"summary": "done"}),
                ("list_distill_candidates", {}),
                ("validate_distill_review", {"payload": review(["main-001"])}),
                ("record", {"payload": review(["main-001"])}),
                (
                    "record",
                    {
                        "payload": {
                            **review([run]),
                            "kind": "decision",
                            "action": "distill_review",
                            "verdict": "ok",
                            "reason": "r",
                        }
                    },
                ),
            ],
        )
        assert [c["run_id"] for c in candidates["candidates"]] == [run] and candidates["schema_version"] == 1
        assert {"list_distill_candidates", "list_recent", "validate_distill_review", "complete_quest"} <= set(tools)
        for refused in (asked, completed):
            assert refused["ok"] is False and refused["status"] == "distill_review_required", refused
            assert refused["pending_run_ids"] == [run] and run in refused["message"]
            assert "report_type" in refused["next_call"] and run in refused["next_call"]
        assert (root / "quest.yaml").read_bytes() == before  # nothing marked
        assert not (root / ".ds" / "interaction_state.json").exists()  # no human was asked
        assert not (root / "artifacts" / "decisions").exists() and not (root / "artifacts" / "approvals").exists()
        # an experiment id where a run artifact id belongs: refused before it reaches the quest
        assert bad_check["valid"] is False and any(run in f["message"] for f in bad_check["findings"])
        assert bad_record["ok"] is False and bad_record["status"] == "distill_review_invalid", bad_record
        # the RFC's encoding of a valid review passes ds-gate; main's own refusal comes back unchanged
        assert rfc_record == {"ok": False, "errors": ["Unknown decision action: distill_review"], "warnings": []}
        assert not (root / "artifacts" / "reports").exists()
        assert tree_hash(root) == untouched  # refused or read-only, every one: the quest (.git too) is as it was

        _, good_check, recorded, asked = call(
            runtime,
            root,
            [
                ("validate_distill_review", {"payload": review([run])}),
                ("record", {"payload": review([run])}),
                ("interact", APPROVAL),
            ],
        )
        assert good_check["ok"] is True and good_check["closure_ok_after"] is True, good_check
        assert recorded["ok"] is True and recorded["checkpoint"]["committed"] is True, recorded
        assert asked["ok"] is True
        reply(root, asked["interaction_id"])
        _, completed = call(runtime, root, [("complete_quest", {"summary": "done"})])
        assert completed["ok"] is True and completed["status"] == "completed", completed  # main's own answer
        assert yaml.safe_load((root / "quest.yaml").read_text())["status"] == "completed"
    finally:
        undo(runtime["home"])


def test_submit_paper_bundle_is_refused_before_its_manifest_is_written(runtime) -> None:
    q, root, run = quest(runtime["home"], "q-paper")
    install(runtime["home"])
    try:
        bundle = {"title": "T", "summary": "s", "outline_path": "paper/outline.json"}
        _, refused, recorded, submitted = call(
            runtime,
            root,
            [("submit_paper_bundle", bundle), ("record", {"payload": review([run])}), ("submit_paper_bundle", bundle)],
        )
        assert (
            refused["ok"] is False
            and refused["status"] == "distill_review_required"
            and refused["pending_run_ids"] == [run]
        )
        assert recorded["ok"] is True
        assert submitted["ok"] is True and (root / "paper" / "paper_bundle_manifest.json").is_file(), submitted
        # main's own refusals still come through unchanged once the runs are covered
        _, missing = call(runtime, root, [("submit_paper_bundle", {"title": "T"})])
        assert missing["ok"] is False and "outline" in missing["message"]
    finally:
        undo(runtime["home"])


def test_without_the_integration_main_completes_whatever_is_pending(runtime) -> None:
    """The failure the integration closes, on the same stand-in: main answers completed."""
    q, root, run = quest(runtime["home"], "q-plain")
    tools, asked = call(runtime, root, [("interact", APPROVAL)])
    assert "list_distill_candidates" not in tools and asked["ok"] is True
    reply(root, asked["interaction_id"])
    _, completed = call(runtime, root, [("complete_quest", {})])
    assert completed["status"] == "completed"


def test_a_trusted_baseline_reaches_the_refusal_and_the_candidates(runtime, tmp_path, monkeypatch) -> None:
    """Issue 37.3: the trusted file pinned at install names the commit before a new run; main's own
    servers refuse completion for the new run alone and count the baselined one."""
    q, root, old = quest(runtime["home"], "q-baseline")
    before = q.git(root, "rev-parse", "HEAD")
    new = q.run(root, "main-002")
    q.checkpoint(root, "experiment: record main main-002")
    config = tmp_path / "trusted" / "config.yaml"
    config.parent.mkdir()
    config.write_text(f"baselines:\n  - quest: {root}\n    commit: {before}\n    reason: finished before the gate\n")
    monkeypatch.setenv("DS_GATE_CONFIG", str(config))
    install(runtime["home"])  # pins the file: the runner's environment does not carry DS_GATE_CONFIG
    try:
        _, completed, candidates = call(
            runtime, root, [("complete_quest", {"summary": "done"}), ("list_distill_candidates", {})]
        )
        assert completed["ok"] is False and completed["status"] == "distill_review_required", completed
        assert completed["pending_run_ids"] == [new] and completed["baselined_count"] == 1
        assert old not in completed["message"] and "1 earlier completed run(s) are baselined" in completed["message"]
        assert [c["run_id"] for c in candidates["candidates"]] == [new] and candidates["baselined_count"] == 1
    finally:
        undo(runtime["home"])


def _swap(path: Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return text


def test_an_unknown_version_or_shape_wraps_nothing_and_doctor_says_so(runtime, capsys) -> None:
    q, root, run = quest(runtime["home"], "q-unknown")
    install(runtime["home"])
    metadata = runtime["site"] / "deepscientist-1.6.0.dist-info" / "METADATA"
    original = _swap(metadata, "Version: 1.6.0", "Version: 1.7.0")
    try:
        log = root.parent / "unknown.log"
        tools, refused = call(runtime, root, [("complete_quest", {})], errlog=log)
        assert "list_distill_candidates" not in tools
        assert refused["status"] == "approval_required"  # main's answer: nothing wrapped
        lines = [line for line in log.read_text().splitlines() if line.startswith("ds-gate")]
        assert len(lines) == 1 and "DeepScientist 1.7.0 is not a version this ds-gate knows" in lines[0], lines
        main(["doctor", str(root), "--home", str(runtime["home"])])
        out = " ".join(capsys.readouterr().out.split())  # doctor wraps at the width: the words, not the line breaks
        assert "deepscientist integration: installed in" in out and "wraps nothing" in out and "1.7.0" in out
    finally:
        metadata.write_text(original)
    service = runtime["site"] / "deepscientist" / "artifact" / "service.py"
    original = _swap(
        service,
        'def complete_quest(self, quest_root: Path, *, summary: str = "") -> dict[str, Any]:',
        'def complete_quest(self, quest_root: Path, *, summary: str = "", force: bool = False) -> dict[str, Any]:',
    )
    try:
        tools, refused = call(runtime, root, [("complete_quest", {})], errlog=log)
        assert refused["status"] == "approval_required" and "list_distill_candidates" not in tools
        assert "ArtifactService.complete_quest has parameters (self, quest_root, summary, force)" in log.read_text()
    finally:
        service.write_text(original)
        undo(runtime["home"])
    capsys.readouterr()
    main(["doctor", str(root), "--home", str(runtime["home"])])
    assert "deepscientist integration: not installed" in capsys.readouterr().out


def test_doctor_reports_installed_loaded_and_matching(runtime, capsys) -> None:
    q, root, _ = quest(runtime["home"], "q-doctor")
    install(runtime["home"])
    capsys.readouterr()
    try:
        main(["doctor", str(root), "--home", str(runtime["home"]), "--format", "json"])
        [check] = [c for c in json.loads(capsys.readouterr().out)["checks"] if c["name"] == "deepscientist integration"]
        assert check["status"] == "ok" and "installed, loaded and matching DeepScientist 1.6.0" in check["message"]
        for name in (
            "ds_gate_deepscientist.pth",
            "_ds_gate_ds_boot.py",
            "_ds_gate_ds_wrap.py",
            "_ds_gate_ds_service.py",
            "_ds_gate_ds_tools.py",
            "_ds_gate_ds_toolspec.py",
            "_ds_gate_ds.json",
        ):
            (runtime["site"] / name).unlink()  # as when DeepScientist rebuilds its environment
        main(["doctor", str(root), "--home", str(runtime["home"]), "--format", "json"])
        [check] = [c for c in json.loads(capsys.readouterr().out)["checks"] if c["name"] == "deepscientist integration"]
        assert check["status"] == "warn" and "its files are gone" in check["message"]
        assert check["fix"] == f"ds-gate install --deepscientist --home {runtime['home']}"
    finally:
        undo(runtime["home"])
    capsys.readouterr()
    main(["doctor", str(root), "--home", str(runtime["home"]), "--format", "json"])
    [check] = [c for c in json.loads(capsys.readouterr().out)["checks"] if c["name"] == "deepscientist integration"]
    assert check["status"] == "ok" and check["message"].startswith("not installed")


def test_an_error_inside_ds_gate_is_a_refusal_and_the_server_lives_on(runtime) -> None:
    q, root, run = quest(runtime["home"], "q-error")
    install(runtime["home"])
    config = runtime["site"] / "_ds_gate_ds.json"
    try:
        yaml_before = (root / "quest.yaml").read_bytes()
        (root / "quest.yaml").write_text("startup_contract: [unclosed\n")  # ds-gate cannot tell whether the gate is on
        _, refused, still = call(runtime, root, [("complete_quest", {}), ("record", {"payload": {"kind": "progress"}})])
        assert refused["ok"] is False and refused["status"] == "ds_gate_error" and "quest.yaml" in refused["message"]
        assert still["ok"] is True  # a record that is no review never asks ds-gate
        (root / "quest.yaml").write_bytes(yaml_before)
        settings = json.loads(config.read_text())
        config.write_text(json.dumps({**settings, "python": "/bin/false"}))  # ds-gate's side dies without an answer
        _, crashed, review_refused, tool_refused = call(
            runtime, root, [("complete_quest", {}), ("record", {"payload": review([run])}), ("list_recent", {})]
        )
        for answer in (crashed, review_refused, tool_refused):
            assert answer["ok"] is False and answer["status"] == "ds_gate_error", answer
            assert "gave no answer" in answer["message"] and "ds-gate doctor" in answer["message"]
        assert not (root / "artifacts" / "reports").exists()  # fail closed: the review was not recorded
    finally:
        undo(runtime["home"])


def test_memory_write_defaults_to_global_only_with_its_switch(runtime) -> None:
    q, root, _ = quest(runtime["home"], "q-memory")
    card = {"kind": "knowledge", "title": "A lesson", "body": "Context: x"}
    install(runtime["home"])
    try:
        tools, written, recalled, queried, refused = call(
            runtime,
            root,
            [
                ("write", card),
                ("list_knowledge_summaries", {"domain_tags": ["topic:x"]}),
                ("list_knowledge_summaries", {"query": "lessons", "max_chars": 40, "order": "relevance"}),
                ("list_knowledge_summaries", {"query": 7}),
            ],
            namespace="memory",
        )
        assert "list_knowledge_summaries" in tools and written["scope"] == "quest"
        assert recalled["schema_version"] == 1 and recalled["domain_tags"] == ["topic:x"]
        # the text query, the budget and the order reach ds-gate through main's own memory server
        assert queried["request"] == {
            "domain_tags": [],
            "kind": None,
            "limit": 20,
            "query": "lessons",
            "max_chars": 40,
            "order": "relevance",
        }, queried
        assert queried["rank_by"] == "text" and [r["title"] for r in queried["results"]] == ["A lesson"]
        assert sum(len(r["summary"]) for r in queried["results"]) <= 40
        # a wrong type is refused in main's server by the table's schema, before ds-gate is asked: a tool error
        assert getattr(refused, "is_error", getattr(refused, "isError", None)) is True  # both SDK lines' spelling
        assert "query must be a string (or null), not int 7" in refused.content[0].text, refused.content[0].text
        install(runtime["home"], "--memory-global-scope")
        _, written = call(runtime, root, [("write", card)], namespace="memory")
        assert written["scope"] == "global" and Path(written["path"]).is_relative_to(runtime["home"] / "memory")
    finally:
        undo(runtime["home"])


def test_the_configured_jsonl_reaches_mains_memory_server_with_its_problems(
    runtime, tmp_path, monkeypatch, capsys
) -> None:
    """Issue 37.4: the trusted configuration pinned at install names a JSONL file; main's own
    ``memory.list_knowledge_summaries`` searches it and says its bad line. The install also
    prints the Codex approvals of the tools it adds to main's servers."""
    _, root, _ = quest(runtime["home"], "q-jsonl")
    source = tmp_path / "cfg" / "findings.jsonl"
    source.parent.mkdir()
    source.write_text(json.dumps({"type": "pitfall", "id": "p-shards", "issue": "uneven shards hang"}) + "\n[]\n")
    (source.parent / "config.yaml").write_text("recall_jsonl: [findings.jsonl]\n")
    monkeypatch.setenv("DS_GATE_CONFIG", str(source.parent / "config.yaml"))  # the user's shell: the install pins it
    capsys.readouterr()
    assert main(["install", "--deepscientist", "--home", str(runtime["home"]), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["mcp_servers"]["codex"] == deepscientist_approvals()
    monkeypatch.delenv("DS_GATE_CONFIG")  # the runner's environment has no such variable
    try:
        _, found = call(runtime, root, [("list_knowledge_summaries", {"query": "uneven shards"})], namespace="memory")
        assert [(r["card_id"], r["scope"]) for r in found["results"]] == [("p-shards", "jsonl")]
        assert found["source_problems"] == [
            {"path": str(source), "line": 2, "why": "not a JSON object (an array); skipped"}
        ]
        assert f"{source}:2: not a JSON object (an array); skipped" in found["notes"]
    finally:
        undo(runtime["home"])


def test_undo_restores_the_environment_byte_for_byte(runtime) -> None:
    before = tree_hash(runtime["env"])
    install(runtime["home"], "--memory-global-scope")
    install(runtime["home"])  # a second install keeps what the first found
    probe = subprocess.run(
        [
            str(runtime["python"]),
            "-c",
            "import deepscientist.mcp.server, _ds_gate_ds_boot as b; import json; print(json.dumps(b.status()))",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=runtime["home"],
    )
    assert json.loads(probe.stdout)["state"] == "wrapped"  # bytecode of ds-gate's modules now exists too
    missing = subprocess.run(
        [str(runtime["python"]), "-c", "import ds_gate.engine"], capture_output=True, text=True, cwd=runtime["home"]
    )
    assert missing.returncode != 0  # the integration runs without ds-gate in that environment
    assert tree_hash(runtime["env"]) != before
    undo(runtime["home"])
    assert tree_hash(runtime["env"]) == before
    undo(runtime["home"])  # undoing twice changes nothing
    assert tree_hash(runtime["env"]) == before


def test_a_pth_file_of_that_name_that_is_not_ds_gates_is_never_replaced_or_removed(runtime, capsys) -> None:
    foreign = runtime["site"] / "ds_gate_deepscientist.pth"
    foreign.write_text("import something_else\n")
    try:
        assert main(["install", "--deepscientist", "--home", str(runtime["home"])]) == 2
        assert main(["install", "--deepscientist", "--undo", "--home", str(runtime["home"])]) == 2
        assert "is not ds-gate's" in capsys.readouterr().err
        assert foreign.read_text() == "import something_else\n"
        assert not (runtime["site"] / "_ds_gate_ds_boot.py").exists()
    finally:
        foreign.unlink()
