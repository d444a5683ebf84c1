"""The git source: a fresh clone has no worktree folders, only branches, and the gate must
see exactly what the folder source sees on the original quest."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from ds_gate.cli.main import main

from helpers import add_remote, git

pytest_plugins = ["pytester"]


@pytest.fixture
def original(make_quest):
    """Runs and reviews in several worktrees, every one committed on its branch."""
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")
    first = quest.run(idea, "main-001")
    quest.checkpoint(idea, "experiment: main-001")
    run_ws = quest.worktree("run-main-002", "run/main-002", "idea/001-a")
    second = quest.run(run_ws, "main-002")
    quest.checkpoint(run_ws, "experiment: main-002")
    slice_ws = quest.worktree("analysis-c-s1", "analysis/idea-a/c-s1", "idea/001-a")
    third = quest.run(slice_ws, "c:s1", run_kind="analysis.slice")
    quest.checkpoint(slice_ws, "experiment: slice")
    quest.run(quest.root, "main-000", status="failed")
    review = quest.review(run_ws, [first, second], cards=[], reason_if_empty="nothing reusable")
    quest.checkpoint(run_ws, "artifact: review")
    quest.checkpoint(quest.root, "root")
    return quest, (first, second, third), review


def summary(out: dict) -> tuple:
    return (
        sorted(r["artifact_id"] for r in out["completed_runs"]),
        sorted((r["artifact_id"], tuple(r["reviewed_run_ids"]), r["valid"]) for r in out["reviews"]),
        out["pending_run_ids"],
    )


def test_a_clone_hides_the_runs_from_folders_but_not_from_branches(original, tmp_path, gate_json) -> None:
    quest, (first, second, third), review = original
    code, on_original = gate_json("closure", str(quest.root))
    assert code == 1 and on_original["pending_run_ids"] == [third]

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    assert not (clone / ".ds" / "worktrees").exists()
    code, from_folders = gate_json("closure", str(clone), "--from-folders")
    assert code == 0 and from_folders["completed_runs"] == []  # the gap the git source closes

    code, by_default = gate_json("closure", str(clone))  # issue 14: a clone's branches are read unasked
    assert code == 1 and summary(by_default) == summary(on_original)
    assert any(
        re.match(r"read [2-9] branch tips no worktree folder has checked out", note) for note in by_default["notes"]
    )

    code, from_git = gate_json("closure", str(clone), "--from-git")
    assert code == 1
    assert summary(from_git) == summary(on_original)
    assert {r["workspace"] for r in from_git["completed_runs"]} <= set(from_git["workspaces"])
    pending = next(f for f in from_git["findings"] if f["rule"] == "coverage.pending-run")
    assert pending["path"] == f"refs/remotes/origin/analysis/idea-a/c-s1:artifacts/runs/{third}.json"

    code, both = gate_json("closure", str(quest.root), "--also-git")
    assert summary(both) == summary(on_original)
    for command in ("check", "candidates"):
        code, out = gate_json(command, str(clone), "--from-git")
        assert out["pending_run_ids"] == [third]


def test_a_run_carried_by_three_branches_is_counted_once(make_quest, gate_json) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    for name in ("idea/001-a", "run/main-001", "paper/main-001"):
        git(quest.root, "branch", name)
    code, out = gate_json("candidates", str(quest.root), "--from-git")
    assert [r["artifact_id"] for r in out["completed_runs"]] == [run] and out["pending_run_ids"] == [run]
    assert len(out["workspaces"]) == 4


def test_a_review_only_on_a_remote_tracking_branch_covers_its_runs(make_quest, tmp_path, gate_json) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    review_ws = quest.worktree("paper", "paper/main-001")
    quest.review(review_ws, [run], cards=[], reason_if_empty="nothing reusable")
    quest.checkpoint(review_ws, "review")
    git(clone, "fetch", "-q", "origin")  # refs/remotes/origin/paper/main-001, no local branch
    assert "paper/main-001" not in git(clone, "branch").stdout
    code, out = gate_json("closure", str(clone), "--from-git")
    assert code == 0 and out["pending_run_ids"] == [] and len(out["reviews"]) == 1
    code, out = gate_json("closure", str(clone), "--from-git", "--refs", "refs/heads")  # without it: pending
    assert code == 1 and out["pending_run_ids"] == [run]


@pytest.mark.slow
@pytest.mark.parametrize("how", [("--depth", "1"), ("--single-branch",), ("--depth", "1", "--no-single-branch")])
def test_a_clone_that_cannot_show_every_branch_stops_the_gate(original, tmp_path, gate_json, how) -> None:
    """Issue 14: closure (and the pre-push gate) cannot know what the missing branches hold: exit 2
    with the fetch advice; check goes on with a warning."""
    quest = original[0]
    clone = tmp_path / "partial"
    git(tmp_path, "clone", "-q", *how, f"file://{quest.root}", str(clone))
    for args in (["closure", str(clone)], ["closure", str(clone), "--from-git"]):
        done = subprocess.run([sys.executable, "-m", "ds_gate", *args], capture_output=True, text=True)
        fix = (
            "--unshallow"
            if "--depth" in how
            else "git config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*'"
        )
        assert done.returncode == 2 and "fetch-depth: 0" in done.stderr and fix in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    code, out = gate_json("check", str(clone))
    warning = next(f for f in out["findings"] if f["rule"] == "git.one-branch")
    assert warning["severity"] == "warning" and "fetch-depth: 0" in warning["hint"]
    # issue 27: the printed fix works as printed, and then the gate sees (a verdict, not exit 2)
    fix = re.search(r"\(`(git [^`]+)`", done.stderr)
    assert fix is not None, done.stderr
    followed = subprocess.run(["sh", "-c", fix.group(1)], cwd=clone, capture_output=True, text=True)
    assert followed.returncode == 0, (fix.group(1), followed.stderr)
    again = subprocess.run([sys.executable, "-m", "ds_gate", "closure", str(clone)], capture_output=True, text=True)
    assert again.returncode in (0, 1), (fix.group(1), again.stderr)


@pytest.mark.slow
def test_missing_objects_are_findings_and_stop_closure(original, tmp_path, gate_json) -> None:
    """Issue 15.13: an object the clone lacks may hold a run; check names it, closure stops (exit 2)
    as for a shallow clone rather than pass on the rest."""
    quest, (first, second, third), review = original
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))  # a local clone keeps loose objects loose
    blob = git(clone, "rev-parse", f"origin/analysis/idea-a/c-s1:artifacts/runs/{third}.json").stdout.strip()
    loose = clone / ".git" / "objects" / blob[:2] / blob[2:]
    assert loose.is_file()
    loose.unlink()  # as a partial clone would lack it
    code, out = gate_json("check", str(clone), "--from-git")
    missing = [f for f in out["findings"] if f["rule"] == "git.object-missing"]
    assert [f["path"] for f in missing] == [f"refs/remotes/origin/analysis/idea-a/c-s1:artifacts/runs/{third}.json"]
    assert "fetch" in missing[0]["hint"] and missing[0]["severity"] == "warning"
    assert third not in [r["artifact_id"] for r in out["completed_runs"]]
    for args in (["closure", str(clone), "--from-git"], ["closure", str(clone)]):
        done = subprocess.run([sys.executable, "-m", "ds_gate", *args], capture_output=True, text=True)
        assert done.returncode == 2 and f"c-s1:artifacts/runs/{third}.json" in done.stderr, done.stderr
        assert "does not pass" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_real_partial_clone_is_read_without_fetching_and_stops_closure(original, tmp_path, gate_json) -> None:
    """Issue 15.13: a real promisor clone (``--filter=blob:none``) lacks the blobs of every branch
    but the checked-out one. Asking git for one makes it reach for the remote and stop the whole
    batch; ds-gate lists the absent objects first, never asks for them, fetches nothing, and
    reports each; closure stops with the refetch advice."""
    quest, (first, second, third), review = original
    git(quest.root, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{quest.root}", str(clone))
    assert git(clone, "config", "remote.origin.promisor").stdout.strip() == "true"
    objects = sorted(p.name for p in (clone / ".git" / "objects" / "pack").iterdir())
    done = subprocess.run([sys.executable, "-m", "ds_gate", "check", str(clone)], capture_output=True, text=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    code, out = gate_json("check", str(clone))
    assert code == 0, out["findings"]
    missing = {f["path"] for f in out["findings"] if f["rule"] == "git.object-missing"}
    for run in (first, second, third):  # each branch's record blobs, named where they are
        assert any(path.endswith(f"artifacts/runs/{run}.json") for path in missing), (run, missing)
    assert sorted(p.name for p in (clone / ".git" / "objects" / "pack").iterdir()) == objects  # nothing fetched
    done = subprocess.run([sys.executable, "-m", "ds_gate", "closure", str(clone)], capture_output=True, text=True)
    assert done.returncode == 2 and "--refetch" in done.stderr and "Traceback" not in done.stderr, done.stderr
    git(
        clone, "fetch", "-q", "--refetch", "--no-filter", "origin"
    )  # the advice, followed: the gate sees every run again
    code, out = gate_json("closure", str(clone))
    assert code == 1 and out["pending_run_ids"] == [third]
    assert not [f for f in out["findings"] if f["rule"] == "git.object-missing"]


def test_a_symlinked_runs_folder_on_a_branch_fails_closure_instead_of_hiding_its_runs(
    original, tmp_path, gate_json
) -> None:
    """Issue 15.7: ``artifacts/runs`` committed as a link (to a folder inside the quest) is read
    by the folder source but is only a link in git: --from-git used to pass with 0 runs."""
    quest, (first, second, third), review = original
    slice_ws = quest.root / ".ds" / "worktrees" / "analysis-c-s1"
    os.rename(slice_ws / "artifacts" / "runs", slice_ws / "kept-runs")
    os.symlink("../kept-runs", slice_ws / "artifacts" / "runs")
    git(slice_ws, "add", "-A")
    git(slice_ws, "commit", "-q", "--no-verify", "-m", "runs behind a link")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    code, out = gate_json("closure", str(clone), "--from-git")  # the runs behind it are unseen: a stop
    assert (
        code == 2 and "[git.symlink-in-tree]" in out["error"] and "analysis/idea-a/c-s1:artifacts/runs" in out["error"]
    )
    code, out = gate_json("check", str(clone), "--from-git")  # check lists it
    linked = [f for f in out["findings"] if f["rule"] == "git.symlink-in-tree"]
    assert [(f["path"], f["severity"]) for f in linked] == [
        ("refs/remotes/origin/analysis/idea-a/c-s1:artifacts/runs", "error")
    ]


@pytest.mark.slow
def test_the_pre_push_hook_gates_a_finalization_push(original, tmp_path) -> None:
    quest, (first, second, third), review = original
    remote = add_remote(quest.root, tmp_path / "remote.git")
    for branch in ("main", "idea/001-a", "run/main-002", "analysis/idea-a/c-s1"):
        assert git(quest.root, "push", "-q", "origin", branch).returncode == 0
    assert main(["install", str(quest.root)]) == 0
    assert (quest.root / ".git" / "hooks" / "pre-push").is_file()

    paper = quest.worktree("paper-main", "paper/main-001", "idea/001-a")
    (paper / "paper").mkdir()
    (paper / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    git(paper, "add", "-A")
    git(
        paper, "commit", "-q", "--no-verify", "-m", "paper: bundle"
    )  # past the commit hook, on purpose: the push is next
    rejected = git(paper, "push", "origin", "paper/main-001", check=False)
    assert rejected.returncode != 0
    output = rejected.stdout + rejected.stderr
    assert third in output and "this push finalizes the quest: it sends paper/paper_bundle_manifest.json" in output
    assert "paper/main-001" not in git(remote, "branch").stdout

    ordinary = quest.worktree("idea-b", "idea/001-b", "main")
    ninth = quest.run(ordinary, "main-009")
    quest.checkpoint(ordinary, "record")
    assert git(ordinary, "push", "-q", "origin", "idea/001-b", check=False).returncode == 0  # never blocked

    quest.review(paper, [third], cards=[], reason_if_empty="nothing reusable")
    quest.checkpoint(paper, "review the slice")
    still = git(paper, "push", "origin", "paper/main-001", check=False)  # every branch counts: main-009 is pending
    assert still.returncode != 0 and ninth in still.stdout and third not in still.stdout.split("pending distill")[1]

    quest.review(paper, [ninth], cards=[], reason_if_empty="nothing reusable")
    quest.checkpoint(paper, "review main-009")
    pushed = git(paper, "push", "-q", "origin", "paper/main-001", check=False)
    assert pushed.returncode == 0, pushed.stdout


@pytest.mark.slow
def test_the_pytest_plugin_reads_branches_too(original, tmp_path, pytester) -> None:
    quest, (first, second, third), review = original
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    result = pytester.runpytest_subprocess(f"--ds-gate={clone}", "--ds-gate-from-git", "-rA", "-p", "no:cacheprovider")
    text = result.stdout.str()  # a quest's items are named by its folder: the clone's
    assert "FAILED quest-clone::coverage" in text and f"1 completed run(s) pending: {third}" in text
    assert f"pending: {first}" not in text


@pytest.mark.slow
def test_the_git_processes_do_not_grow_with_the_number_of_branches(original, tmp_path) -> None:
    """Not a timing: a logging ``git`` first on PATH counts the real git's invocations."""
    import os
    import shutil

    quest = original[0]
    real = shutil.which("git")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "git.log"
    (bin_dir / "git").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    (bin_dir / "git").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}

    def calls() -> int:
        log.write_text("")
        done = subprocess.run(
            [sys.executable, "-m", "ds_gate", "candidates", str(quest.root), "--from-git"],
            capture_output=True,
            text=True,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        return len(log.read_text().splitlines())

    few = calls()
    for i in range(40):
        git(quest.root, "branch", f"extra/{i}", "idea/001-a")
    assert calls() == few <= 10


@pytest.mark.slow
def test_a_finalization_push_from_a_shallow_clone_stops_with_the_fetch_advice(original, tmp_path) -> None:
    """Issue 14: the pre-push gate of a clone that cannot see every branch does not pass."""
    quest = original[0]
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(quest.root), str(remote))
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(clone))
    (clone / "paper").mkdir()
    (clone / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    tip = git(clone, "rev-parse", "HEAD").stdout.strip()
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "pre-push", "origin", str(remote)],
        cwd=clone,
        input=f"refs/heads/main {tip} refs/heads/main {'0' * 40}\n",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "fetch-depth: 0" in done.stderr and "shallow" in done.stderr, done.stderr


