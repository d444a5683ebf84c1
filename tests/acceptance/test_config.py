"""Issue 18.7: defaults in a quest's configuration (``.ds-gate.yaml``, ``[tool.ds-gate]`` in
its ``pyproject.toml``) and, since issue 24, in the trusted configuration outside the quest:
each key sets its default where it may (a quest's own only where it makes the gate
stricter), a flag wins, an unknown key is an error and sets nothing, and ``doctor`` shows
what applies. Real git, through ``main([...])``."""

from __future__ import annotations

import json

import pytest

from ds_gate.cli.main import main
from ds_gate.config.quest import parse_pyproject

from helpers import git


@pytest.fixture
def off_quest(make_quest):
    """experience_distill off, one pending run in the root: closure passes unless required."""
    quest = make_quest(experience_distill="off")
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    return quest, run


def configure(quest, text: str, name: str = ".ds-gate.yaml") -> None:
    (quest.root / name).write_text(text)


def test_require_in_the_configuration_enforces_the_gate_and_no_require_wins(off_quest, gate_json) -> None:
    quest, run = off_quest
    assert gate_json("closure", str(quest.root))[0] == 0
    configure(quest, "require: true\n")
    code, out = gate_json("closure", str(quest.root))
    assert code == 1 and out["enforced"] is True and out["pending_run_ids"] == [run]
    code, out = gate_json("closure", str(quest.root), "--no-require")
    assert code == 0 and out["enforced"] is False


