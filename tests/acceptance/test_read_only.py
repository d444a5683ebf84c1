"""ds-gate only reads: every file of the home (its quests, .git included, and its global memory)
is unchanged by its commands."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import pytest

from ds_gate.cli.main import main

from helpers import git


def snapshot(root: Path, *, leave: tuple[str, ...] = ()) -> dict[str, tuple[str, int]]:
    """Content hash and mtime of every file below ``root`` (.git included: refs, index,
    HEAD, objects), except below the relative folders in ``leave``."""
    state = {}
    for folder, _, files in os.walk(root):
        rel_folder = Path(folder).relative_to(root).as_posix()
        if any(rel_folder == x or rel_folder.startswith(f"{x}/") for x in leave):
            continue
        for name in files:
            path = Path(folder) / name
            if path.is_symlink():
                continue
            stat = path.stat()
            state[str(path.relative_to(root))] = (hashlib.sha256(path.read_bytes()).hexdigest(), stat.st_mtime_ns)
    return state


COMMANDS = [
    "check",
    "closure",
    "candidates",
    "validate",
    "commit-check",
    "commit-check-card",
    "lineage",
    "from-git",
    "recent",
    "recall",
    "install",
    "pre-push",
    "report",
]
# what a command may write: install its hooks; nothing else writes in the home (recall's cache is in the user's cache folder)
WRITES = {"install": ("quests/001/.git/hooks",)}


@pytest.mark.parametrize("command", COMMANDS)
def test_commands_leave_every_file_and_the_git_state_untouched(make_quest, home, command, monkeypatch, capsys) -> None:
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(wt, "main-001")
    quest.checkpoint(wt, "record")
    review = quest.review(wt, [run])  # also writes a global card into the home
    quest.card("quest", "Local lesson", claim="c", lineage=[{"quest": "001", "run": run}])
    (wt / "paper").mkdir()
    (wt / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    git(wt, "add", "-A")  # staged, uncommitted: commit-check reads the index
    git(quest.root, "add", "-A")  # a staged card in the root: commit-check there compares it with HEAD
    (quest.root / "brief.md").write_text("edited, not staged\n")
    leave = WRITES.get(command, ())
    before = snapshot(home, leave=leave)
    assert any(name.startswith("memory/knowledge/") for name in before)
    assert any(name.startswith("quests/001/.git/refs/") for name in before) and "quests/001/.git/index" in before
    monkeypatch.chdir(quest.root if command == "commit-check-card" else wt)
    args = {
        "validate": ["validate", f"artifacts/decisions/{review}.json"],
        "commit-check": ["commit-check"],  # a finalization commit in the worktree
        "commit-check-card": ["commit-check"],  # a staged card in the root
        "lineage": ["lineage", str(quest.root)],
        "from-git": ["closure", "--also-git"],
        "recall": ["recall", "--tags", "topic:a", "--query", "lesson", "--quest", "."],
        "pre-push": ["pre-push"],
        "report": ["report", "--home", str(home)],
    }.get(command, [command])
    if command == "pre-push":
        head = git(wt, "rev-parse", "HEAD").stdout.strip()
        monkeypatch.setattr(
            "sys.stdin", io.StringIO(f"refs/heads/idea/001-a {head} refs/heads/idea/001-a {'0' * 40}\n")
        )
    assert main([*args, "--format", "json"]) in (0, 1)
    capsys.readouterr()
    assert snapshot(home, leave=leave) == before