@pytest.mark.slow
def test_a_path_waiver_holds_locally_and_in_a_clone_and_annotations_point_where_github_can(
    original, tmp_path, gate_json
) -> None:
    """Issue 14: a waiver written from the local path of a finding waives the same finding read
    from a branch tip; a GitHub annotation names a file only when the checkout has it."""
    quest, (first, second, third), review = original
    local = f".ds/worktrees/analysis-c-s1/artifacts/runs/{third}.json"
    (quest.root / ".ds-gate.yaml").write_text(
        f"waivers:\n  - rule: coverage.pending-run\n    path: {local}\n    reason: a smoke slice\n"
    )
    quest.checkpoint(quest.root, "waiver")
    code, here = gate_json("closure", str(quest.root), "--accept-quest-waivers")  # the owner accepts it (issue 24)
    assert code == 0 and here["ok"] is True
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    for args in ([], ["--from-git"]):
        code, there = gate_json("closure", str(clone), *args, "--accept-quest-waivers")
        assert code == 0 and there["ok"] is True, args
        [pending] = [f for f in there["findings"] if f["rule"] == "coverage.pending-run"]
        assert pending["waived"] and pending["path"].endswith(f":artifacts/runs/{third}.json")
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", str(clone), "--format", "github", "--accept-quest-waivers"],
        capture_output=True,
        text=True,
        cwd=clone,
    )
    [line] = [x for x in done.stdout.splitlines() if "coverage.pending-run" in x]
    assert "file=" not in line and f"refs/remotes/origin/analysis/idea-a/c-s1:artifacts/runs/{third}.json" in line


