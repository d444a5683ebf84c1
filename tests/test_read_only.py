"""ds-gate only reads: every file of the home (its quests, .git included, and its global memory)
is unchanged by its commands."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from helpers import git

from ds_gate.cli import main


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    state = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if path.is_symlink():
                continue
            stat = path.stat()
            state[str(path.relative_to(root))] = (hashlib.sha256(path.read_bytes()).hexdigest(), stat.st_mtime_ns)
    return state


@pytest.mark.parametrize("command", ["check", "closure", "candidates", "validate", "commit-check", "commit-check-card", "lineage"])
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
    before = snapshot(home)
    assert any(name.startswith("memory/knowledge/") for name in before)
    monkeypatch.chdir(quest.root if command == "commit-check-card" else wt)
    args = {
        "validate": ["validate", f"artifacts/decisions/{review}.json"],
        "commit-check": ["commit-check"],  # a finalization commit in the worktree
        "commit-check-card": ["commit-check"],  # a staged card in the root
        "lineage": ["lineage", str(quest.root)],
    }.get(command, [command])
    assert main([*args, "--format", "json"]) in (0, 1)
    capsys.readouterr()
    assert snapshot(home) == before
