"""Baselines (issue 37.3, "Adopting the gate mid-quest"): the entry as the trusted configuration
and the quest write it, and the three rules on the smallest real git quest (two runs committed,
the gate turned on, one run recorded since): ``coverage.baselined`` where a trusted baseline
applies, ``baseline.proposed`` where only the quest wrote one, ``baseline.commit-unreadable``
where ``check`` cannot read the commit (``closure`` stops: tests/acceptance/test_baseline.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from ds_gate.config.baselines import REASON_PLACEHOLDER, parse_time, quest_baselines, trusted_baselines
from ds_gate.config.settings import load
from ds_gate.config.waiver_file import WAIVER_INVALID
from ds_gate.engine.gate import evaluate
from ds_gate.kernel.errors import QuestError

from rulecases import fired

FAILS = {"coverage.baselined", "baseline.proposed", "baseline.commit-unreadable"}
PASSES = set(FAILS)
SHA = "0123456789abcdef0123456789abcdef01234567"
BASELINE_RULES = ("coverage.baselined", "baseline.proposed", "baseline.commit-unreadable")


def quest_of(key: str, text: str) -> Path:
    return Path("/q") / text


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"quest": "001", "commit": SHA, "reason": "r"}, None),
        ({"quest": "001", "commit": [SHA, SHA.upper()], "reason": "r"}, None),
        ({"quest": "001", "before": "2026-03-01", "reason": "r"}, None),
        ({"quest": "001", "before": "2026-03-01T12:00:00+01:00", "reason": "r"}, None),
        ({"commit": SHA, "reason": "r"}, "names no quest"),
        ({"quest": "001", "commit": "main", "reason": "r"}, "full commit id"),
        ({"quest": "001", "commit": SHA[:12], "reason": "r"}, "full commit id"),
        ({"quest": "001", "commit": SHA, "before": "2026-03-01", "reason": "r"}, "names both commit and before"),
        ({"quest": "001", "reason": "r"}, "neither commit nor before"),
        ({"quest": "001", "commit": SHA}, "reason"),
        ({"quest": "001", "before": "2026-03-01T12:00:00", "reason": "r"}, "offset"),
        ({"quest": "001", "before": "2026-02-30", "reason": "r"}, "no date"),
    ],
    ids=[
        "commit",
        "commits",
        "a date",
        "a time with its offset",
        "no quest",
        "a branch name",
        "a short id",
        "commit and before",
        "neither",
        "no reason",
        "a time without offset",
        "no such day",
    ],
)
def test_a_trusted_baseline_names_its_quest_a_full_commit_or_a_date_and_why(entry, problem) -> None:
    if problem is None:
        [baseline] = trusted_baselines([entry], "/cfg.yaml", quest_of)
        assert baseline.quest == "/q/001" and baseline.applies and baseline.reason == "r"
        assert set(baseline.commits) <= {SHA} and bool(baseline.commits) == ("commit" in entry)  # lower-cased
        assert (baseline.before is not None) == ("before" in entry)
        return
    with pytest.raises(ValueError, match=problem):
        trusted_baselines([entry], "/cfg.yaml", quest_of)


def test_a_quest_baseline_is_a_proposal_and_a_date_that_is_none_is_reported() -> None:
    [proposed], problems = quest_baselines(f"baselines:\n  - commit: {SHA}\n    reason: old runs\n", WAIVER_INVALID)
    assert problems == [] and not proposed.applies and proposed.line == 2 and proposed.commits == (SHA,)
    kept, problems = quest_baselines(
        "baselines:\n  - before: '2026-02-30'\n    reason: r\n  - before: 2026-02-28\n    reason: r\n", WAIVER_INVALID
    )
    assert fired(problems) == ["waiver.invalid"] and problems[0].line == 2 and [b.index for b in kept] == [1]


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("2026-03-01", "2026-03-01T00:00:00+00:00"),
        ("2026-03-01T12:00:00Z", "2026-03-01T12:00:00+00:00"),
        ("2026-03-01 12:00:00.5-0530", "2026-03-01T12:00:00.500000-05:30"),
        ("2026-11-22T02:02:07+00:00", "2026-11-22T02:02:07+00:00"),  # as main writes created_at
        ("2026-03-01T12:00:00", None),  # no offset: no instant
        ("yesterday", None),
        ("2026-13-01", None),
    ],
)
def test_a_time_is_read_only_with_its_offset(text: str, instant: str | None) -> None:
    got = parse_time(text)
    assert (got.isoformat() if got else None) == instant


@given(st.text(max_size=40))
def test_reading_any_text_as_a_time_never_raises(text: str) -> None:
    got = parse_time(text)
    assert got is None or got.tzinfo is not None


@pytest.fixture
def adopted(make_quest, tmp_path, monkeypatch):
    """Two runs committed with the gate off, the gate turned on, one run since: (quest, the commit
    before the gate, the old runs, the new run, the trusted file)."""
    quest = make_quest(experience_distill=None)
    old = [quest.run(quest.root, "main-001"), quest.run(quest.root, "main-002", created_at="2026-01-01T00:00:00")]
    quest.checkpoint(quest.root, "two runs")
    commit = quest.git(quest.root, "rev-parse", "HEAD")
    quest.write_quest_yaml(
        startup_contract={"schema_version": 3, "launch_mode": "standard", "experience_distill": {"mode": "on"}}
    )
    new = quest.run(quest.root, "main-003")
    quest.checkpoint(quest.root, "gate on, a new run")
    config = tmp_path / "trusted.yaml"
    monkeypatch.setenv("DS_GATE_CONFIG", str(config))
    return quest, commit, old, new, config


def trust(config: Path, text: str) -> None:
    config.write_text(text)
    assert load(str(config)).problem is None, load(str(config)).problem


def test_a_trusted_commit_baselines_the_runs_its_tree_holds(adopted) -> None:
    quest, commit, old, new, config = adopted
    trust(config, f"baselines:\n  - quest: {quest.root}\n    commit: {commit}\n    reason: before the gate\n")
    report = evaluate(quest.root, "closure")
    assert [r.artifact_id for r in report.pending] == [new] and sorted(
        r.artifact_id for r in report.baselined
    ) == sorted(old)
    [info] = [f for f in report.findings if f.rule in BASELINE_RULES]
    assert info.rule == "coverage.baselined" and info.severity == "info" and not info.fails
    assert "2 completed runs baselined by trusted baselines[0]" in info.message and commit in info.message
    assert info.path == str(config) and info.pointer == "/baselines/0"


def test_without_a_baseline_no_run_is_baselined_and_nothing_is_said(adopted) -> None:
    quest, _, old, new, config = adopted
    trust(config, f"baselines:\n  - quest: {quest.root.parent / 'other'}\n    before: 2999-01-01\n    reason: r\n")
    report = evaluate(quest.root, "closure")
    assert sorted(r.artifact_id for r in report.pending) == sorted([*old, new]) and report.baselined == []
    assert fired(f for f in report.findings if f.rule in BASELINE_RULES) == []
    assert "baseline" not in report.as_dict() and "baselined_run_ids" not in report.as_dict()


def test_before_compares_created_at_and_never_baselines_a_time_it_cannot_read(adopted) -> None:
    quest, _, old, new, config = adopted
    trust(config, f"baselines:\n  - quest: {quest.root}\n    before: 2999-01-01\n    reason: r\n")
    report = evaluate(quest.root, "check")
    # old[1]'s created_at has no offset: never baselined, whatever the date
    assert sorted(r.artifact_id for r in report.baselined) == sorted([old[0], new])
    assert [r.artifact_id for r in report.pending] == [old[1]]
    [info] = [f for f in report.findings if f.rule == "coverage.baselined"]
    assert "which the quest's agent writes" in (info.hint or "")


def test_check_warns_on_a_commit_it_cannot_read_and_baselines_nothing(adopted) -> None:
    quest, _, old, new, config = adopted
    trust(config, f"baselines:\n  - quest: {quest.root}\n    commit: {SHA}\n    reason: r\n")
    report = evaluate(quest.root, "check")
    assert report.baselined == [] and len(report.pending) == 3
    [warning] = [f for f in report.findings if f.rule in BASELINE_RULES]
    assert warning.rule == "baseline.commit-unreadable" and warning.pointer == "/baselines/0/commit"
    assert "fetch it" in (warning.hint or "") and "git -C" in (warning.hint or "")
    with pytest.raises(QuestError, match="cannot tell which runs it baselines"):
        evaluate(quest.root, "closure")


def test_a_quest_written_baseline_proposes_and_the_pasted_entry_applies(adopted) -> None:
    quest, commit, old, new, config = adopted
    (quest.root / ".ds-gate.yaml").write_text(f"baselines:\n  - commit: {commit}\n    reason: finished before\n")
    trust(config, "")
    report = evaluate(quest.root, "closure")
    assert report.baselined == [] and len(report.pending) == 3 and not report.ok
    [proposal] = [f for f in report.findings if f.rule in BASELINE_RULES]
    assert proposal.rule == "baseline.proposed" and proposal.path == ".ds-gate.yaml" and proposal.line == 2
    assert "proposes to report 2 pending runs as baselined" in proposal.message
    pasted = (proposal.hint or "").split("reason: ", 1)[1].split(" (or accept", 1)[0]  # the one-line YAML to paste
    assert yaml.safe_load(pasted)["baselines"][0] == {
        "quest": str(quest.root),
        "commit": commit,
        "reason": REASON_PLACEHOLDER,  # never the agent's words: its owner writes the reason
    }
    config.write_text(pasted)  # pasted as is: the trusted file refuses it, naming the placeholder
    assert "still the placeholder" in (load(str(config)).problem or "")
    trust(config, pasted.replace(REASON_PLACEHOLDER, "we adopted the gate mid-quest"))
    pasted_report = evaluate(quest.root, "closure")
    assert [r.artifact_id for r in pasted_report.pending] == [new]
    assert fired(f for f in pasted_report.findings if f.rule in BASELINE_RULES) == [
        "baseline.proposed",
        "coverage.baselined",
    ]


def test_a_quest_baseline_applies_only_where_the_quests_waivers_are_accepted(adopted) -> None:
    quest, commit, old, new, config = adopted
    (quest.root / ".ds-gate.yaml").write_text(f"baselines:\n  - commit: {commit}\n    reason: finished before\n")
    trust(config, f"accept_quest_waivers: [{quest.root}]\n")
    for report in (evaluate(quest.root, "closure"), evaluate(quest.root, "closure", accept_quest_waivers=True)):
        assert [r.artifact_id for r in report.pending] == [new] and len(report.baselined) == 2
        [info] = [f for f in report.findings if f.rule in BASELINE_RULES]
        assert info.rule == "coverage.baselined" and "of the quest's .ds-gate.yaml, accepted by" in info.message
        assert report.as_dict()["baseline"][0]["source"] == "quest"


def test_a_bad_quest_baseline_spoils_that_entry_only(adopted) -> None:
    quest, commit, old, new, config = adopted
    (quest.root / ".ds-gate.yaml").write_text(
        "require: true\nbaselines:\n  - commit: main\n    reason: r\n"
        f"  - commit: {commit}\n    reason: r\nwaivers:\n  - rule: coverage.pending-run\n    id: {new}\n    reason: r\n"
    )
    trust(config, "")
    report = evaluate(quest.root, "closure", accept_quest_waivers=True)  # no stop: the file is read
    invalid = [f for f in report.findings if f.rule == "waiver.invalid"]
    assert [f.pointer for f in invalid] == ["/baselines/0/commit"] and "baseline proposes nothing" in (
        invalid[0].hint or ""
    )
    assert len(report.baselined) == 2 and [f.waived is not None for f in report.findings if f.subject == new] == [True]


def test_pyproject_takes_no_baselines(adopted) -> None:
    quest, commit, *_ = adopted
    (quest.root / "pyproject.toml").write_text(f'[tool.ds-gate]\nbaselines = [{{commit = "{commit}", reason = "r"}}]\n')
    report = evaluate(quest.root, "check")
    [invalid] = [f for f in report.findings if f.rule == "waiver.invalid"]
    assert "has baselines, which live in .ds-gate.yaml only" in invalid.message and report.baselined == []


def test_a_run_whose_commit_holds_only_its_index_line_is_baselined(make_quest, tmp_path, monkeypatch) -> None:
    """The index line names the run as much as its record does (the record may never be committed)."""
    quest = make_quest(experience_distill=None)
    run = quest.run(quest.root, "main-001")
    record = quest.root / "artifacts" / "runs" / f"{run}.json"
    kept = record.read_bytes()
    record.unlink()
    quest.checkpoint(quest.root, "the index line only")
    commit = quest.git(quest.root, "rev-parse", "HEAD")
    record.write_bytes(kept)
    quest.write_quest_yaml(startup_contract={"schema_version": 3, "experience_distill": {"mode": "on"}})
    quest.checkpoint(quest.root, "the record, and the gate on")
    config = tmp_path / "trusted.yaml"
    monkeypatch.setenv("DS_GATE_CONFIG", str(config))
    trust(config, f"baselines:\n  - quest: {quest.root}\n    commit: {commit}\n    reason: r\n")
    report = evaluate(quest.root, "closure")
    assert [r.artifact_id for r in report.baselined] == [run] and report.pending == [] and report.ok
