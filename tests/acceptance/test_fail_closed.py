"""Issue 24, root 3: where the gate cannot see, ``closure``, finalization commits and the
pre-push gate stop (exit 2, naming the fix) or fail; they never pass on what they saw.

Each class is built the way it happens: a CI runner that fetches one branch, a repository
git refuses (another user owns it), a nested repository committed where runs live, a
workspace that leads out of the quest, and runs left unstaged while the quest finalizes.
Every test runs the real CLI or the installed hooks on real repositories.
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

from helpers import add_remote, commit, git, head_subject

MANIFEST = "paper/paper_bundle_manifest.json"
FETCH_FIX = "git config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*' && git fetch origin"


def ds(
    *args: str, cwd: Path | None = None, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", *args], cwd=cwd, input=stdin, capture_output=True, text=True, env=env
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def write_manifest(workspace: Path) -> None:
    (workspace / "paper").mkdir(exist_ok=True)
    (workspace / MANIFEST).write_text(json.dumps({"package_type": "paper_draft_checkpoint"}) + "\n")


@pytest.fixture
def on_a_branch(make_quest):
    """A quest whose one completed run lives only on ``idea/001-a`` (main holds none)."""
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(idea, "main-001")
    quest.checkpoint(idea, "experiment: main-001")
    return quest, run


# ---------------------------------------------------------------- 1. a clone that fetched some branches


def fetch_by_name(origin: Path, clone: Path, *, remote: bool = True) -> None:
    """What a CI runner told to fetch one branch does (GitLab's `GIT_DEPTH: 0`, a hand-written
    job): no depth, so no shallow file, and with `remote add` a configuration that would fetch
    every branch; only the fetch itself named one."""
    clone.mkdir()
    git(clone, "init", "-q")
    url = f"file://{origin}"
    if remote:
        git(clone, "remote", "add", "origin", url)
    git(clone, "fetch", "-q", "origin" if remote else url, "+refs/heads/main:refs/remotes/origin/main")
    git(clone, "checkout", "-q", "--force", "-B", "main", "refs/remotes/origin/main")


@pytest.mark.slow
@pytest.mark.parametrize("remote", [True, False], ids=["remote configured", "no remote"])
def test_a_clone_that_fetched_one_branch_by_name_stops_closure_and_finalization(on_a_branch, tmp_path, remote) -> None:
    quest, run = on_a_branch
    clone = tmp_path / "ci"
    fetch_by_name(quest.root, clone, remote=remote)
    assert not (clone / ".git" / "shallow").exists()
    for args in (["closure", str(clone)], ["closure", str(clone), "--from-git"]):
        done = ds(*args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert FETCH_FIX in done.stderr and "fetch-depth: 0" in done.stderr, done.stderr
    assert ds("check", str(clone)).returncode == 0  # check warns and goes on
    assert "git.one-branch" in ds("check", str(clone), "--format", "json").stdout
    [advice] = [
        c for c in json.loads(ds("doctor", str(clone), "--format", "json").stdout)["checks"] if c["name"] == "clone"
    ]
    assert advice["status"] == "warn" and FETCH_FIX in advice["fix"]

    assert main(["install", str(clone)]) == 0  # a finalization commit in that clone
    write_manifest(clone)
    rejected = commit(clone, "paper: bundle")
    assert rejected.returncode != 0 and head_subject(clone) != "paper: bundle"
    assert FETCH_FIX in rejected.stdout + rejected.stderr
    git(clone, "commit", "-q", "--no-verify", "-m", "paper: bundle")  # and its push
    tip = git(clone, "rev-parse", "HEAD").stdout.strip()
    pushed = ds(
        "pre-push", "origin", str(quest.root), cwd=clone, stdin=f"refs/heads/main {tip} refs/heads/main {'0' * 40}\n"
    )
    assert pushed.returncode == 2 and FETCH_FIX in pushed.stderr, pushed.stdout + pushed.stderr

    if remote:  # the fix, followed: the run is seen and named
        git(clone, "fetch", "-q", "origin")
        done = ds("closure", str(clone))
        assert done.returncode == 1 and run in done.stdout, done.stdout + done.stderr


@pytest.mark.slow
def test_a_narrowed_refspec_of_one_remote_is_not_hidden_by_another(on_a_branch, tmp_path) -> None:
    quest, run = on_a_branch
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--single-branch", f"file://{quest.root}", str(clone))
    git(
        clone, "remote", "add", "mirror", str(tmp_path / "nowhere.git")
    )  # fetches every branch of a remote never fetched
    done = ds("closure", str(clone))
    assert done.returncode == 2 and "remote.origin.fetch = +refs/heads/main" in done.stderr, done.stderr


@pytest.mark.slow
def test_the_actions_checkout_fetch_of_every_branch_still_runs_the_readme_recipe(on_a_branch, tmp_path) -> None:
    """What `actions/checkout` with `fetch-depth: 0` runs on a pull request: every branch by a
    wildcard, then the merge ref by id. The README's steps find the pending run (exit 1), not 2."""
    from helpers import readme_ci_steps, run_step

    quest, run = on_a_branch
    head = git(quest.root, "rev-parse", "main").stdout.strip()
    clone = tmp_path / "checkout"
    clone.mkdir()
    git(clone, "init", "-q")
    git(clone, "remote", "add", "origin", f"file://{quest.root}")
    git(
        clone,
        "-c",
        "protocol.version=2",
        "fetch",
        "-q",
        "--prune",
        "--no-recurse-submodules",
        "origin",
        "+refs/heads/*:refs/remotes/origin/*",
        "+refs/tags/*:refs/tags/*",
        f"+{head}:refs/remotes/pull/1/merge",
    )
    git(clone, "checkout", "-q", "--force", "-B", "main", "refs/remotes/origin/main")
    (tmp_path / "runner-temp").mkdir()
    results = {step: run_step(step, clone, tmp_path / "runner-temp") for step in readme_ci_steps()}
    annotations = results["ds-gate closure --format github"]
    assert annotations.returncode == 1 and run in annotations.stdout, annotations.stdout + annotations.stderr