def test_format_in_the_configuration_and_format_on_the_command_line(off_quest, capsys) -> None:
    quest, _ = off_quest
    configure(quest, "format: json\n")
    assert main(["check", str(quest.root)]) == 0
    assert json.loads(capsys.readouterr().out)["command"] == "check"
    assert main(["check", str(quest.root), "--format", "text"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("ds-gate check: OK")
    configure(quest, "format: nosuchformat\n")
    assert main(["check", str(quest.root)]) == 2
    assert "nosuchformat" in capsys.readouterr().err


def trusted(monkeypatch, tmp_path, text: str):
    path = tmp_path / "user-config.yaml"  # outside the quest: the user's own
    path.write_text(text)
    monkeypatch.setenv("DS_GATE_CONFIG", str(path))
    return path


def test_source_and_refs_in_the_configuration_and_the_flags_that_win(
    make_quest, gate_json, tmp_path, monkeypatch
) -> None:
    """Issue 24 changed this: the quest's own ``source``/``refs`` read less, so no command
    applies them (a note says so); the trusted configuration's do, and a flag still wins."""
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(idea, "main-001")
    quest.checkpoint(idea, "record")
    git(quest.root, "worktree", "remove", str(idea))  # the run now lives on a branch tip no folder has
    assert gate_json("candidates", str(quest.root))[1]["pending_run_ids"] == [run]  # auto reads the tip
    configure(quest, "source: folders\n")
    code, out = gate_json("candidates", str(quest.root))
    assert out["pending_run_ids"] == [run] and any(
        n.startswith("source: folders in .ds-gate.yaml is not applied") for n in out["notes"]
    )
    trusted(monkeypatch, tmp_path, "source: folders\n")
    assert gate_json("candidates", str(quest.root))[1]["pending_run_ids"] == []
    assert gate_json("candidates", str(quest.root), "--also-git")[1]["pending_run_ids"] == [run]
    trusted(monkeypatch, tmp_path, "source: git\nrefs: [refs/heads/main]\n")
    assert gate_json("candidates", str(quest.root))[1]["pending_run_ids"] == []
    assert gate_json("candidates", str(quest.root), "--refs", "refs/heads")[1]["pending_run_ids"] == [run]
    code, out = gate_json("recent", str(quest.root), "--kind", "run")
    assert out["request"]["source"] == "git" and out["results"] == []
    code, out = gate_json("recent", str(quest.root), "--kind", "run", "--from-git", "--refs", "refs/heads")
    assert [r["artifact_id"] for r in out["results"]] == [run]
    monkeypatch.delenv("DS_GATE_CONFIG")
    configure(quest, "source: git\nrefs: [refs/heads/main]\n")  # the quest's own: recent reads every branch
    code, out = gate_json("recent", str(quest.root), "--kind", "run")
    assert out["request"]["source"] == "auto" and [r["artifact_id"] for r in out["results"]] == [run]


def test_home_in_the_configuration_yields_to_the_flag_and_the_environment(
    off_quest, gate_json, tmp_path, monkeypatch
) -> None:
    """The trusted configuration's home (relative to that file); a quest's own is never applied."""
    quest, run = off_quest
    quest.review(
        quest.root,
        [run],
        encoding="report",  # names a global card: the home is read
        cards=[{"card_id": "k-1", "scope": "global", "action": "new", "target_run_id": run}],
    )
    other = tmp_path / "other-home"
    (other / "memory").mkdir(parents=True)
    trusted(monkeypatch, tmp_path, "home: other-home\n")  # relative to the configuration file
    monkeypatch.delenv("DEEPSCIENTIST_HOME")
    assert gate_json("check", str(quest.root))[1]["home"] == str(other)
    flag, variable = tmp_path / "flag-home", tmp_path / "variable-home"
    (flag / "memory").mkdir(parents=True)
    (variable / "memory").mkdir(parents=True)
    assert gate_json("check", str(quest.root), "--home", str(flag))[1]["home"] == str(flag)
    monkeypatch.setenv("DS_HOME", str(variable))
    assert gate_json("check", str(quest.root))[1]["home"] == str(variable)


def test_an_unknown_key_is_an_error_and_sets_no_default(off_quest, gate_json) -> None:
    quest, _ = off_quest
    configure(quest, "require: true\nrequre: true\n")
    code, out = gate_json("check", str(quest.root))
    [invalid] = [f for f in out["findings"] if f["rule"] == "waiver.invalid"]
    assert code == 1 and out["enforced"] is False and "requre" in invalid["message"]  # no default applies
    code, out = gate_json("closure", str(quest.root))  # the gate that would pass stops instead, as for quest.yaml
    assert code == 2 and out["ok"] is False and "requre" in out["error"] and "does not pass" in out["error"]
    configure(quest, "require: yes-please\n")
    code, out = gate_json("check", str(quest.root))
    assert code == 1 and [f["pointer"] for f in out["findings"] if f["rule"] == "waiver.invalid"] == ["/require"]


def test_the_pyproject_table_sets_defaults_and_its_problems_are_findings(off_quest, gate_json, tmp_path) -> None:
    quest, run = off_quest
    configure(
        quest,
        '[project]\nname = "quest"\n\n[tool.ds-gate]\nrequire = true\ndecision_actions = ["distill_review"]\n',
        "pyproject.toml",
    )
    code, out = gate_json("closure", str(quest.root))
    assert code == 1 and out["pending_run_ids"] == [run] and out["enforced"] is True
    assert "'kind': 'decision', 'action': 'distill_review'" in next(f["hint"] for f in out["findings"])
    configure(quest, "[tool.ds-gate]\nrequire = true\nsauce = 'git'\n", "pyproject.toml")
    code, out = gate_json("check", str(quest.root))
    [invalid] = [f for f in out["findings"] if f["rule"] == "waiver.invalid"]
    assert code == 1 and invalid["path"] == "pyproject.toml" and "sauce" in invalid["message"]
    assert out["enforced"] is False  # nothing of the broken table applies
    assert gate_json("closure", str(quest.root))[0] == 2
    configure(quest, "[tool.ds-gate]\nrequire = [\n", "pyproject.toml")
    code, out = gate_json("check", str(quest.root))
    assert code == 1 and any("not valid TOML" in f["message"] for f in out["findings"])
    configure(quest, "[tool.ds-gate]\nrequire = false\n", "pyproject.toml")
    configure(quest, "require: true\n")
    code, out = gate_json("check", str(quest.root))
    assert code == 1 and any(
        "require is True in .ds-gate.yaml and False in [tool.ds-gate]" in f["message"] for f in out["findings"]
    )


def test_a_pyproject_linked_out_of_the_quest_is_not_followed(off_quest, gate_json, tmp_path) -> None:
    quest, _ = off_quest
    outside = tmp_path / "elsewhere.toml"
    outside.write_text("[tool.ds-gate]\nrequire = false\nformat = 'json'\n")
    (quest.root / "pyproject.toml").symlink_to(outside)
    code, out = gate_json("check", str(quest.root))
    [invalid] = [f for f in out["findings"] if f["rule"] == "waiver.invalid"]
    assert code == 1 and "outside the quest; not followed" in invalid["message"]


def test_python_without_tomllib_reports_the_table_instead_of_ignoring_it() -> None:
    assert parse_pyproject("[project]\nname = 'x'\n", None) == ({}, [])  # no table: nothing to read
    values, [problem] = parse_pyproject("[tool.ds-gate]\nrequire = true\n", None)
    assert values == {} and problem.rule == "waiver.invalid" and "Python 3.10" in problem.message


def test_doctor_shows_the_effective_defaults_and_a_broken_configuration(
    off_quest, gate_json, tmp_path, monkeypatch
) -> None:
    quest, _ = off_quest
    code, out = gate_json("doctor", str(quest.root))
    checks = {c["name"]: c for c in out["checks"]}
    assert checks["config"]["status"] == "ok" and "the quest sets nothing" in checks["config"]["message"]
    assert (
        checks["trusted config"]["status"] == "ok"
        and "no trusted configuration file" in checks["trusted config"]["message"]
    )
    (tmp_path / "h" / "memory").mkdir(parents=True)
    configure(quest, f"home: {tmp_path / 'h'}\nsource: git\nrefs: [refs/heads, refs/remotes/origin]\n")
    configure(quest, "[tool.ds-gate]\nrequire = true\n", "pyproject.toml")
    monkeypatch.delenv("DEEPSCIENTIST_HOME")
    code, out = gate_json("doctor", str(quest.root))
    checks = {c["name"]: c for c in out["checks"]}
    message = checks["config"]["message"]
    assert checks["config"]["status"] == "warn"  # issue 24: a quest that reads less is no longer "ok"
    assert (
        "applied: require=true (pyproject.toml [tool.ds-gate])" in message and "source=git (.ds-gate.yaml)" in message
    )
    assert "refs=refs/heads,refs/remotes/origin (.ds-gate.yaml)" in message and "ignored" in message
    assert f"home={tmp_path / 'h'} (.ds-gate.yaml)" in message
    assert checks["home"]["message"] != f"home {tmp_path / 'h'} (from .ds-gate.yaml)"  # the quest's home is not used
    config = trusted(monkeypatch, tmp_path, f"home: {tmp_path / 'h'}\n")
    code, out = gate_json("doctor", str(quest.root))
    checks = {c["name"]: c for c in out["checks"]}
    assert checks["home"]["message"] == f"home {tmp_path / 'h'} (from the trusted configuration {config})"
    configure(quest, "sorce: git\n")
    code, out = gate_json("doctor", str(quest.root))
    checks = {c["name"]: c for c in out["checks"]}
    assert code == 1 and checks["config"]["status"] == "fail" and "sorce" in checks["config"]["message"]


@pytest.mark.slow
def test_the_hooks_honour_a_configured_require_on_finalization_only(off_quest) -> None:
    """With the gate off in quest.yaml, ``require: true`` in the configuration gates the commit
    hook's finalization commits as it gates ``closure``; ordinary checkpoints stay free."""
    from ds_gate.demo.example_quest import CheckpointRejected

    quest, run = off_quest
    assert main(["install", str(quest.root)]) == 0
    configure(quest, "require: true\n")
    quest.run(quest.root, "main-002")
    quest.checkpoint(quest.root, "checkpoint: pending runs never block it")
    (quest.root / "paper").mkdir()
    (quest.root / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    with pytest.raises(CheckpointRejected) as rejected:
        quest.checkpoint(quest.root, "paper: bundle")
    assert rejected.value.output.startswith("ds-gate commit-check: REJECTED") and run in rejected.value.output
    configure(quest, "require: false\n")
    quest.checkpoint(quest.root, "paper: bundle")  # the gate is off again: finalization passes with a note
    assert git(quest.root, "log", "-1", "--format=%s").stdout.strip() == "paper: bundle"
