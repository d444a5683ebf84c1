"""Issue 39, CI output: a stop (exit 2) prints in the chosen format, for every stop class of
docs/fail-closed.md (and the code's: a quest.yaml that hides the toggle, a repository that is no
quest). On main ``closure --format sarif > x.sarif`` on a shallow clone left a 0-byte file, and
``--format github`` and ``--format markdown`` printed nothing.

Each class is built as it happens, on a real quest; each format is then run in process.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest

from helpers import git, pytest_ds_gate

SARIF_SCHEMA = json.loads((Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json").read_text())


def _on_a_branch(quest: ExampleQuest) -> None:
    idea = quest.worktree("idea-a", "idea/001-a")
    quest.run(idea, "main-001")
    quest.checkpoint(idea, "experiment: main-001")


def shallow(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    git(tmp, "clone", "-q", "--depth", "1", f"file://{quest.root}", str(tmp / "ci"))
    return tmp / "ci"


def one_branch(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    git(tmp, "clone", "-q", "--single-branch", f"file://{quest.root}", str(tmp / "ci"))
    return tmp / "ci"


def alternates(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    git(tmp, "clone", "-q", "--shared", str(quest.root), str(tmp / "ci"))
    return tmp / "ci"


def config_inside(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    (quest.root / "trusted.yaml").write_text("require: false\n")
    mp.setenv("DS_GATE_CONFIG", str(quest.root / "trusted.yaml"))
    return quest.root


def object_missing(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    clone = tmp / "ci"
    git(tmp, "clone", "-q", "--no-local", str(quest.root), str(clone))
    git(clone, "repack", "-q", "-a", "-d")  # every object in one pack: unpack all but one run record
    blob = git(clone, "rev-parse", "refs/remotes/origin/idea/001-a:artifacts/runs").stdout.strip()
    name = git(clone, "ls-tree", "--name-only", blob).stdout.split()[0]
    victim = git(clone, "rev-parse", f"refs/remotes/origin/idea/001-a:artifacts/runs/{name}").stdout.strip()
    for pack in (clone / ".git" / "objects" / "pack").glob("*.pack"):
        moved = tmp / pack.name
        shutil.move(pack, moved)
        (pack.with_suffix(".idx")).unlink()
        with moved.open("rb") as data:
            git_unpack(clone, data.read())
    (clone / ".git" / "objects" / victim[:2] / victim[2:]).unlink()
    return clone


def git_unpack(repo: Path, pack: bytes) -> None:
    import subprocess

    subprocess.run(["git", "unpack-objects", "-q"], cwd=repo, input=pack, check=True)


def link_in_tree(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    idea = quest.root / ".ds" / "worktrees" / "idea-b"
    git(quest.root, "worktree", "add", "-q", "-b", "idea/001-b", str(idea))
    (idea / "elsewhere").mkdir()
    (idea / "artifacts").mkdir(exist_ok=True)
    os.symlink("../elsewhere", idea / "artifacts" / "runs")
    git(idea, "add", "-A")
    git(idea, "commit", "-q", "--no-verify", "-m", "link")
    git(quest.root, "worktree", "remove", "--force", str(idea))
    return quest.root


def worktree_outside(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    git(quest.root, "worktree", "add", "-q", "-b", "idea/outside", str(tmp / "outside-wt"))
    return quest.root


def records_linked_out(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    outside = tmp / "elsewhere" / "runs"
    outside.mkdir(parents=True)
    shutil.rmtree(quest.root / "artifacts" / "runs", ignore_errors=True)
    os.symlink(outside, quest.root / "artifacts" / "runs")
    return quest.root


def research_state_outside(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    (tmp / "far").mkdir()
    (quest.root / ".ds" / "research_state.json").write_text(
        json.dumps({"research_head_worktree_root": str(tmp / "far")})
    )
    return quest.root


def not_a_quest(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    lab = tmp / "lab"
    lab.mkdir()
    git(lab, "init", "-q")
    git(lab, "commit", "-q", "--allow-empty", "-m", "start")
    return lab


def quest_yaml_invalid(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    (quest.root / "quest.yaml").write_text("quest_id: 001\nstartup_contract: [unclosed\n")
    return quest.root


def git_missing(quest: ExampleQuest, tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    (tmp / "no-git-bin").mkdir()
    mp.setenv("PATH", str(tmp / "no-git-bin"))
    return quest.root


STOPS: dict[str, Callable[[ExampleQuest, Path, pytest.MonkeyPatch], Path]] = {
    "shallow clone": shallow,
    "single-branch clone": one_branch,
    "objects borrowed from outside": alternates,
    "trusted configuration inside the quest": config_inside,
    "git object missing": object_missing,
    "link committed where runs live": link_in_tree,
    "worktree outside the quest": worktree_outside,
    "record folder linked out": records_linked_out,
    "research_head_worktree_root outside": research_state_outside,
    "repository that is no quest": not_a_quest,
    "quest.yaml that hides the toggle": quest_yaml_invalid,
    "git missing": git_missing,
}


@pytest.mark.parametrize("stop", list(STOPS))
def test_a_stop_prints_in_every_format(make_quest, tmp_path, monkeypatch, capsys, stop) -> None:
    quest = make_quest()
    _on_a_branch(quest)
    target = STOPS[stop](quest, tmp_path, monkeypatch)

    assert main(["closure", str(target)]) == 2  # text: one line on stderr, nothing on stdout
    text = capsys.readouterr()
    assert text.out == "" and len(text.err.strip().splitlines()) == 1, text
    line = text.err.strip()

    assert main(["closure", str(target), "--format", "json"]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and data["exit_code"] == 2 and data["error"] == line
    fix = data["fix"]
    assert fix and fix in line and len(fix) < len(line), (stop, line)

    report = tmp_path / "x.sarif"
    assert main(["closure", str(target), "--format", "sarif", "--output", str(report)]) == 2
    assert capsys.readouterr().err.strip() == line  # the CI log still says why
    log = json.loads(report.read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    [invocation] = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"] == line and note["properties"]["fix"] == fix

    assert main(["closure", str(target), "--format", "github"]) == 2
    [annotation] = capsys.readouterr().out.splitlines()
    assert annotation.startswith("::error title=ds-gate closure%3A stopped (exit 2)::")
    assert "%0Afix: " in annotation

    assert main(["closure", str(target), "--format", "markdown"]) == 2
    page = capsys.readouterr().out
    rows = [row for row in page.splitlines() if row.startswith("| ") and "unreadable" in row]
    assert len(rows) == 1 and rows[0].startswith(f"| {target.name} |"), page
    assert "\n- fix: " in page and "\n- cannot read: " in page


def test_a_stop_before_the_quest_is_read_and_a_usage_error_keep_the_format(tmp_path, capsys) -> None:
    """A stop the arguments cause is said in the chosen format too, and a format the command does
    not offer is refused in text (never a SARIF file for ``recall``)."""
    assert main(["closure", str(tmp_path / "nowhere"), "--format", "sarif"]) == 2
    log = json.loads(capsys.readouterr().out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    assert "no such file" in log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    assert main(["closure", "--no-such-flag", "--format", "github"]) == 2
    assert capsys.readouterr().out.startswith("::error ")
    assert main(["recall", "--format", "sarif"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "--format sarif is not offered by recall" in captured.err


@pytest.mark.slow
def test_junit_fails_each_stopped_quest_with_its_message_and_fix(make_quest, tmp_path, monkeypatch, capsys) -> None:
    """``pytest --ds-gate --junitxml``: a stopped quest's items fail, the message and the fix (as
    the JUnit ``<failure>``) those of ``closure``; the hint is the stop's fix, not "point --ds-gate at"."""
    import xml.etree.ElementTree as ET

    expected = {}
    for n, (stop, build) in enumerate(STOPS.items()):
        if build in (config_inside, git_missing):  # their environment is the process's: said by the test above
            continue
        quest = make_quest(f"{n:03d}")
        _on_a_branch(quest)
        (tmp_path / str(n)).mkdir()
        target = build(quest, tmp_path / str(n), monkeypatch)
        assert main(["closure", str(target), "--format", "json"]) == 2
        expected[stop] = (target, json.loads(capsys.readouterr().out)["fix"])
    empty = tmp_path / "run"
    empty.mkdir()
    xml = tmp_path / "ds-gate.xml"
    done = pytest_ds_gate(empty, [target for target, _ in expected.values()], xml)
    assert done.returncode == 1, done.stdout + done.stderr
    failures = [case.find("failure") for case in ET.parse(xml).getroot().iter("testcase")]
    texts = [f.text or "" for f in failures if f is not None]
    for stop, (target, fix) in expected.items():
        mine = [t for t in texts if t.startswith(f"{target}: error [input.unreadable]")]
        assert mine and all(f"hint: {fix}" in t for t in mine), (stop, fix, texts)