# ---------------------------------------------------------------- 2. git refuses the repository


@pytest.mark.slow
def test_a_repository_git_refuses_stops_closure_with_the_safe_directory_fix(on_a_branch, tmp_path) -> None:
    """Another user owns the clone: git refuses it ("dubious ownership"); read from its folders
    alone, the run on a branch no folder has out is unseen. Closure stops and names the fix."""
    quest, run = on_a_branch
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    subprocess.run(["chown", "-R", "nobody", str(clone)], check=True)
    assert "dubious ownership" in git(clone, "status", check=False).stderr
    fix = f"git config --global --add safe.directory {clone}"
    done = ds("closure", str(clone))
    assert done.returncode == 2 and fix in done.stderr and "dubious ownership" in done.stderr, done.stdout + done.stderr
    checked = ds("check", str(clone), "--format", "json")
    [warning] = [f for f in json.loads(checked.stdout)["findings"] if f["rule"] == "quest.not-git"]
    assert checked.returncode == 0 and fix in warning["hint"]

    config = tmp_path / "gitconfig"
    shutil.copy(os.environ["GIT_CONFIG_GLOBAL"], config)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": str(config)}
    subprocess.run(fix.split(), check=True, env=env)  # the fix, followed
    done = ds("closure", str(clone), env=env)
    assert done.returncode == 1 and run in done.stdout, done.stdout + done.stderr


def test_git_missing_on_a_repository_stops_closure(on_a_branch, tmp_path, monkeypatch, capsys) -> None:
    quest, run = on_a_branch
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    empty = tmp_path / "no-git-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert main(["closure", str(clone)]) == 2
    assert "install git" in capsys.readouterr().err
    assert main(["check", str(clone)]) == 0  # check still reads the folders, with a warning


# ---------------------------------------------------------------- 3. a gitlink where runs live


def nest(workspace: Path, quest: ExampleQuest) -> str:
    """A completed run whose ``artifacts/runs`` folder became a git repository of its own (an
    agent's `git init` or `git clone` there): DeepScientist's `git add -A` commits a gitlink."""
    run = quest.run(workspace, "main-009")
    runs = workspace / "artifacts" / "runs"
    git(runs, "init", "-q")
    git(runs, "add", "-A")
    git(runs, "commit", "-q", "-m", "nested")
    return run


