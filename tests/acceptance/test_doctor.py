"""Issue 18.3: ``ds-gate doctor`` reports each bad case on a quest that has it, all ok on a
healthy one; real git, real worktrees, the real pre-commit tool."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ds_gate.cli.main import main

from helpers import REPO, git


def pre_commit(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "pre-commit"), *args], cwd=cwd, capture_output=True, text=True
    )


def local_config() -> str:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    return yaml.safe_dump(
        {"repos": [{"repo": "local", "hooks": [dict(h, language="system") for h in hooks]}]}, sort_keys=False
    )


def statuses(gate_json, *argv: str) -> tuple[int, dict[str, tuple[str, str, str | None]]]:
    code, out = gate_json("doctor", *argv)
    return code, {c["name"]: (c["status"], c["message"], c["fix"]) for c in out["checks"]}


@pytest.fixture
def guarded(make_quest, home, capsys):
    (home / "memory").mkdir()
    quest = make_quest()
    quest.worktree("idea-a", "idea/001-a")
    assert main(["install", str(quest.root), "-q"]) == 0
    capsys.readouterr()
    return quest


def test_a_healthy_quest_is_all_ok(guarded, gate_json, capsys) -> None:
    code, checks = statuses(gate_json, str(guarded.root))
    assert code == 0, checks
    assert {name: status for name, (status, _, _) in checks.items() if status != "ok"} == {}
    assert {"hook", "worktrees", "clone", "home", "experience_distill", "review encoding"} <= set(checks)
    assert "$DEEPSCIENTIST_HOME" in checks["home"][1]
    assert main(["doctor", str(guarded.root)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "ds-gate doctor: OK - 0 failed checks, 0 warnings"
    assert all(line.startswith(("ok ", "ds-gate doctor", "")) for line in out.splitlines())


def test_no_hook_and_a_hook_whose_python_is_gone_fail_with_the_fix(make_quest, gate_json, capsys) -> None:
    quest = make_quest()
    code, checks = statuses(gate_json, str(quest.root))
    assert code == 1 and checks["hook"][0] == "fail" and "ds-gate install" in checks["hook"][2]
    assert main(["install", str(quest.root), "-q"]) == 0
    capsys.readouterr()
    hook = quest.root / ".git" / "hooks" / "pre-commit"
    text = hook.read_text()
    hook.write_text(
        "\n".join(
            "DS_GATE_PYTHON='/nowhere/venv/bin/python3'" if line.startswith("DS_GATE_PYTHON=") else line
            for line in text.splitlines()
        )
        + "\n"
    )
    code, checks = statuses(gate_json, str(quest.root))
    assert code == 1 and checks["hook"][0] == "fail" and "/nowhere/venv/bin/python3" in checks["hook"][1]
    # a hook from before the sys.path fix (`python -m ds_gate` in the worktree): a fail, and reinstalling heals it
    assert main(["install", str(quest.root), "-q"]) == 0
    hook.write_text(
        hook.read_text().replace(
            """-c 'import sys; sys.argv[0] = "ds-gate"; sys.path[:] = [p for p in """
            """sys.path if p]; import ds_gate.__main__'""",
            "-m ds_gate",
        )
    )
    assert '"$DS_GATE_PYTHON" -m ds_gate commit-check' in hook.read_text()
    capsys.readouterr()
    code, checks = statuses(gate_json, str(quest.root))
    assert code == 1 and checks["hook"][0] == "fail" and "sys.path" in checks["hook"][1]
    assert main(["install", str(quest.root), "-q"]) == 0
    capsys.readouterr()
    code, checks = statuses(gate_json, str(quest.root))
    assert checks["hook"][0] == "ok"


@pytest.mark.slow
def test_the_framework_on_a_branch_made_before_its_config_and_both_setups_at_once(
    make_quest, gate_json, capsys
) -> None:
    quest = make_quest()
    quest.worktree("idea-a", "idea/001-a")  # made before the config was committed
    (quest.root / ".pre-commit-config.yaml").write_text(local_config())
    quest.checkpoint(quest.root, "pre-commit config")
    assert pre_commit(quest.root, "install").returncode == 0
    code, checks = statuses(gate_json, str(quest.root))
    assert code == 1 and checks["pre-commit config"][0] == "fail"
    assert "idea/001-a" in checks["pre-commit config"][1] and "main" not in checks["pre-commit config"][1].split(":")[1]
    assert "ds-gate install" in checks["pre-commit config"][2]
    failing = subprocess.run(
        ["git", "commit", "--allow-empty", "-m", "x"],
        cwd=quest.root / ".ds/worktrees/idea-a",
        capture_output=True,
        text=True,
    )
    assert failing.returncode != 0 and "No .pre-commit-config.yaml file was found" in failing.stdout + failing.stderr
    assert main(["install", str(quest.root), "-q"]) == 0  # ds-gate's hook chains the framework's
    capsys.readouterr()
    code, checks = statuses(gate_json, str(quest.root))
    assert checks["setups"][0] == "warn" and "twice" in checks["setups"][1]


