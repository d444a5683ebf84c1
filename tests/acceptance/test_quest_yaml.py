"""quest.yaml: the toggles in every spelling, and the values YAML turns into non-strings."""

from __future__ import annotations

import datetime

import pytest

from ds_gate import evaluate, load_quest
from ds_gate.cli.main import main
from ds_gate.kernel.errors import QuestError
from ds_gate.sources.quest_yaml import coerce_toggle

from helpers import git

ON = {
    "true": "experience_distill: true",
    "bare on (YAML bool)": "experience_distill: on",
    "yes (YAML 1.1 bool)": "experience_distill: yes",
    "quoted on": "experience_distill: 'on'",
    "upper ON": "experience_distill: 'ON'",
    "mixed On with spaces": "experience_distill: ' On '",
    "mapping, bare on": "experience_distill:\n    mode: on",
    "mapping, quoted on": "experience_distill:\n    mode: 'on'",
    "mapping, ON": "experience_distill: {mode: 'ON'}",
    "mapping, true": "experience_distill: {mode: true}",
}
OFF = {
    "false": "experience_distill: false",
    "bare off": "experience_distill: off",
    "quoted off": "experience_distill: 'off'",
    "null": "experience_distill: null",
    "empty string": "experience_distill: ''",
    "mapping, off": "experience_distill: {mode: 'off'}",
    "mapping, no mode": "experience_distill: {level: 2}",
    "missing key": "need_research_paper: true",
    "string true": "experience_distill: 'true'",
    "integer 1": "experience_distill: 1",
    "enabled": "experience_distill: enabled",
    "mapping, enabled": "experience_distill: {mode: enabled}",
    "a list": "experience_distill: [on]",
}
UNRECOGNISED = {"string true", "integer 1", "enabled", "mapping, enabled", "a list"}


def quest_yaml(contract_line: str) -> str:
    body = "\n".join("  " + line for line in contract_line.splitlines())
    return f"quest_id: '001'\nstatus: active\nstartup_contract:\n  schema_version: 3\n{body}\n"


@pytest.mark.parametrize("spelling", list(ON), ids=list(ON))
def test_every_on_spelling_turns_the_gate_on(make_quest, spelling) -> None:
    quest = make_quest(quest_yaml=quest_yaml(ON[spelling]))
    quest.run(quest.root, "main-001")
    report = evaluate(quest.root, "closure")
    assert report.quest is not None and report.quest.experience_distill is True
    assert report.enforced and not report.ok
    assert main(["closure", str(quest.root)]) == 1


@pytest.mark.parametrize("spelling", list(OFF), ids=list(OFF))
def test_every_other_value_leaves_the_gate_off(make_quest, spelling, capsys) -> None:
    quest = make_quest(quest_yaml=quest_yaml(OFF[spelling]))
    run = quest.run(quest.root, "main-001")
    report = evaluate(quest.root, "closure")
    assert report.quest is not None and report.quest.experience_distill is False
    assert report.ok and not report.enforced and report.pending_run_ids == [run]
    warned = [f for f in report.findings if f.rule == "quest.toggle-unrecognised"]
    assert bool(warned) == (spelling in UNRECOGNISED)
    assert main(["closure", str(quest.root)]) == 0
    assert "gate off" in capsys.readouterr().out
    assert main(["closure", "--require", str(quest.root)]) == 1


@pytest.mark.parametrize(
    ("text", "on"),
    [
        ("startup_contract: null\n", False),
        ("title: no contract at all\n", False),
        ("startup_contract: [1, 2]\n", False),
        ("startup_contract:\n  recall_priors: 'on'\n  experience_distill: {mode: 'on'}\n", True),
    ],
)
def test_contract_shapes(make_quest, text, on) -> None:
    quest = make_quest(quest_yaml=text)
    assert load_quest(quest.root).experience_distill is on


def test_recall_priors_is_read_the_same_way(make_quest) -> None:
    quest = make_quest(quest_yaml=quest_yaml("recall_priors: {mode: On}\nexperience_distill: off"))
    loaded = load_quest(quest.root)
    assert (loaded.recall_priors, loaded.experience_distill) == (True, False)