@pytest.mark.slow
def test_the_readme_ci_recipe_works_as_written_on_a_fresh_clone(original, tmp_path) -> None:
    """Issue 14: the README's GitHub Actions steps, run as written in a fresh clone of every
    branch (what `fetch-depth: 0` gives): the pending run is found and named. Issue 15: the
    pytest step runs from an empty folder, with no conftest, and leaves no cache behind."""
    from helpers import readme_ci_steps, run_step

    quest, (first, second, third), review = original
    clone = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    (tmp_path / "runner-temp").mkdir()
    results = {step: run_step(step, clone, tmp_path / "runner-temp") for step in readme_ci_steps()}
    annotations = results["ds-gate closure --format github"]
    assert annotations.returncode == 1 and "::error" in annotations.stdout and third in annotations.stdout
    assert results["ds-gate closure --format json > ds-gate.json"].returncode == 1
    assert json.loads((clone / "ds-gate.json").read_text())["pending_run_ids"] == [third]
    [junit] = [done for step, done in results.items() if step.startswith("q=") and " pytest " in step]
    assert "--noconftest" in junit.args and "--rootdir=." in junit.args and 'cd "$(mktemp -d)"' in junit.args
    assert junit.returncode == 1, junit.stdout + junit.stderr
    assert third in (clone / "ds-gate.xml").read_text()
    assert not (clone / ".pytest_cache").exists() and len(list((tmp_path / "runner-temp").iterdir())) == 1


@pytest.mark.slow
def test_an_annotation_for_the_checked_out_branch_points_at_the_file(make_quest, tmp_path) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(quest.root), str(clone))
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", ".", "--from-git", "--format", "github"],
        capture_output=True,
        text=True,
        cwd=clone,
    )
    [line] = [x for x in done.stdout.splitlines() if "coverage.pending-run" in x]
    assert f"file=artifacts/runs/{run}.json" in line  # main is checked out: GitHub can show the file