@pytest.mark.slow
@pytest.mark.parametrize("where", ["a branch no folder has out", "the branch the clone checks out"])
def test_a_committed_gitlink_fails_closure_like_a_committed_link(make_quest, tmp_path, where) -> None:
    """In a clone, a gitlink on the checked-out branch is an empty folder; on another branch it
    is a tree entry: either way closure (folders and tips) and --from-git name it."""
    quest = make_quest()
    assert main(["install", str(quest.root)]) == 0
    workspace = quest.worktree("idea-a", "idea/001-a") if where.startswith("a branch") else quest.root
    run = nest(workspace, quest)
    done = commit(workspace, "experiment: main-009")  # an ordinary checkpoint: never blocked
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(workspace, "ls-tree", "HEAD", "artifacts/runs").stdout.startswith("160000 commit")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    if workspace == quest.root:  # checked out as an empty folder
        assert list((clone / "artifacts" / "runs").iterdir()) == []
    for args in (["closure", str(clone)], ["closure", str(clone), "--from-git"]):
        stopped = ds(*args, "--format", "json")  # the runs behind it are unseen: a stop (exit 2), as for a link out
        out = json.loads(stopped.stdout)
        assert stopped.returncode == 2 and out["ok"] is False, (args, out)
        assert "[git.symlink-in-tree]" in out["error"] and "gitlink" in out["error"], out
        assert "git rm --cached artifacts/runs" in out["error"]
    for args in (["check", str(clone)], ["check", str(clone), "--from-git"]):  # check lists it as a finding
        out = json.loads(ds(*args, "--format", "json").stdout)
        linked = [f for f in out["findings"] if f["rule"] == "git.symlink-in-tree"]
        assert linked and all(f["path"].endswith("artifacts/runs") for f in linked), (args, linked)
        assert linked[0]["severity"] == "error" and "gitlink" in linked[0]["message"]
        # the record stays unread, but the run is not lost: read from the branch, its index line counts it
        # (issue 35: a run whose record cannot be found is counted from its line); in the clone's own folder
        # the line's absolute path leads to the original quest, outside the clone, and is named as unseen
        if where.startswith("a branch") or "--from-git" in args:
            assert run in out["pending_run_ids"], (args, out["pending_run_ids"])
        else:
            outside = [f for f in out["findings"] if f["rule"] == "index.record-outside-quest"]
            assert outside and run in outside[0]["message"], (args, out["findings"])


@pytest.mark.slow
def test_a_finalization_commit_staging_a_gitlink_is_rejected(make_quest) -> None:
    quest = make_quest()
    assert main(["install", str(quest.root)]) == 0
    paper = quest.worktree("paper", "paper/main-001")
    nest(paper, quest)
    write_manifest(paper)
    rejected = commit(paper, "paper: bundle")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and head_subject(paper) != "paper: bundle"
    assert "git.symlink-in-tree" in output and "gitlink" in output, output