def test_a_moved_worktree_a_shallow_clone_and_a_toggle_spelt_off(guarded, gate_json, tmp_path) -> None:
    shutil.move(str(guarded.root / ".ds/worktrees/idea-a"), str(tmp_path / "idea-a-moved"))
    code, checks = statuses(gate_json, str(guarded.root))
    assert code == 1 and checks["worktrees"][0] == "fail" and "worktree repair" in checks["worktrees"][2]
    shutil.move(str(tmp_path / "idea-a-moved"), str(guarded.root / ".ds/worktrees/idea-a"))
    guarded.write_quest_yaml(startup_contract={"experience_distill": "enabled"})
    code, checks = statuses(gate_json, str(guarded.root))
    assert code == 0 and checks["experience_distill"][0] == "warn" and "enabled" in checks["experience_distill"][1]
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", guarded.root.as_uri(), str(clone))
    code, checks = statuses(gate_json, str(clone))
    assert checks["clone"][0] == "warn" and "shallow" in checks["clone"][1] and "--unshallow" in checks["clone"][2]


def test_the_review_encoding_follows_the_quests_configuration(guarded, gate_json, capsys) -> None:
    _, checks = statuses(gate_json, str(guarded.root))
    assert "report(report_type='distill_review')" in checks["review encoding"][1]
    (guarded.root / ".ds-gate.yaml").write_text("decision_actions: [distill_review]\n")
    _, checks = statuses(gate_json, str(guarded.root))
    assert "decision(action='distill_review')" in checks["review encoding"][1]
    assert main(["doctor", str(guarded.root), "--format", "github"]) == 2  # checks, not findings


@pytest.mark.slow
def test_the_framework_installed_with_allow_missing_config_fails_with_the_fix(
    make_quest, gate_json, capsys, monkeypatch
) -> None:
    """Issue 18.2: `pre-commit install --allow-missing-config` lets a finalization commit on a
    branch made before the config (DeepScientist makes them all the time) pass ungated."""
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")  # made before the config was committed
    (quest.root / ".pre-commit-config.yaml").write_text(local_config())
    quest.checkpoint(quest.root, "pre-commit config")
    assert pre_commit(quest.root, "install", "--allow-missing-config").returncode == 0
    quest.run(idea, "main-001")
    (idea / "paper").mkdir()
    (idea / "paper/paper_bundle_manifest.json").write_text("{}\n")
    git(idea, "add", "-A")
    ungated = git(idea, "commit", "-q", "-m", "paper: bundle", check=False)  # a pending run, and it passes
    assert ungated.returncode == 0 and "config file not found. Skipping" in ungated.stdout + ungated.stderr
    code, checks = statuses(gate_json, str(quest.root))
    status, message, fix = checks["missing config"]
    assert code == 1 and status == "fail" and "--allow-missing-config" in message and "ungated" in message
    assert (
        fix.startswith("for an agent-driven quest use the plain hook: ds-gate install") and "pre-commit install)" in fix
    )
    assert "missing config (environment)" not in checks
    monkeypatch.setenv("PRE_COMMIT_ALLOW_NO_CONFIG", "1")
    assert statuses(gate_json, str(quest.root))[1]["missing config (environment)"][0] == "warn"
    monkeypatch.delenv("PRE_COMMIT_ALLOW_NO_CONFIG")
    assert main(["install", str(quest.root), "-q"]) == 0  # ds-gate's hook chains the framework's and gates after it
    capsys.readouterr()
    assert "missing config" not in statuses(gate_json, str(quest.root))[1]


@pytest.mark.slow
def test_a_framework_config_listing_the_push_gate_without_its_hook_fails(make_quest, gate_json) -> None:
    """Issue 27: `pre-commit install` alone installs the pre-commit stage only, so a config that
    lists ds-gate-pre-push left finalization pushes ungated while doctor said ok."""
    quest = make_quest()
    (quest.root / ".pre-commit-config.yaml").write_text(local_config())
    quest.checkpoint(quest.root, "pre-commit config")
    assert pre_commit(quest.root, "install").returncode == 0
    code, checks = statuses(gate_json, str(quest.root))
    status, message, fix = checks["pre-push hook"]
    assert (
        code == 1
        and status == "fail"
        and "ds-gate-pre-push" in message
        and "pre-commit install --hook-type pre-push" in fix
    )
    assert pre_commit(quest.root, "install", "--hook-type", "pre-push").returncode == 0  # the fix, as printed
    assert "pre-push hook" not in statuses(gate_json, str(quest.root))[1]


def test_a_toggle_the_quest_does_not_set_is_said_so(make_quest, gate_json) -> None:
    """Issue 27: `recall_priors is off (None)` read like a value the quest wrote; it wrote none."""
    quest = make_quest()
    status, message, _ = statuses(gate_json, str(quest.root))[1]["recall_priors"]
    assert status == "ok" and message == "recall_priors is off (not set)"


def test_git_missing_from_path_is_said_as_closure_says_it(guarded, gate_json, tmp_path, monkeypatch, capsys) -> None:
    """Issue 39: with git off PATH doctor said "is not a git repository"; closure says git is not installed."""
    empty = tmp_path / "no-git-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert main(["closure", str(guarded.root)]) == 2
    stop = capsys.readouterr().err
    code, checks = statuses(gate_json, str(guarded.root))
    status, message, fix = checks["git"]
    assert code == 1 and status == "fail"
    assert (
        "not a git repository" not in message and "git is not installed" in message and "git is not installed" in stop
    )
    assert fix is not None and fix in stop  # the same fix, from the same place
    monkeypatch.undo()
    copy = tmp_path / "copied" / "001"  # a copy without .git still is "not a git repository"
    shutil.copytree(guarded.root, copy, ignore=shutil.ignore_patterns(".git"))
    code, checks = statuses(gate_json, str(copy))
    assert checks["git"][0] == "fail" and "is not a git repository" in checks["git"][1]
