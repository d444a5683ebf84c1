"""Issue 39, ``doctor`` in CI weighs its checks by what ``closure`` will do (adversary break 02): on
main, in a CI clone whose ``closure`` stops (exit 2) on a committed ``artifacts`` link out of the
quest, a missing git object, an ``objects/info/alternates`` file or a ``.ds/worktrees/<x>`` link
out, ``doctor --ci`` said "OK - 0 failed checks". Now doctor runs closure's own steps and fails
with closure's cause and fix exactly when closure stops.

Each case is a real quest, cloned as CI clones it (every branch, ``git clone`` then the refspec
of every branch and a fetch); every command runs in process.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from test_ci_stops import STOPS, _on_a_branch, object_missing

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest

from helpers import git


def ci_clone(quest: ExampleQuest, tmp: Path) -> Path:
    """The quest as a CI job checks it out: a full clone with every branch (``fetch-depth: 0``)."""
    clone = tmp / "ci"
    git(tmp, "clone", "-q", "--no-local", str(quest.root), str(clone))
    git(clone, "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*")
    git(clone, "fetch", "-q", "origin")
    return clone


def artifacts_link_committed(quest: ExampleQuest, tmp: Path) -> Path:
    """The quest commits ``artifacts`` as a link to a folder outside it (the reproducer's case)."""
    (tmp / "out").mkdir()
    git(quest.root, "rm", "-rq", "--ignore-unmatch", "artifacts")
    shutil.rmtree(quest.root / "artifacts", ignore_errors=True)
    os.symlink(tmp / "out", quest.root / "artifacts")
    git(quest.root, "add", "artifacts")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "link")
    return ci_clone(quest, tmp)


def git_object_missing(quest: ExampleQuest, tmp: Path) -> Path:
    """A CI clone that lacks the blob of a run record on a branch."""
    return object_missing(quest, tmp, pytest.MonkeyPatch())


def alternates_file(quest: ExampleQuest, tmp: Path) -> Path:
    """A CI clone whose ``objects/info/alternates`` borrows objects from a folder outside it
    (a runner's ``--reference`` cache)."""
    clone = ci_clone(quest, tmp)
    (clone / ".git" / "objects" / "info" / "alternates").write_text(f"{quest.root / '.git' / 'objects'}\n")
    return clone


def worktree_link_out(quest: ExampleQuest, tmp: Path) -> Path:
    """The quest commits ``.ds/worktrees/<x>`` as a link to a folder outside it."""
    (tmp / "far").mkdir()
    (quest.root / ".ds" / "worktrees").mkdir(parents=True, exist_ok=True)
    os.symlink(tmp / "far", quest.root / ".ds" / "worktrees" / "idea-far")
    git(quest.root, "add", "-f", ".ds/worktrees/idea-far")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "worktree link")
    return ci_clone(quest, tmp)


CASES: dict[str, Callable[[ExampleQuest, Path], Path]] = {
    "artifacts committed as a link out": artifacts_link_committed,
    "git object missing": git_object_missing,
    "objects/info/alternates": alternates_file,
    ".ds/worktrees/<x> linked out": worktree_link_out,
}


def closure(target: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = main(["closure", str(target), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def doctor(target: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, dict[str, dict[str, str]]]:
    code = main(["doctor", str(target), *flags, "--format", "json"])
    out = capsys.readouterr().out
    return code, {check["name"]: check for check in json.loads(out)["checks"]} if out else {}


@pytest.mark.parametrize("case", list(CASES))
def test_doctor_in_ci_fails_with_closures_cause_and_fix_where_closure_stops(
    make_quest, tmp_path, monkeypatch, capsys, case
) -> None:
    quest = make_quest()
    _on_a_branch(quest)
    (tmp_path / "clean").mkdir()
    clean = ci_clone(quest, tmp_path / "clean")  # the same quest, cloned before the break
    clean_closure, (clean_doctor, clean_checks) = closure(clean, capsys)[0], doctor(clean, capsys, "--ci")

    target = CASES[case](quest, tmp_path)
    code, stop = closure(target, capsys)
    assert code == 2, stop
    code, checks = doctor(target, capsys, "--ci")
    assert code == 1, checks  # main: 0, "OK - 0 failed checks"
    assert clean_closure != 2 and clean_doctor == 0 and clean_checks["closure"]["status"] == "ok", clean_checks
    check, fix = checks["closure"], str(stop["fix"])
    assert check["status"] == "fail" and check["fix"] == fix and fix
    cause, error = check["message"].removeprefix("closure stops here (exit 2): "), str(stop["error"])
    assert error.startswith(f"ds-gate: {cause}") and error.endswith(fix) and len(cause) + len(fix) < len(error)

    monkeypatch.setenv("CI", "true")  # what GitHub Actions and GitLab set: no flag needed
    assert doctor(target, capsys) == (code, checks)
    assert doctor(target, capsys, "--no-ci")[1].get("closure") is None  # a developer's machine: not asked


@pytest.mark.parametrize("stop", list(STOPS))
def test_doctor_in_ci_fails_whenever_closure_stops_on_each_stop_class(
    make_quest, tmp_path, monkeypatch, capsys, stop
) -> None:
    """Over every stop class the stop tests build (``test_ci_stops.STOPS``): closure stops, so
    doctor --ci does not pass; where doctor gets as far as its checks, one carries closure's fix."""
    quest = make_quest()
    _on_a_branch(quest)
    target = STOPS[stop](quest, tmp_path, monkeypatch)
    code, said = closure(target, capsys)
    assert code == 2
    doctor_code = main(["doctor", str(target), "--ci", "--format", "json"])
    out = capsys.readouterr().out
    assert doctor_code != 0, out
    if doctor_code == 1:
        failed = [c for c in json.loads(out)["checks"] if c["status"] == "fail"]
        assert any(c["name"] == "closure" and c["fix"] == said["fix"] for c in failed), (said, failed)
    else:  # doctor stops before its checks, as closure did (a repository that is no quest)
        assert doctor_code == 2 and json.loads(out)["fix"] == said["fix"]