@pytest.mark.slow
def test_a_pushed_gitlink_is_rejected_by_the_pre_push_gate(make_quest, tmp_path) -> None:
    quest = make_quest()
    remote = add_remote(quest.root, tmp_path / "remote.git")
    assert git(quest.root, "push", "-q", "origin", "main").returncode == 0
    assert main(["install", str(quest.root)]) == 0
    paper = quest.worktree("paper", "paper/main-001")
    nest(paper, quest)
    write_manifest(paper)
    git(paper, "add", "-A")
    git(paper, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    rejected = git(paper, "push", "origin", "paper/main-001", check=False)
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and "paper/main-001:artifacts/runs is a gitlink" in output, output
    assert "paper/main-001" not in git(remote, "branch").stdout


# ---------------------------------------------------------------- 4. a workspace that leads out of the quest


def outside_workspace(quest: ExampleQuest, tmp_path: Path, how: str) -> str:
    """A completed run behind a pointer out of the quest, as DeepScientist would still read it."""
    if how == "registered worktree":
        outside = tmp_path / "outside-wt"
        git(quest.root, "worktree", "add", "-q", "-b", "idea/outside", str(outside))
        run = quest.run(outside, "main-007")
        git(outside, "add", "-A")
        git(outside, "commit", "-q", "--no-verify", "-m", "run")
        return run
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    git(outside, "init", "-q")  # the record's builder asks git for the branch
    git(outside, "commit", "-q", "--allow-empty", "-m", "start")
    run = quest.run(outside, "main-007")
    if how == "link under .ds/worktrees":
        (quest.root / ".ds" / "worktrees").mkdir(parents=True, exist_ok=True)
        os.symlink(outside, quest.root / ".ds" / "worktrees" / "linked")
    elif how == "research_head_worktree_root":
        (quest.root / ".ds" / "research_state.json").write_text(
            json.dumps({"research_head_worktree_root": str(outside)})
        )
    elif how == "the .ds folder linked out":
        (outside / "worktrees").mkdir()
        os.rename(outside / "artifacts", outside / "worktrees" / "artifacts")  # .ds/worktrees/<x>/artifacts, out
        (outside / "worktrees" / "x").mkdir()
        os.rename(outside / "worktrees" / "artifacts", outside / "worktrees" / "x" / "artifacts")
        shutil.rmtree(quest.root / ".ds")
        os.symlink(outside, quest.root / ".ds")
    elif how == "record folder linked out":
        shutil.rmtree(quest.root / "artifacts" / "runs", ignore_errors=True)
        os.symlink(outside / "artifacts" / "runs", quest.root / "artifacts" / "runs")
    return run


OUTSIDE = [
    "registered worktree",
    "link under .ds/worktrees",
    "research_head_worktree_root",
    "the .ds folder linked out",
    "record folder linked out",
]
OUTSIDE_FIX = {
    "registered worktree": "worktree move",
    "link under .ds/worktrees": "replace the link",
    "research_head_worktree_root": "point research_head_worktree_root",
    "the .ds folder linked out": "replace the link with the folder itself",
    "record folder linked out": "replace the link with the file itself",
}


@pytest.mark.slow
@pytest.mark.parametrize("how", OUTSIDE)
def test_a_workspace_leading_out_of_the_quest_stops_closure(make_quest, tmp_path, how) -> None:
    quest = make_quest()
    outside_workspace(quest, tmp_path, how)
    done = ds("closure", str(quest.root))
    assert done.returncode == 2 and OUTSIDE_FIX[how] in done.stderr, done.stdout + done.stderr
    assert "outside" in done.stderr
    assert ds("check", str(quest.root)).returncode == 0  # check keeps warning


def test_on_a_cp_r_copy_of_a_quest_the_printed_fix_works_as_printed(make_quest, tmp_path, capsys) -> None:
    """Issue 39: on a ``cp -r`` copy the worktrees still point at the original's, and the printed
    ``git worktree move`` failed ("validation failed"); ``git worktree repair`` from the copy would
    rewrite the original's links. The fix printed now relinks the copy alone, run as printed."""
    quest = make_quest()
    quest.worktree("idea-a", "idea/001-a")
    copy = tmp_path / "copies" / "001"
    copy.parent.mkdir()
    subprocess.run(["cp", "-r", str(quest.root), str(copy)], check=True)
    assert main(["closure", str(copy)]) == 2
    stop = capsys.readouterr().err
    assert "outside the quest" in stop, stop
    fix = stop.split("Fix: ", 1)[1]
    commands = [c for c in fix.split("`")[1::2] if c]
    assert len(commands) == 1, fix
    followed = subprocess.run(["sh", "-c", commands[0]], cwd=tmp_path, capture_output=True, text=True)
    assert followed.returncode == 0, (commands[0], followed.stderr)
    listed = git(copy, "worktree", "list", "--porcelain").stdout
    assert f"worktree {copy / '.ds' / 'worktrees' / 'idea-a'}" in listed and str(quest.root) not in listed
    original = git(quest.root, "worktree", "list", "--porcelain").stdout
    assert f"worktree {quest.root / '.ds' / 'worktrees' / 'idea-a'}" in original and str(copy) not in original
    for root in (copy, quest.root):  # each worktree is its own repository's, both ways
        top = git(root / ".ds" / "worktrees" / "idea-a", "rev-parse", "--git-common-dir").stdout.strip()
        assert Path(top).resolve() == (root / ".git").resolve()
    assert main(["closure", str(copy)]) in (0, 1), capsys.readouterr().err  # a verdict, not a stop


@pytest.mark.slow
def test_finalizing_with_a_workspace_out_of_the_quest_is_refused_by_both_hooks(make_quest, tmp_path) -> None:
    quest = make_quest()
    add_remote(quest.root, tmp_path / "remote.git")
    assert git(quest.root, "push", "-q", "origin", "main").returncode == 0
    assert main(["install", str(quest.root)]) == 0
    outside_workspace(quest, tmp_path, "link under .ds/worktrees")
    write_manifest(quest.root)
    rejected = commit(quest.root, "paper: bundle", MANIFEST)
    assert rejected.returncode != 0 and "replace the link" in rejected.stdout + rejected.stderr
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    pushed = git(quest.root, "push", "origin", "main", check=False)
    assert pushed.returncode != 0 and "replace the link" in pushed.stdout + pushed.stderr


# ---------------------------------------------------------------- 5. runs the finalization does not carry


@pytest.fixture
def finalizing(make_quest):
    quest = make_quest()
    assert main(["install", str(quest.root)]) == 0
    paper = quest.worktree("paper", "paper/main-001")
    return quest, paper


@pytest.mark.slow
def test_a_finalization_commit_leaving_a_completed_run_untracked_is_rejected(finalizing) -> None:
    quest, paper = finalizing
    run = quest.run(paper, "main-003")  # recorded, never staged
    (paper / "notes.md").write_text("progress\n")
    assert commit(paper, "notes", "notes.md").returncode == 0  # an ordinary checkpoint is never blocked
    write_manifest(paper)
    rejected = commit(paper, "paper: bundle", MANIFEST)
    output = " ".join((rejected.stdout + rejected.stderr).split())  # the text report wraps its notes
    assert rejected.returncode != 0 and head_subject(paper) == "notes", output
    assert run in output and "does not stage" in output and "git add -A artifacts" in output
    assert ds("closure", str(quest.root)).returncode == 1  # what closure says, the hook said first


def test_a_finalization_commit_leaving_a_completed_status_unstaged_is_rejected(finalizing) -> None:
    quest, paper = finalizing
    run = quest.run(paper, "main-004", status="running")
    assert commit(paper, "experiment: main-004 started").returncode == 0
    record = paper / "artifacts" / "runs" / f"{run}.json"
    record.write_text(record.read_text().replace('"running"', '"completed"'))  # modified, not staged
    write_manifest(paper)
    rejected = commit(paper, "paper: bundle", MANIFEST)
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and run in output, output


@pytest.mark.slow
def test_a_finalization_push_while_a_worktree_holds_an_uncommitted_run_is_rejected(finalizing, tmp_path) -> None:
    quest, paper = finalizing
    remote = add_remote(quest.root, tmp_path / "remote.git")
    assert git(quest.root, "push", "-q", "origin", "main").returncode == 0
    idea = quest.worktree("idea", "idea/001-a")
    run = quest.run(idea, "main-005")  # recorded in another worktree, not committed
    write_manifest(paper)
    assert commit(paper, "paper: bundle").returncode != 0  # the commit hook sees the folder too
    git(paper, "add", "-A")
    git(paper, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    pushed = git(paper, "push", "origin", "paper/main-001", check=False)
    output = " ".join((pushed.stdout + pushed.stderr).split())  # the text report wraps its notes
    assert pushed.returncode != 0 and run in output and "no commit holds yet" in output, output
    assert "paper/main-001" not in git(remote, "branch").stdout
    ordinary = git(idea, "push", "-q", "origin", "idea/001-a", check=False)  # an ordinary push is never blocked
    assert ordinary.returncode == 0, ordinary.stdout + ordinary.stderr
