"""Issue 18.4: ``ds-gate install --template`` guards quests created afterwards with ``git init``;
real git, with a user git configuration and data folder of this test's own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest

from helpers import commit, git, head_subject

MANIFEST = "paper/paper_bundle_manifest.json"


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user of this test's own: its global git configuration (a copy of the session's) and data folder."""
    import os

    config = tmp_path / "user" / ".gitconfig"
    config.parent.mkdir()
    shutil.copy(os.environ["GIT_CONFIG_GLOBAL"], config)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("HOME", str(config.parent))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("GIT_TEMPLATE_DIR", raising=False)
    return config.parent


def doctor_checks(gate_json, path: Path) -> dict[str, dict[str, str]]:
    return {c["name"]: c for c in gate_json("doctor", str(path))[1]["checks"]}


@pytest.mark.slow
def test_the_template_opt_in_guards_a_quest_created_afterwards(user, home, gate_json, capsys) -> None:
    before = ExampleQuest(home / "quests" / "000", "000").create()
    assert "init.templateDir is unset" in doctor_checks(gate_json, before.root)["new quests"]["message"]
    assert main(["install", "--template"]) == 0
    out = capsys.readouterr().out
    folder = user / ".local" / "share" / "ds-gate" / "git-template"
    said = out.replace("\n  ", " ")  # wrapped notes, read as one line each
    assert (
        f"changed your global git configuration: git config --global init.templateDir {folder} (it was unset)" in said
    )
    assert "to undo: git config --global --unset init.templateDir" in said
    assert git(user, "config", "--global", "--get", "init.templateDir").stdout.strip() == str(folder)
    assert sorted(p.name for p in (folder / "hooks").iterdir()) == ["pre-commit", "pre-merge-commit", "pre-push"]
    assert not (before.root / ".git" / "hooks" / "pre-commit").exists()  # existing quests are unchanged

    quest = ExampleQuest(home / "quests" / "001", "001").create()  # git init, as DeepScientist creates quests
    hook = quest.root / ".git" / "hooks" / "pre-commit"
    assert hook.is_file() and "ds-gate-managed-hook" in hook.read_text()
    checks = doctor_checks(gate_json, quest.root)
    assert checks["hook"]["status"] == "ok" and checks["new quests"]["status"] == "ok"
    assert f"new quests get ds-gate's hook from {folder}" in checks["new quests"]["message"]

    run = quest.run(quest.root, "main-001")
    assert commit(quest.root, "experiment: record main-001").returncode == 0  # an ordinary checkpoint passes
    (quest.root / "paper").mkdir()
    (quest.root / MANIFEST).write_text('{"package_type": "paper_draft_checkpoint"}\n')
    rejected = commit(quest.root, "paper: bundle")
    assert rejected.returncode == 1 and head_subject(quest.root) == "experiment: record main-001"
    assert run in rejected.stdout + rejected.stderr
    quest.review(quest.root, [run])
    accepted = commit(quest.root, "paper: bundle")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr

    plain = user / "not-a-quest"  # every new repository gets the hook: one that is no quest commits as before
    git(user, "init", "-q", str(plain))
    (plain / "notes.txt").write_text("x\n")
    done = commit(plain, "notes")
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr


def test_a_template_folder_of_the_users_own_is_not_replaced_unless_forced(
    user, tmp_path, gate_json, capsys, make_quest
) -> None:
    own = tmp_path / "my-template"
    (own / "hooks").mkdir(parents=True)
    git(user, "config", "--global", "init.templateDir", str(own))
    assert main(["install", "--template", "--format", "json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert f"already sets init.templateDir = {own}" in error and "--force" in error
    assert git(user, "config", "--global", "--get", "init.templateDir").stdout.strip() == str(own)
    quest = make_quest()
    checks = doctor_checks(gate_json, quest.root)
    assert "holds no ds-gate hook" in checks["new quests"]["message"] and "--force" in checks["new quests"]["fix"]
    assert main(["install", "--template", "--force", "--format", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert (
        any(f"(it was {own})" in n for n in notes) and f"to undo: git config --global init.templateDir {own}" in notes
    )
    assert main(["install", "--force"]) == 2  # --force alone says what it goes with
    assert "--force goes with --template" in capsys.readouterr().err


def test_a_template_whose_python_is_gone_is_a_warning(user, gate_json, capsys, make_quest) -> None:
    assert main(["install", "--template", "-q"]) == 0
    capsys.readouterr()
    hook = user / ".local" / "share" / "ds-gate" / "git-template" / "hooks" / "pre-commit"
    hook.write_text(
        "\n".join(
            "DS_GATE_PYTHON='/nowhere/bin/python3'" if line.startswith("DS_GATE_PYTHON=") else line
            for line in hook.read_text().splitlines()
        )
        + "\n"
    )
    quest = make_quest()
    check = doctor_checks(gate_json, quest.root)["new quests"]
    assert check["status"] == "warn" and "/nowhere/bin/python3" in check["message"]
    assert check["fix"] == "ds-gate install --template"
