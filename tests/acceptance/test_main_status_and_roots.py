"""Issue 35, root C (breaks C05 and C06): what DeepScientist main reads a quest's completion and
its workspaces from, read by every surface.

C05: main's snapshot reads the quest's status from ``.ds/runtime_state.json`` (``display_status``,
else ``status``) before ``quest.yaml``, and ``mark_completed`` writes it there. A checkpoint
writing ``"status": "completed"`` there completed the quest for main while both hooks let it
through with a run pending. C06: ``.ds/research_state.json``'s ``current_workspace_root`` /
``research_head_worktree_root`` (and the parents main also reads) name the workspace main
records into and writes the paper bundle into. A plain folder ``ws/`` named there held a run
closure never read, and ``ws/paper/paper_bundle_manifest.json`` finalized unseen. A root that
leads out of the quest, through a link or from a relative path is never followed: closure,
finalization and pre-push stop (exit 2); an ordinary checkpoint is never refused for it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.engine.commit import commit_check
from ds_gate.engine.gate import load_quest
from ds_gate.engine.push import push_check
from ds_gate.kernel.checkpoint import checkpoint_passes
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.push import push_passes

from helpers import add_remote, commit, git

RUNTIME = ".ds/runtime_state.json"
RESEARCH = ".ds/research_state.json"
NESTED = "ws/paper/paper_bundle_manifest.json"
# main's keys for a workspace root (quest/service.py active_workspace_root, artifact/service.py _baseline_workspace_roots)
ROOT_KEYS = (
    "current_workspace_root",
    "research_head_worktree_root",
    "analysis_parent_worktree_root",
    "paper_parent_worktree_root",
)
# runtime_state.json as main writes it (quest/service.py update_runtime_state), before completion
ACTIVE = {
    "quest_id": "001",
    "status": "active",
    "display_status": "active",
    "active_run_id": None,
    "stop_reason": None,
    "last_transition_at": "2026-11-27T11:44:35+00:00",
    "last_recovery_summary": None,
    "retry_state": None,
}
# what main's mark_completed writes, and other spellings main's snapshot reads as completed
COMPLETIONS = {
    "mark_completed": {
        "status": "completed",
        "display_status": "completed",
        "stop_reason": "completed_by_user_approval",
    },
    "display_status only": {"display_status": "completed"},
    "status only": {"status": "completed"},
    "padded, in capitals": {"display_status": " Completed\n"},
}


def tip(cwd: Path, ref: str = "HEAD") -> str:
    return git(cwd, "rev-parse", ref).stdout.strip()


def write_runtime(quest: ExampleQuest, text: str) -> None:
    (quest.root / RUNTIME).write_text(text)


def runtime(**changes: object) -> str:
    return json.dumps({**ACTIVE, **changes}, indent=2) + "\n"


@pytest.fixture
def running(one_run_quest: ExampleQuest) -> ExampleQuest:
    """Quest 001, one completed run pending, ``runtime_state.json`` committed as main keeps it."""
    write_runtime(one_run_quest, runtime())
    git(one_run_quest.root, "add", "-A")
    git(one_run_quest.root, "commit", "-q", "--no-verify", "-m", "runtime state")
    return one_run_quest


def pending(report: object) -> set[str]:
    return {f.subject for f in getattr(report, "findings", []) if f.rule == "coverage.pending-run"}


# ---------------------------------------------------------------- C05: runtime_state.json


@pytest.mark.parametrize("how", [*COMPLETIONS, "an escape"])
def test_a_runtime_state_that_completes_finalizes_the_commit(running, monkeypatch, how) -> None:
    text = runtime(**COMPLETIONS[how]) if how != "an escape" else runtime().replace('"active"', '"\\u0063ompleted"', 1)
    write_runtime(running, text)
    git(running.root, "add", "-A")
    monkeypatch.chdir(running.root)
    assert not checkpoint_passes(".")  # the fast path leaves it to the full path
    report = commit_check(".", require=True)
    assert report is not None and not report.ok and pending(report), report
    assert any(r.startswith(RUNTIME) for r in report.finalization_reasons or []), report.finalization_reasons


def test_a_runtime_state_completed_already_finalizes_nothing_again(running, monkeypatch) -> None:
    """main keeps writing the file after ``mark_completed``: only the change to completed counts."""
    write_runtime(running, runtime(**COMPLETIONS["mark_completed"]))
    git(running.root, "add", "-A")
    git(running.root, "commit", "-q", "--no-verify", "-m", "completed")
    write_runtime(running, runtime(**COMPLETIONS["mark_completed"], last_transition_at="2026-11-28T00:00:00+00:00"))
    git(running.root, "add", "-A")
    monkeypatch.chdir(running.root)
    assert checkpoint_passes(".")
    report = commit_check(".", require=True)
    assert report is None or (report.ok and not report.finalization_reasons), report


@pytest.mark.parametrize(
    "state",
    [
        {"status": "running", "display_status": "running", "active_run_id": "run-1"},
        {"status": "waiting_for_user", "display_status": "waiting_for_user"},
        {"status": "active", "display_status": "retrying", "last_recovery_summary": "main-001 completed; resumed"},
        {"status": "stopped", "display_status": "stopped", "stop_reason": "user_stop"},
    ],
    ids=["running", "waiting", "a summary naming completed", "stopped"],
)
def test_ordinary_runtime_states_pass_the_fast_path(running, monkeypatch, state) -> None:
    write_runtime(running, runtime(**state))
    git(running.root, "add", "-A")
    monkeypatch.chdir(running.root)
    assert checkpoint_passes(".")


def test_a_runtime_state_completed_through_a_link_finalizes(running, monkeypatch) -> None:
    """main reads the file through a link inside the quest: the file it leads to counts."""
    os.rename(running.root / RUNTIME, running.root / ".ds" / "state.json")
    os.symlink("state.json", running.root / RUNTIME)
    git(running.root, "add", "-A")
    git(running.root, "commit", "-q", "--no-verify", "-m", "runtime state behind a link")
    (running.root / ".ds" / "state.json").write_text(runtime(**COMPLETIONS["mark_completed"]))
    git(running.root, "add", "-A")
    monkeypatch.chdir(running.root)
    assert not checkpoint_passes(".")
    report = commit_check(".", require=True)
    assert report is not None and not report.ok and pending(report), report


def test_a_runtime_state_link_staged_with_its_completed_target_finalizes(running, monkeypatch) -> None:
    """The link and the file it leads to in one commit: the fast path reads the link's blob (a
    path), so it leaves the commit to the full path, which reads the file."""
    (running.root / ".ds" / "state.json").write_text(runtime(**COMPLETIONS["mark_completed"]))
    (running.root / RUNTIME).unlink()
    os.symlink("state.json", running.root / RUNTIME)
    git(running.root, "add", "-A")
    monkeypatch.chdir(running.root)
    assert not checkpoint_passes(".")
    report = commit_check(".", require=True)
    assert report is not None and not report.ok and pending(report), report


def test_a_runtime_state_linked_out_of_the_quest_stops_closure(running, tmp_path, capsys) -> None:
    """main follows the link; ds-gate never does, so what main reads as the quest's status is unseen."""
    (tmp_path / "far.json").write_text(runtime(**COMPLETIONS["mark_completed"]))
    (running.root / RUNTIME).unlink()
    os.symlink(tmp_path / "far.json", running.root / RUNTIME)
    assert main(["closure", "--require", str(running.root)]) == 2
    err = capsys.readouterr().err
    assert "runtime_state.json" in err and "replace the link" in err, err


