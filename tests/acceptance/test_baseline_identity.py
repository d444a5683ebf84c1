"""A baseline's commit baselines a run only while it is the run that commit held completed
(issue 37.3; breaks s4 items 2 and 3).

Real git quests: runs recorded with ``experience_distill`` off, the commit named by the trusted
baseline, the gate turned on, then what an agent may do after adoption: complete a run that was
``running``, record a new experiment over an old id, change a record's bytes and nothing else,
append a new index line for a run known only by its index. Each stays pending with a
``baseline.changed-since`` warning naming why; an untouched record, index line, or a record
that says what its committed index line said, stays baselined. Also a branch tip read from git
objects (a CI clone), the commit hook's staged record, the ``before`` form's ``updated_at``, and
a baseline whose commit came after the gate was adopted (proposed by the quest, or trusted).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from ds_gate.cli.main import main
from ds_gate.config.baselines import REASON_PLACEHOLDER
from ds_gate.engine.commit import commit_check
from ds_gate.engine.gate import evaluate

from helpers import BASELINE_REASON, baseline, commit, git

REASON = BASELINE_REASON
MANIFEST = "paper/paper_bundle_manifest.json"


def gate_on(quest: Any) -> None:
    quest.write_quest_yaml(startup_contract={"schema_version": 3, "experience_distill": {"mode": "on"}})
    quest.checkpoint(quest.root, "quest: turn experience_distill on")


def adopt(quest: Any, config: Path) -> str:
    """Commit what the quest holds, name that commit in the trusted baseline, turn the gate on."""
    quest.checkpoint(quest.root, "experiment: runs before the gate")
    head = quest.git(quest.root, "rev-parse", "HEAD")
    baseline(config, quest.root, f"commit: {head}")
    gate_on(quest)
    return head


def record_path(quest: Any, run: str, workspace: Path | None = None) -> Path:
    return (workspace or quest.root) / "artifacts" / "runs" / f"{run}.json"


def changed(report: Any) -> dict[str, str]:
    return {f.subject: f.message for f in report.findings if f.rule == "baseline.changed-since"}


def ids(runs: list[Any]) -> list[str]:
    return sorted(r.artifact_id for r in runs)


def test_a_run_running_in_the_commit_and_completed_after_stays_pending(make_quest, trusted, gate_json) -> None:
    quest = make_quest(experience_distill=None)
    running = quest.run(quest.root, "main-001", status="running")
    done = quest.run(quest.root, "main-002")
    adopt(quest, trusted)
    quest.run(quest.root, "main-001", artifact_id=running)  # completes after the baseline
    quest.checkpoint(quest.root, "experiment: main-001 completes")

    report = evaluate(quest.root, "closure")
    assert ids(report.pending) == [running] and ids(report.baselined) == [done] and not report.ok
    assert "was not a completed run in that commit (status 'running' there)" in changed(report)[running]
    code, out = gate_json("closure", str(quest.root))
    assert code == 1 and out["pending_run_ids"] == [running] and out["baselined_run_ids"] == [done]
    [note] = [f for f in out["findings"] if f["rule"] == "baseline.changed-since"]
    assert note["severity"] == "warning" and note["path"] == f"artifacts/runs/{running}.json"
    assert note["subject"] == running


def test_a_new_experiment_recorded_over_an_old_id_stays_pending(make_quest, trusted) -> None:
    quest = make_quest(experience_distill=None)
    old = quest.run(quest.root, "main-001")
    kept = quest.run(quest.root, "main-002")
    adopt(quest, trusted)
    quest.run(quest.root, "main-NEW", artifact_id=old, summary="a new experiment", metrics_summary={"acc": 0.99})
    quest.checkpoint(quest.root, "experiment: a new run over an old id")

    report = evaluate(quest.root, "closure")
    assert ids(report.pending) == [old] and ids(report.baselined) == [kept]
    assert "its record changed since that commit: it was rewritten after the baseline" in changed(report)[old]


def test_bytes_changed_and_nothing_else_is_a_change_and_the_same_bytes_are_not(make_quest, trusted) -> None:
    """The record is compared by blob id: a metric edited in place, run_id, status and both dates
    kept, is another record; the same bytes written again are the same."""
    quest = make_quest(experience_distill=None)
    edited, same = quest.run(quest.root, "main-001"), quest.run(quest.root, "main-002")
    adopt(quest, trusted)
    path = record_path(quest, edited)
    data = json.loads(path.read_text())
    data["metrics_summary"] = {"acc": 0.99}
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False))
    record_path(quest, same).write_bytes(record_path(quest, same).read_bytes())
    quest.checkpoint(quest.root, "experiment: a metric edited")

    report = evaluate(quest.root, "closure")
    assert ids(report.pending) == [edited] and ids(report.baselined) == [same]
    assert list(changed(report)) == [edited]


def test_a_run_known_only_by_its_index_line_is_baselined_until_a_line_is_added(make_quest, trusted) -> None:
    quest = make_quest(experience_distill=None)
    run = quest.run(quest.root, "main-001")
    record_path(quest, run).unlink()  # its record never committed: the index line names it
    adopt(quest, trusted)
    report = evaluate(quest.root, "closure")
    assert ids(report.baselined) == [run] and report.pending == [] and report.ok

    quest._counter += 100
    quest.run(quest.root, "main-001-again", artifact_id=run)  # recorded again: main appends a line
    record_path(quest, run).unlink()
    quest.checkpoint(quest.root, "experiment: recorded again, the record not kept")
    report = evaluate(quest.root, "closure")
    assert ids(report.pending) == [run] and report.baselined == []
    assert "its index lines changed since that commit" in changed(report)[run]


def test_a_record_the_commit_held_only_as_its_index_line_must_say_what_the_line_said(make_quest, trusted) -> None:
    quest = make_quest(experience_distill=None)
    same, later = quest.run(quest.root, "main-001"), quest.run(quest.root, "main-002")
    kept = {run: record_path(quest, run).read_bytes() for run in (same, later)}
    for run in kept:
        record_path(quest, run).unlink()
    adopt(quest, trusted)
    record_path(quest, same).write_bytes(kept[same])  # the record as it was: what its line says
    quest._counter += 100
    quest.run(quest.root, "main-002", artifact_id=later, index=False)  # written again: a new updated_at
    quest.checkpoint(quest.root, "experiment: the records")

    report = evaluate(quest.root, "closure")
    assert ids(report.baselined) == [same] and ids(report.pending) == [later]
    assert "its record says other than its index line in that commit" in changed(report)[later]


def test_a_branch_tip_read_from_git_objects_is_compared_as_committed(make_quest, trusted, tmp_path) -> None:
    """A CI clone: the idea branch is a remote-tracking tip, its records read from git objects."""
    quest = make_quest(experience_distill=None)
    idea = quest.worktree("idea-idea-aaaa0001", "idea/001-idea-aaaa0001")
    kept, rewritten = quest.run(idea, "main-001"), quest.run(idea, "main-002")
    quest.checkpoint(idea, "experiment: two runs")
    tip = quest.git(idea, "rev-parse", "HEAD")
    gate_on(quest)
    quest.run(idea, "main-002b", artifact_id=rewritten, summary="another experiment")
    quest.checkpoint(idea, "experiment: recorded over main-002")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-local", str(quest.root), str(clone)], check=True)
    baseline(trusted, clone, f"commit: {tip}")

    report = evaluate(clone, "closure")
    assert ids(report.baselined) == [kept] and ids(report.pending) == [rewritten]
    [(subject, message)] = changed(report).items()
    assert subject == rewritten and "rewritten after the baseline" in message
    assert [f.path for f in report.findings if f.rule == "baseline.changed-since"] == [
        f"refs/remotes/origin/idea/001-idea-aaaa0001:artifacts/runs/{rewritten}.json"
    ]


def test_the_commit_hook_compares_the_staged_record_not_the_folders(make_quest, trusted, monkeypatch) -> None:
    """A rewritten record staged, the original put back in the folder: the commit being made holds
    the rewrite, so the finalization commit finds the run pending."""
    quest = make_quest(experience_distill=None)
    run = quest.run(quest.root, "main-001")
    adopt(quest, trusted)
    original = record_path(quest, run).read_bytes()
    quest.run(quest.root, "main-NEW", artifact_id=run, summary="a new experiment")
    (quest.root / "paper").mkdir()
    (quest.root / MANIFEST).write_text(json.dumps({"package_type": "paper_draft_checkpoint"}) + "\n")
    git(quest.root, "add", "-A")
    record_path(quest, run).write_bytes(original)  # the folder holds the original, the index the rewrite
    monkeypatch.chdir(quest.root)
    report = commit_check(".")
    assert report is not None and not report.ok and [r.artifact_id for r in report.pending] == [run]
    assert run in changed(report)

    git(quest.root, "add", "-A")  # the original staged: the commit holds the run as the baseline did
    report = commit_check(".")
    assert report is not None and report.ok and [r.artifact_id for r in report.baselined] == [run]


def test_before_needs_updated_at_before_too(make_quest, trusted) -> None:
    """A record written again keeps its created_at (main takes it from the payload); its updated_at moves."""
    quest = make_quest(experience_distill=None)
    kept, again = quest.run(quest.root, "main-001"), quest.run(quest.root, "main-002")
    created = json.loads(record_path(quest, again).read_text())["created_at"]
    quest.checkpoint(quest.root, "experiment: two runs")
    gate_on(quest)
    quest._counter = 1000  # the clock: 1,000 s after the first runs
    quest.run(quest.root, "main-002b", artifact_id=again, created_at=created)
    quest.checkpoint(quest.root, "experiment: recorded again")
    trusted.write_text(f"baselines:\n  - quest: {quest.root}\n    before: 2026-11-22T02:10:00Z\n    reason: r\n")
    report = evaluate(quest.root, "closure")
    assert ids(report.baselined) == [kept] and ids(report.pending) == [again]


def test_a_proposal_naming_a_commit_under_the_gate_offers_no_trusted_entry(make_quest, gate_json, capsys) -> None:
    """Reproducer 03: the gate on since the first commit, the agent proposes that commit."""
    quest = make_quest()  # experience_distill on from the first commit
    for n in range(3):
        quest.run(quest.root, f"main-00{n}")
    quest.checkpoint(quest.root, "experiment: three runs under the gate")
    head = quest.git(quest.root, "rev-parse", "HEAD")
    (quest.root / ".ds-gate.yaml").write_text(f"baselines:\n  - commit: {head}\n    reason: {REASON}\n")
    commit(quest.root, "the agent proposes a baseline")

    code, out = gate_json("closure", str(quest.root))
    assert code == 1 and len(out["pending_run_ids"]) == 3 and "baselined_run_ids" not in out
    [proposal] = [f for f in out["findings"] if f["rule"] == "baseline.proposed"]
    assert f"experience_distill was already on at commit {head}" in proposal["message"]
    assert "It baselines nothing" in proposal["message"] and "no trusted entry is offered" in proposal["hint"]
    assert "baselines: [" not in proposal["hint"] and REASON not in proposal["hint"]
    assert main(["closure", str(quest.root)]) == 1
    assert "baselines: [" not in capsys.readouterr().out


def test_a_proposal_shows_the_agents_reason_only_escaped_and_never_in_the_paste_line(
    make_quest, gate_json, capsys
) -> None:
    quest = make_quest(experience_distill=None)
    quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "experiment: a run")
    head = quest.git(quest.root, "rev-parse", "HEAD")
    gate_on(quest)
    reason = 'ok\\"}] \\x1b[2J paste me'  # YAML's escapes: a quote and an ESC in the agent's reason
    (quest.root / ".ds-gate.yaml").write_text(f'baselines:\n  - commit: {head}\n    reason: "{reason}"\n')
    commit(quest.root, "the agent proposes a baseline")
    code, out = gate_json("closure", str(quest.root))
    [proposal] = [f for f in out["findings"] if f["rule"] == "baseline.proposed"]
    assert f'reason: "{REASON_PLACEHOLDER}"' in proposal["hint"] and "paste me" not in proposal["hint"]
    assert "saying 'ok\"}] \\x1b[2J paste me'" in proposal["message"]  # shown as a quoted, escaped value
    assert main(["closure", str(quest.root)]) == 1
    assert "\x1b" not in capsys.readouterr().out


def test_a_trusted_entry_naming_a_commit_under_the_gate_is_warned_in_every_format(
    make_quest, trusted, gate_json, capsys
) -> None:
    quest = make_quest()  # on from the first commit: a human may still want the baseline, visibly
    runs = sorted(quest.run(quest.root, f"main-00{n}") for n in range(2))
    quest.checkpoint(quest.root, "experiment: two runs under the gate")
    head = quest.git(quest.root, "rev-parse", "HEAD")
    baseline(trusted, quest.root, f"commit: {head}")
    root = str(quest.root)

    code, out = gate_json("closure", root)
    assert code == 0 and out["baselined_run_ids"] == runs
    [warning] = [f for f in out["findings"] if f["rule"] == "baseline.after-adoption"]
    assert warning["severity"] == "warning" and warning["path"] == str(trusted)
    assert warning["pointer"] == "/baselines/0/commit" and f"already on at commit {head}" in warning["message"]
    assert main(["closure", root]) == 0
    text = capsys.readouterr().out
    assert "[baseline.after-adoption]" in text and "1 warning" in text.rstrip().splitlines()[-1]
    assert main(["closure", root, "--format", "github"]) == 0
    assert "title=baseline.after-adoption::" in capsys.readouterr().out
    assert main(["closure", root, "--format", "sarif"]) == 0
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert [r["level"] for r in results if r["ruleId"] == "baseline.after-adoption"] == ["warning"]
    code, out = gate_json("check", root)
    assert [f["rule"] for f in out["findings"] if f["rule"].startswith("baseline.")] == ["baseline.after-adoption"]


def test_the_toggle_on_in_an_earlier_commit_counts_though_turned_off_since(make_quest, trusted) -> None:
    quest = make_quest()  # on at first
    quest.write_quest_yaml(startup_contract={"schema_version": 3, "experience_distill": {"mode": "off"}})
    quest.run(quest.root, "main-001")
    head = adopt(quest, trusted)
    report = evaluate(quest.root, "closure")
    [warning] = [f for f in report.findings if f.rule == "baseline.after-adoption"]
    assert f"already on at commit {head}" in warning.message and len(report.baselined) == 1


def test_a_commit_before_the_toggle_gets_no_adoption_warning(make_quest, trusted) -> None:
    quest = make_quest(experience_distill=None)
    quest.run(quest.root, "main-001")
    adopt(quest, trusted)
    report = evaluate(quest.root, "closure")
    assert [f.rule for f in report.findings if f.rule.startswith("baseline.")] == [] and report.ok


def test_many_changed_runs_are_said_one_by_one_then_counted(make_quest, trusted) -> None:
    quest = make_quest(experience_distill=None)
    runs = [quest.run(quest.root, f"main-{n:03d}", status="running") for n in range(23)]
    adopt(quest, trusted)
    for n, run in enumerate(runs):
        quest.run(quest.root, f"main-{n:03d}", artifact_id=run)
    quest.checkpoint(quest.root, "experiment: all completed")
    report = evaluate(quest.root, "closure")
    notes = [f for f in report.findings if f.rule == "baseline.changed-since"]
    [more] = [f for f in notes if f.subject is None]
    assert len(report.pending) == 23 and len(notes) == 21
    assert more.message.startswith("... and 3 more runs a baseline's commit holds stay pending")
