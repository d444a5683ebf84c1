"""``ds-gate demo`` is the quick start: it must work and tell the story in order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import git

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)


def test_demo_rejects_then_passes_and_leaves_a_real_quest_behind(tmp_path) -> None:
    script = Path(sys.executable).parent / "ds-gate"
    done = subprocess.run([str(script), "demo", "--dir", str(tmp_path)], capture_output=True, text=True)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "Traceback" not in out + done.stderr
    assert 'the demo\'s "DeepScientist" is a stand-in' in " ".join(out.split())  # issue 39: said plainly
    rejected, closure_rejected, passed = (
        out.index(s) for s in ("the hook rejects it", "ds-gate closure: REJECTED", "ds-gate closure: PASSED")
    )
    assert rejected < closure_rejected < passed
    # issue 16: the agent's side of the loop, in order, in the encoding DeepScientist main accepts
    agent = [
        out.index(s)
        for s in (
            "ds-gate install --agent",
            "check_closure() -> rejected",
            "Unknown decision action: distill_review",
            "check_closure() -> passed",
        )
    ]
    assert agent == sorted(agent) and closure_rejected < agent[1] < passed
    # issue 25.2: with the DeepScientist integration, complete_quest refuses first and goes through last
    integration = [
        out.index(s)
        for s in (
            "artifact.complete_quest() -> ok: False, status distill_review_required",
            "check_closure() -> rejected",
            "validate_distill_review(payload) -> accepted: True",
            "check_closure() -> passed",
            "artifact.complete_quest() again -> ok: True, status completed",
        )
    ]
    assert integration == sorted(integration)
    root = tmp_path / "DeepScientist" / "quests" / "001"
    assert yaml.safe_load((root / "quest.yaml").read_text())["status"] == "completed"
    assert (root / ".codex" / "skills" / "ds-gate-distill" / "SKILL.md").is_file()
    assert list((root / ".ds/worktrees/idea-idea-dac323e6/artifacts/reports").glob("report-*.json"))
    assert out.rstrip().splitlines()[-1].startswith("the example quest is kept at")

    worktrees = git(root, "worktree", "list", "--porcelain").stdout
    assert worktrees.count("worktree ") == 4  # the root and three worktrees
    assert git(root / ".ds/worktrees/paper-main-001", "log", "-1", "--format=%s").stdout.strip() == "paper: bundle"


def test_demo_refuses_a_folder_that_already_holds_its_quest(tmp_path) -> None:
    (tmp_path / "DeepScientist" / "quests" / "001").mkdir(parents=True)
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "demo", "--dir", str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 2 and "already exists" in done.stdout


def test_demo_q_prints_the_verdict_only(tmp_path) -> None:
    """Issue 39: ``demo -q`` was accepted and printed the whole story."""
    script = Path(sys.executable).parent / "ds-gate"
    done = subprocess.run([str(script), "demo", "-q", "--dir", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "ds-gate demo: OK - the gate rejected finalization while runs were pending and passed once they were covered.",
        f"the example quest is kept at {tmp_path.resolve() / 'DeepScientist' / 'quests' / '001'}",
    ]


def test_demo_in_a_folder_whose_name_holds_a_variable_writes_there_only(tmp_path) -> None:
    """GitPython expands ``$VARS`` in a working dir and, where that is no folder, runs git in the
    process's own: ``demo --dir 'a$HOME'`` committed the example quest into the repository it was
    run from (found when an adversary's quest path held ``$HOME``)."""
    around = tmp_path / "around"
    around.mkdir()
    git(around, "init", "-q")
    folder = tmp_path / "a$HOME;#"
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "demo", "-q", "--dir", str(folder)],
        capture_output=True,
        text=True,
        cwd=around,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(around, "rev-list", "--all").stdout == ""  # old: the demo's commits landed here
    quest = folder / "DeepScientist" / "quests" / "001"
    assert git(quest, "rev-parse", "--show-toplevel").stdout.strip() == str(quest.resolve())