def test_a_push_that_completes_through_runtime_state_is_gated(running, monkeypatch, tmp_path) -> None:
    add_remote(running.root, tmp_path / "remote.git")
    git(running.root, "push", "-q", "--no-verify", "origin", "main")
    write_runtime(running, runtime(last_transition_at="2026-11-28T00:00:00+00:00"))  # an ordinary push goes
    git(running.root, "add", "-A")
    git(running.root, "commit", "-q", "--no-verify", "-m", "turn")
    monkeypatch.chdir(running.root)
    assert push_passes(".", f"refs/heads/main {tip(running.root)} refs/heads/main {'0' * 40}\n")
    write_runtime(running, runtime(**COMPLETIONS["display_status only"]))
    git(running.root, "add", "-A")
    git(running.root, "commit", "-q", "--no-verify", "-m", "completed")
    head = tip(running.root)
    assert not push_passes(".", f"refs/heads/main {head} refs/heads/main {'0' * 40}\n")
    report = push_check(".", [("push:refs/heads/main", head)], require=True)
    assert report is not None and not report.ok and pending(report), report


@pytest.mark.parametrize(
    "state, yaml_status, status",
    [
        ({"status": "completed"}, "active", "completed"),  # display_status taken from quest.yaml, as main's defaults
        ({"display_status": "completed", "status": "running"}, "active", "completed"),
        ({"display_status": "paused"}, "completed", "completed"),
        ({"status": "running", "display_status": "running"}, "active", "running"),
        (None, "active", "active"),
    ],
)
def test_the_quest_status_is_main_s(make_quest, state, yaml_status, status) -> None:
    """Closure's quest (``Quest.status``, what plugins judge) reads the status where main's
    snapshot reads it, ``completed`` wherever one of its files says so."""
    quest = make_quest()
    quest.write_quest_yaml(status=yaml_status)
    if state is not None:
        write_runtime(quest, json.dumps(state))
    assert load_quest(quest.root).status == status