def test_values_yaml_turns_into_non_strings_break_nothing(make_quest) -> None:
    text = (
        "quest_id: 001\n"  # int 1
        "title: 2026\n"
        "status: on\n"  # bool
        "created_at: 2026-11-22T02:02:06+00:00\n"  # datetime
        "updated_at: 2026-11-22\n"  # date
        "startup_contract:\n  experience_distill: on\n  schema_version: 3\n"
    )
    quest = make_quest(quest_yaml=text)
    quest.run(quest.root, "main-001")
    loaded = load_quest(quest.root)
    assert loaded.quest_id == "001"  # the folder keeps the zero padding YAML dropped
    assert loaded.status == "true"
    assert main(["closure", str(quest.root), "--format", "json"]) == 1


def test_only_the_quest_roots_yaml_counts_not_a_worktrees_stale_copy(make_quest) -> None:
    quest = make_quest(quest_yaml=quest_yaml("experience_distill: off"))
    wt = quest.worktree("idea-a", "idea/001-a")
    (wt / "quest.yaml").write_text(quest_yaml("experience_distill: on"))
    quest.run(wt, "main-001")
    for start in (quest.root, wt):
        assert load_quest(start).experience_distill is False


def test_a_broken_quest_yaml_stops_closure_and_says_where(make_quest) -> None:
    """Issue 14: a gate that cannot read the toggle does not pass; ``check`` keeps a warning."""
    quest = make_quest(quest_yaml="startup_contract:\n  experience_distill: on\n  bad: [unclosed\n")
    report = evaluate(quest.root, "check")
    (finding,) = [f for f in report.findings if f.rule == "quest.yaml-invalid"]
    assert finding.path == "quest.yaml" and finding.line is not None and finding.line >= 3
    assert finding.severity == "warning"
    with pytest.raises(QuestError, match=r"quest\.yaml:\d+: quest\.yaml is not valid YAML: .*--require"):
        evaluate(quest.root, "closure")
    assert main(["closure", str(quest.root)]) == 2
    assert main(["closure", str(quest.root), "--require"]) in (0, 1)  # enforced regardless: a verdict, not a guess

    (quest.root / "quest.yaml").unlink()  # issue 24: missing where its history had one stops too
    with pytest.raises(QuestError, match=r"not a quest: .*restore its quest\.yaml"):  # issue 35: not a quest
        evaluate(quest.root, "closure")
    report = evaluate(quest.root, "check")
    assert "quest.no-quest-yaml" in [f.rule for f in report.findings] and not report.enforced


@pytest.mark.slow
def test_a_broken_quest_yaml_lets_checkpoints_through_and_stops_finalization(make_quest) -> None:
    from helpers import commit, head_subject

    quest = make_quest()
    assert main(["install", str(quest.root)]) == 0
    quest.run(quest.root, "main-001")
    assert commit(quest.root, "record").returncode == 0
    (quest.root / "quest.yaml").write_text("startup_contract:\n  experience_distill: on\n  bad: [unclosed\n")
    done = commit(quest.root, "quest: edit")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "quest.yaml:4: warning [quest.yaml-invalid]" in done.stdout + done.stderr  # the line YAML stops on
    (quest.root / "paper").mkdir()
    (quest.root / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    rejected = commit(quest.root, "paper: bundle")
    assert rejected.returncode != 0 and head_subject(quest.root) == "quest: edit"
    assert "cannot tell whether experience_distill is on" in rejected.stdout + rejected.stderr


def test_unsafe_yaml_tags_are_never_constructed(make_quest, tmp_path) -> None:
    marker = tmp_path / "executed"
    text = f"startup_contract: !!python/object/apply:os.system ['touch {marker}']\n"
    quest = make_quest(quest_yaml=text)
    report = evaluate(quest.root, "check")
    assert not marker.exists()
    assert "quest.yaml-invalid" in [f.rule for f in report.findings]


def test_coerce_toggle_is_the_pr60_rule() -> None:
    assert [coerce_toggle(v) for v in (True, "on", "ON", {"mode": "on"}, {"mode": True})] == [True] * 5
    assert [coerce_toggle(v) for v in (False, None, "off", "true", 1, {"mode": 1}, {}, [], datetime.date.today())] == [
        False
    ] * 9


def test_a_subfolder_quest_inside_another_repository_is_refused_clearly(tmp_path, capsys) -> None:
    outer = tmp_path / "outer"
    (outer / "quests" / "001").mkdir(parents=True)
    git(outer, "init", "-q")
    (outer / "quests" / "001" / "quest.yaml").write_text("quest_id: '001'\n")
    assert main(["check", str(outer / "quests" / "001")]) == 2
    err = capsys.readouterr().err
    assert "own git repository" in err and "Traceback" not in err
