"""Issue 35, root C, "a deleted worktree folder", as a class: a worktree git still registers
whose folder is not that worktree any more.

Removed without ``git worktree prune`` while on a detached HEAD (its commit is then reachable
only through ``.git/worktrees/<id>/HEAD``), or replaced by a symbolic link to another workspace
inside the quest, by a copy of another worktree (its ``.git`` leads to that one's registration),
by a repository of its own, or by a file. Each hides a committed, completed run from a gate that
takes the folder for the worktree. The gate reads the commit the registration's HEAD names from
git objects, never follows the link, and stops (exit 2, with the prune) where git cannot read
that HEAD; an ordinary checkpoint is never refused for any of it. Judged by the CLI (folders and
``--from-git``), both hooks' full paths, the installed hooks, doctor and the pytest plugin.
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
from ds_gate.engine.push import push_check
from ds_gate.kernel.errors import QuestError

from helpers import commit, git

MANIFEST = "paper/paper_bundle_manifest.json"
pytest_plugins = ["pytester"]

LINKS = ("a link to another worktree", "a link to the quest root", "detached, a link to another worktree")
KINDS = (
    "detached, folder gone",
    "detached, folder gone, locked",
    *LINKS,
    "a copy of another worktree",
    "a repository of its own",
    "a file",
)


def ds(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "ds_gate", *args], cwd=cwd, capture_output=True, text=True)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def stray_quest(make_quest, kind: str) -> tuple[ExampleQuest, str, Path]:
    """A quest whose worktree ``run-w`` (on ``run/w``, or on a detached HEAD) holds a committed,
    completed, unreviewed run, then made ``kind``; beside it the worktree ``e`` (``run/e``, no run)."""
    quest = make_quest()
    folder = quest.root / ".ds" / "worktrees" / "run-w"
    if kind.startswith("detached"):
        git(quest.root, "worktree", "add", "-q", "--detach", str(folder), "main")
    else:
        quest.worktree("run-w", "run/w")
    run = quest.run(folder, "run-w")
    quest.checkpoint(folder, "run w completed")
    other = quest.worktree("e", "run/e")
    if kind.endswith("locked"):
        git(quest.root, "worktree", "lock", str(folder))
    shutil.rmtree(folder)
    if "link to another worktree" in kind:
        os.symlink("e", folder)
    elif kind == "a link to the quest root":
        os.symlink("../..", folder)
    elif kind == "a copy of another worktree":
        shutil.copytree(other, folder, symlinks=True)
    elif kind == "a repository of its own":
        folder.mkdir()
        git(folder, "init", "-q")
    elif kind == "a file":
        folder.write_text("not a worktree\n")
    return quest, run, folder


@pytest.fixture(params=KINDS)
def stray(make_quest, request) -> tuple[ExampleQuest, str, Path]:
    return stray_quest(make_quest, request.param)


def pending(report: dict) -> set[str]:
    return {f["subject"] for f in report["findings"] if f["rule"] == "coverage.pending-run"}


def stage_manifest(quest: ExampleQuest) -> None:
    (quest.root / "paper").mkdir()
    (quest.root / MANIFEST).write_text(json.dumps({"package_type": "paper_draft_checkpoint"}) + "\n")
    git(quest.root, "add", MANIFEST)


# ---------------------------------------------------------------- its HEAD is read from git objects


def test_closure_reads_the_head_of_a_worktree_whose_folder_is_not_its_own(stray, gate_json) -> None:
    quest, run, folder = stray
    code, report = gate_json("closure", "--require", str(quest.root))
    assert code == 1 and run in pending(report), report
    [said] = [f for f in report["findings"] if f["rule"] == "workspace.missing"]
    assert ".ds/worktrees/run-w" in said["message"] and "read from git objects" in said["message"], said
    code, from_git = gate_json("closure", "--from-git", "--require", str(quest.root))
    assert code == 1 and run in pending(from_git), from_git


def test_a_detached_head_is_read_under_git_s_own_name_and_its_hint_keeps_the_commit(make_quest, gate_json) -> None:
    quest, run, _ = stray_quest(make_quest, "detached, folder gone")
    head = git(quest.root, "rev-parse", "worktrees/run-w/HEAD").stdout.strip()
    _, report = gate_json("check", str(quest.root))
    assert "worktrees/run-w/HEAD" in report["workspaces"], report["workspaces"]
    [said] = [f for f in report["findings"] if f["rule"] == "workspace.missing"]
    assert f"branch <name> {head}" in said["hint"] and "worktree prune" in said["hint"], said


@pytest.mark.parametrize("kind", LINKS)
def test_a_link_standing_for_a_worktree_is_never_followed(make_quest, gate_json, kind) -> None:
    """The link's target is read as what it is (a workspace of its own, or the root), never as
    the worktree the link stands for: ``run-w`` is read at its HEAD, not through ``e``."""
    quest, run, _ = stray_quest(make_quest, kind)
    _, report = gate_json("check", str(quest.root))
    assert ".ds/worktrees/run-w" not in report["workspaces"], report["workspaces"]
    [said] = [f for f in report["findings"] if f["rule"] == "workspace.missing"]
    assert "is a symbolic link to" in said["message"] and "never followed" in said["message"], said
    assert f"rm {quest.root / '.ds' / 'worktrees' / 'run-w'} && git -C" in said["hint"], said


def test_a_finalization_commit_sees_the_run(stray, monkeypatch) -> None:
    quest, run, _ = stray
    stage_manifest(quest)
    monkeypatch.chdir(quest.root)
    report = commit_check(".", require=True)
    assert report is not None and not report.ok
    assert run in {f.subject for f in report.findings if f.rule == "coverage.pending-run"}, report.findings


def test_a_finalization_push_sees_the_run(stray, monkeypatch) -> None:
    quest, run, _ = stray
    stage_manifest(quest)
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    monkeypatch.chdir(quest.root)
    head = git(quest.root, "rev-parse", "HEAD").stdout.strip()
    report = push_check(".", [("push:refs/heads/main", head)], require=True)
    assert report is not None and not report.ok
    assert run in {f.subject for f in report.findings if f.rule == "coverage.pending-run"}, report.findings


def test_doctor_names_the_worktree_whose_folder_is_not_its_own(stray, gate_json) -> None:
    quest, _, folder = stray
    _, out = gate_json("doctor", str(quest.root))
    worktrees = {c["name"]: c for c in out["checks"]}["worktrees"]
    assert worktrees["status"] == "fail" and str(folder) in worktrees["message"], worktrees
    assert "worktree prune" in worktrees["fix"], worktrees


def test_the_worktrees_own_folders_are_read_as_before(make_quest, gate_json) -> None:
    """Whole worktrees (a branch, a detached HEAD) are their folders: nothing read twice, no note."""
    quest = make_quest()
    quest.worktree("idea-a", "idea/001-a")
    git(quest.root, "worktree", "add", "-q", "--detach", str(quest.root / ".ds" / "worktrees" / "d"), "main")
    code, report = gate_json("check", str(quest.root))
    assert code == 0 and report["workspaces"] == [".", ".ds/worktrees/d", ".ds/worktrees/idea-a"], report
    assert not [f for f in report["findings"] if f["rule"].startswith("workspace.")], report["findings"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["detached, folder gone", "a link to another worktree"])
def test_the_installed_hook_refuses_the_finalization_and_lets_a_checkpoint_through(make_quest, kind) -> None:
    quest, run, _ = stray_quest(make_quest, kind)
    assert main(["install", str(quest.root)]) == 0
    quest.run(quest.root, "main-002")
    ordinary = commit(quest.root, "experiment: main-002")
    assert ordinary.returncode == 0, ordinary.stdout + ordinary.stderr
    stage_manifest(quest)
    done = commit(quest.root, "paper: bundle")
    assert done.returncode != 0 and run in done.stdout + done.stderr, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["detached, folder gone", "a link to another worktree"])
def test_pytest_sees_the_run(make_quest, pytester, kind) -> None:
    quest, run, _ = stray_quest(make_quest, kind)
    result = pytester.runpytest_subprocess(
        f"--ds-gate={quest.root}", "--ds-gate-require", "-rA", "-p", "no:cacheprovider"
    )
    out = result.stdout.str()
    assert result.ret == 1 and f"completed run {run} " in out, out


# ---------------------------------------------------------------- a HEAD git cannot read stops


UNREADABLE = {
    "garbage": "not a HEAD\n",
    "a commit the quest lacks": "1234567890" * 4 + "\n",
    "a branch that does not exist": "ref: refs/heads/nowhere\n",
}


@pytest.fixture(
    params=[(k, h) for k in ("detached, folder gone", "a link to another worktree") for h in UNREADABLE],
    ids=lambda param: f"{param[0]}: HEAD {param[1]}",
)
def unreadable(make_quest, request) -> tuple[ExampleQuest, str]:
    kind, head = request.param
    quest, run, _ = stray_quest(make_quest, kind)
    (quest.root / ".git" / "worktrees" / "run-w" / "HEAD").write_text(UNREADABLE[head])
    return quest, run


def test_closure_stops_where_git_cannot_read_that_head(unreadable, capsys, gate_json) -> None:
    quest, _ = unreadable
    for source in ([], ["--from-git"]):
        assert main(["closure", "--require", *source, str(quest.root)]) == 2
        err = capsys.readouterr().err
        assert ".ds/worktrees/run-w" in err and "cannot read the commit its HEAD names" in err, err
        assert f"git -C {quest.root} worktree prune" in err, err
    code, report = gate_json("check", str(quest.root))  # check warns and goes on
    assert code == 0 and "workspace.head-unreadable" in {f["rule"] for f in report["findings"]}


def test_both_hooks_stop_a_finalization_where_git_cannot_read_that_head(unreadable, monkeypatch) -> None:
    quest, _ = unreadable
    monkeypatch.chdir(quest.root)
    quest.run(quest.root, "main-002")
    git(quest.root, "add", "-A")
    ordinary = commit_check(".", require=True)  # an ordinary checkpoint: its records checked, never refused
    assert ordinary is None or ordinary.ok, ordinary
    git(quest.root, "commit", "-q", "--no-verify", "-m", "experiment: main-002")
    stage_manifest(quest)
    with pytest.raises(QuestError, match="worktree prune"):
        commit_check(".", require=True)
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    head = git(quest.root, "rev-parse", "HEAD").stdout.strip()
    with pytest.raises(QuestError, match="worktree prune"):
        push_check(".", [("push:refs/heads/main", head)], require=True)


@pytest.mark.slow
def test_the_installed_hook_stops_only_the_finalization(make_quest) -> None:
    quest, _, _ = stray_quest(make_quest, "detached, folder gone")
    (quest.root / ".git" / "worktrees" / "run-w" / "HEAD").write_text("not a HEAD\n")
    assert main(["install", str(quest.root)]) == 0
    quest.run(quest.root, "main-002")
    assert commit(quest.root, "experiment: main-002").returncode == 0
    stage_manifest(quest)
    done = commit(quest.root, "paper: bundle")
    assert done.returncode != 0 and "worktree prune" in done.stderr, done.stdout + done.stderr
    closure = ds("closure", "--require", str(quest.root))
    assert closure.returncode == 2 and "worktree prune" in closure.stderr, closure.stderr