@pytest.mark.slow
def test_the_installed_hooks_refuse_a_completion_written_to_runtime_state(running, tmp_path) -> None:
    """The break as found: the commit, then (committed past the hook) the push."""
    assert main(["install", str(running.root)]) == 0
    add_remote(running.root, tmp_path / "remote.git")
    assert git(running.root, "push", "-q", "origin", "main", check=False).returncode == 0
    write_runtime(running, runtime(**COMPLETIONS["mark_completed"]))
    done = commit(running.root, "quest completed")
    assert done.returncode == 1 and "main-001" in done.stdout + done.stderr, done.stdout + done.stderr
    git(running.root, "commit", "-q", "--no-verify", "-m", "quest completed")
    pushed = git(running.root, "push", "origin", "main", check=False)
    assert pushed.returncode != 0 and "main-001" in pushed.stdout + pushed.stderr, pushed.stdout + pushed.stderr


# ---------------------------------------------------------------- C06: the workspace roots research_state.json names


def name_root(quest: ExampleQuest, key: str, value: str) -> None:
    (quest.root / RESEARCH).write_text(json.dumps({"version": 1, key: value, "workspace_mode": "quest"}))


@pytest.fixture
def plain_root(make_quest) -> ExampleQuest:
    """A quest whose research_state.json names the plain folder ``ws/`` (no worktree), checkpointed."""
    quest = make_quest()
    (quest.root / "ws").mkdir()
    name_root(quest, "research_head_worktree_root", str(quest.root / "ws"))
    quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "checkpoint")
    return quest


@pytest.mark.parametrize("key", ROOT_KEYS)
def test_closure_counts_the_runs_main_recorded_in_a_named_root(make_quest, gate_json, key) -> None:
    quest = make_quest()
    (quest.root / "ws").mkdir()
    name_root(quest, key, str(quest.root / "ws"))
    run = quest.run(quest.root / "ws", "main-ws")  # main's record() writes into the active workspace
    quest.checkpoint(quest.root, "checkpoint")
    assert "ws/artifacts/runs/" in git(quest.root, "ls-files", "ws").stdout
    code, report = gate_json("closure", "--require", str(quest.root))
    assert code == 1 and run in {f["subject"] for f in report["findings"] if f["rule"] == "coverage.pending-run"}


def test_closure_finds_a_named_root_again_in_a_clone(make_quest, gate_json, tmp_path) -> None:
    """The path names the machine main ran on; quest.yaml's ``quest_root`` says where that was."""
    quest = make_quest()
    (quest.root / "ws").mkdir()
    name_root(quest, "current_workspace_root", str(quest.root / "ws"))
    run = quest.run(quest.root / "ws", "main-ws")
    quest.checkpoint(quest.root, "checkpoint")
    clone = tmp_path / "ci" / "001"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    shutil.rmtree(quest.root)  # CI's machine has no such folder (where it has, main would write there: a stop)
    code, report = gate_json("closure", "--require", str(clone))
    assert code == 1 and run in {f["subject"] for f in report["findings"] if f["rule"] == "coverage.pending-run"}


@pytest.mark.parametrize("how", ["manifest staged", "behind a link inside the root"])
def test_a_paper_bundle_in_a_named_root_finalizes_the_commit(plain_root, monkeypatch, how) -> None:
    quest = plain_root
    bundle = quest.root / "ws" / ".bundle"
    if how == "manifest staged":
        (quest.root / "ws" / "paper").mkdir()
        (quest.root / NESTED).write_text('{"title": "t", "summary": "s"}\n')
        staged = NESTED
    else:  # ws/paper -> .bundle committed, then the bundle staged as ws/.bundle/paper_bundle_manifest.json
        bundle.mkdir()
        (bundle / "README.md").write_text("bundle\n")
        os.symlink(".bundle", quest.root / "ws" / "paper")
        git(quest.root, "add", "-A")
        git(quest.root, "commit", "-q", "--no-verify", "-m", "paper folder")
        (bundle / "paper_bundle_manifest.json").write_text('{"title": "t"}\n')
        staged = NESTED
    git(quest.root, "add", "-A")
    monkeypatch.chdir(quest.root)
    assert not checkpoint_passes(".")
    report = commit_check(".", require=True)
    assert report is not None and not report.ok and pending(report), report
    assert f"{staged} (a paper bundle)" in (report.finalization_reasons or []), report.finalization_reasons


def test_a_paper_bundle_in_a_named_root_finalizes_the_push(plain_root, monkeypatch, tmp_path) -> None:
    quest = plain_root
    add_remote(quest.root, tmp_path / "remote.git")
    git(quest.root, "push", "-q", "--no-verify", "origin", "main")
    (quest.root / "ws" / "paper").mkdir()
    (quest.root / NESTED).write_text('{"title": "t"}\n')
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper bundle")
    head = tip(quest.root)
    monkeypatch.chdir(quest.root)
    assert not push_passes(".", f"refs/heads/main {head} refs/heads/main {'0' * 40}\n")
    report = push_check(".", [("push:refs/heads/main", head)], require=True)
    assert report is not None and not report.ok and pending(report), report


def test_a_manifest_named_file_elsewhere_finalizes_nothing(plain_root, monkeypatch) -> None:
    """Only the roots research_state.json names hold main's bundle: a file of that name in another
    folder (a baseline's copy) is left to the full path, which lets the checkpoint through."""
    quest = plain_root
    (quest.root / "baselines" / "paper").mkdir(parents=True)
    (quest.root / "baselines" / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    git(quest.root, "add", "-A")
    monkeypatch.chdir(quest.root)
    report = commit_check(".", require=True)
    assert report is None or (report.ok and not report.finalization_reasons), report


def unseen_root(quest: ExampleQuest, tmp_path: Path, how: str) -> None:
    """research_state.json names a root main would write into that the gate never follows."""
    (quest.root / "ws").mkdir(exist_ok=True)
    if how == "outside":
        (tmp_path / "far").mkdir()
        name_root(quest, "current_workspace_root", str(tmp_path / "far"))
    elif how == "relative":
        name_root(quest, "current_workspace_root", "ws")
    elif how == "a link inside":
        os.symlink("ws", quest.root / "alias")
        name_root(quest, "current_workspace_root", str(quest.root / "alias"))
    else:  # a link outside the quest leading into it
        (tmp_path / "links").mkdir()
        os.symlink(quest.root / "ws", tmp_path / "links" / "ws")
        name_root(quest, "research_head_worktree_root", str(tmp_path / "links" / "ws"))


UNSEEN = ["outside", "relative", "a link inside", "a link into the quest"]


@pytest.mark.parametrize("how", UNSEEN)
def test_an_unseen_root_stops_closure_with_its_fix(make_quest, tmp_path, capsys, how) -> None:
    quest = make_quest()
    unseen_root(quest, tmp_path, how)
    assert main(["closure", "--require", str(quest.root)]) == 2
    err = capsys.readouterr().err
    assert "research_state.json" in err and ("replace the link" in err or "point " in err), err


@pytest.mark.parametrize("how", UNSEEN)
def test_an_unseen_root_never_blocks_a_checkpoint_and_stops_a_finalization(
    make_quest, tmp_path, monkeypatch, how
) -> None:
    quest = make_quest()
    unseen_root(quest, tmp_path, how)
    quest.run(quest.root, "main-001")
    git(quest.root, "add", "-A")
    monkeypatch.chdir(quest.root)
    report = commit_check(".")  # research_state.json, a run: an ordinary checkpoint
    assert report is None or report.ok, report
    git(quest.root, "commit", "-q", "--no-verify", "-m", "checkpoint")
    (quest.root / "ws" / "paper").mkdir()
    (quest.root / NESTED).write_text('{"title": "t"}\n')  # may be the bundle main writes there: judged
    git(quest.root, "add", "-A")
    with pytest.raises(QuestError, match=r"research_state\.json"):
        commit_check(".", require=True)


@pytest.mark.slow
def test_the_installed_hooks_refuse_a_paper_bundle_in_a_named_root(plain_root, tmp_path) -> None:
    """The break as found: the commit, then (committed past the hook) the push."""
    quest = plain_root
    assert main(["install", str(quest.root)]) == 0
    add_remote(quest.root, tmp_path / "remote.git")
    assert git(quest.root, "push", "-q", "origin", "main", check=False).returncode == 0
    (quest.root / "ws" / "paper").mkdir()
    (quest.root / NESTED).write_text('{"title": "t", "summary": "s"}\n')
    done = commit(quest.root, "paper bundle at <active workspace>/paper")
    assert done.returncode == 1 and "main-001" in done.stdout + done.stderr, done.stdout + done.stderr
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper bundle")
    pushed = git(quest.root, "push", "origin", "main", check=False)
    assert pushed.returncode != 0 and "main-001" in pushed.stdout + pushed.stderr, pushed.stdout + pushed.stderr


@pytest.mark.slow
def test_closure_on_the_command_line_reads_the_named_root(make_quest) -> None:
    """The reproducer's part B through the console: PASSED with 0 runs before."""
    quest = make_quest()
    (quest.root / "ws").mkdir()
    name_root(quest, "current_workspace_root", str(quest.root / "ws"))
    quest.run(quest.root / "ws", "run-ws")
    quest.checkpoint(quest.root, "checkpoint")
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", "--require", str(quest.root)], capture_output=True, text=True
    )
    assert done.returncode == 1 and "REJECTED - 1 of 1" in done.stdout, done.stdout + done.stderr
