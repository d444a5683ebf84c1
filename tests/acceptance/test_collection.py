"""Collecting runs and reviews from every workspace of a real quest."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ds_gate import evaluate, load_quest
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.errors import QuestError

from helpers import git


def rules(report) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.rule for f in report.findings]


def test_pending_runs_are_collected_across_the_root_and_every_worktree(make_quest) -> None:
    quest = make_quest()
    idea = quest.worktree("idea-idea-aaaa0001", "idea/001-idea-aaaa0001")
    analysis = quest.worktree("analysis-c1-s1", "analysis/idea-aaaa0001/c1-s1", "idea/001-idea-aaaa0001")
    in_idea = quest.run(idea, "main-001")
    in_slice = quest.run(analysis, "c1:s1", run_kind="analysis.slice")
    in_root = quest.run(quest.root, "exp-1", run_kind="experiment")
    for ws in (idea, analysis, quest.root):
        quest.checkpoint(ws, "record")

    report = evaluate(quest.root, "closure")

    assert report.pending_run_ids == sorted([in_idea, in_slice, in_root])
    where = {run.artifact_id: (run.workspace, run.run_id, run.run_kind) for run in report.completed_runs}
    assert where == {
        in_idea: (".ds/worktrees/idea-idea-aaaa0001", "main-001", "main_experiment"),
        in_slice: (".ds/worktrees/analysis-c1-s1", "c1:s1", "analysis.slice"),
        in_root: (".", "exp-1", "experiment"),
    }
    assert not report.ok
    assert rules(report).count("coverage.pending-run") == 3


def test_a_review_in_one_worktree_covers_runs_recorded_in_others(make_quest) -> None:
    quest = make_quest()
    first = quest.worktree("idea-a", "idea/001-a")
    second = quest.worktree("idea-b", "idea/001-b")
    run_a = quest.run(first, "main-001")
    run_b = quest.run(quest.root, "main-002")
    quest.review(second, [run_a, run_b])

    report = evaluate(quest.root, "closure")

    assert report.ok, [f.message for f in report.findings]
    assert report.pending == []
    assert [r.workspace for r in report.reviews] == [".ds/worktrees/idea-b"]


def test_the_gate_answers_the_same_from_the_root_a_worktree_or_a_subfolder(make_quest) -> None:
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(wt, "main-001")
    quest.checkpoint(wt, "record")
    places = [quest.root, wt, wt / "artifacts" / "runs", quest.root / ".ds"]
    answers = {str(p): evaluate(p, "closure").pending_run_ids for p in places}
    assert set(map(tuple, answers.values())) == {(run,)}


def test_moving_the_quest_folder_leaves_stale_absolute_index_paths_that_still_resolve(
    make_quest, home, tmp_path
) -> None:
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    pending = quest.run(wt, "main-001")
    covered = quest.run(quest.root, "main-002")
    quest.review(wt, [covered])
    for ws in (wt, quest.root):
        quest.checkpoint(ws, "record")
    before = evaluate(quest.root, "closure")

    moved_home = tmp_path / "elsewhere" / "DeepScientist"
    shutil.move(str(home), str(moved_home))
    moved = moved_home / "quests" / "001"
    index_line = json.loads((moved / ".ds/worktrees/idea-a/artifacts/_index.jsonl").read_text().splitlines()[0])
    assert not Path(index_line["path"]).exists()  # the index really is stale

    for start in (moved, moved / ".ds" / "worktrees" / "idea-a"):  # the worktree's .git link is broken now
        after = evaluate(start, "closure")
        assert after.quest is not None and after.quest.root == moved.resolve()
        assert after.pending_run_ids == before.pending_run_ids == [pending]
        assert {r.artifact_id for r in after.completed_runs} == {pending, covered}
        assert "index.missing-record" not in rules(after)


def test_inherited_index_lines_and_records_count_once_and_the_newest_copy_wins(make_quest) -> None:
    quest = make_quest()
    run_id = quest.run(quest.root, "main-001", status="running")
    quest.checkpoint(quest.root, "record running run")
    wt = quest.worktree("idea-a", "idea/001-a")  # inherits the record and its index line
    inherited = wt / "artifacts" / "runs" / f"{run_id}.json"
    assert inherited.exists()
    # the worktree updates the same run in place, later: DeepScientist's record_main_experiment does this
    quest.record(
        wt, "run", {"artifact_id": run_id, "run_id": "main-001", "run_kind": "main_experiment", "status": "completed"}
    )

    report = evaluate(quest.root, "closure")

    assert [r.artifact_id for r in report.completed_runs] == [run_id]
    (run,) = report.completed_runs
    assert (run.status, run.workspace) == ("completed", ".ds/worktrees/idea-a")
    index_lines = (wt / "artifacts" / "_index.jsonl").read_text().splitlines()
    assert sum(run_id in line for line in index_lines) == 2  # the duplicate really is there

    # a newer copy that is not completed does not hide the completed one: PR #60's gate reads
    # the worktree's copy through the worktree's own index line and counts the run, so the
    # gate does too (docs/reading-the-quest.md: a run is completed if either reading says so)
    quest.record(
        quest.root,
        "run",
        {"artifact_id": run_id, "run_id": "main-001", "run_kind": "main_experiment", "status": "failed"},
    )
    report = evaluate(quest.root, "closure")
    assert [r.artifact_id for r in report.completed_runs] == [run_id] and report.quest is not None
    assert report.quest.runs[run_id].status == "completed"
    assert report.pending_run_ids == [run_id]


def test_record_files_count_even_when_no_index_line_names_them(make_quest) -> None:
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    first = str(
        quest.record(wt, "run", {"run_id": "main-001", "run_kind": "main_experiment"}, index=False)["artifact_id"]
    )
    second = quest.run(wt, "main-002")
    review = quest.record(
        quest.root,
        "decision",
        {
            "action": "distill_review",
            "verdict": "covered",
            "reason": "r",
            "reviewed_run_ids": [second],
            "cards_written": [],
            "reason_if_empty": "nothing reusable",
        },
        index=False,
    )
    assert not (quest.root / "artifacts" / "_index.jsonl").exists()

    report = evaluate(quest.root, "closure")

    assert [r.artifact_id for r in report.completed_runs] == sorted([first, second])
    assert [r.artifact_id for r in report.reviews] == [review["artifact_id"]]
    # a review no index line names: PR #60's gate never reads it, so it covers nothing (issue 24, root 2)
    assert report.pending_run_ids == sorted([first, second])
    assert [f.subject for f in report.findings if f.rule == "review.unindexed"] == [review["artifact_id"]]
    with (quest.root / "artifacts" / "_index.jsonl").open("a") as index:  # the line artifact.record writes
        index.write(json.dumps({"artifact_id": review["artifact_id"], "kind": "decision", "status": "pending"}) + "\n")
    assert evaluate(quest.root, "closure").pending_run_ids == [first]


@pytest.mark.parametrize("status", ["failed", "partial", "blocked", "infeasible", "superseded", "running", "", None, 1])
def test_runs_that_did_not_complete_are_never_pending(make_quest, status) -> None:
    quest = make_quest()
    payload = {"run_id": "main-001", "run_kind": "main_experiment", "status": status}
    quest.record(quest.root, "run", payload)
    report = evaluate(quest.root, "closure")
    assert report.completed_runs == [] and report.ok


@pytest.mark.parametrize("run_kind", ["baseline", "analysis", "main", "analysis_slice", "main experiment"])
def test_other_run_kinds_are_never_pending(make_quest, run_kind) -> None:
    quest = make_quest()
    quest.run(quest.root, "x-1", run_kind=run_kind)
    report = evaluate(quest.root, "closure")
    assert report.completed_runs == [] and report.ok


@pytest.mark.parametrize("status", ["completed", " Completed ", "SUCCESS", "succeeded", "Done"])
def test_completed_status_is_matched_after_strip_and_casefold(make_quest, status) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001", status=status)
    assert evaluate(quest.root, "closure").pending_run_ids == [run]


def test_agent_turn_records_under_ds_runs_are_not_experiment_runs(make_quest) -> None:
    quest = make_quest()
    turn = quest.root / ".ds" / "runs" / "run-0badc0de"
    turn.mkdir(parents=True)
    (turn / "artifact.json").write_text(
        json.dumps({"kind": "run", "run_kind": "main_experiment", "status": "completed"})
    )
    assert evaluate(quest.root, "closure").completed_runs == []


def test_an_indexed_record_that_is_gone_is_reported_once(make_quest) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    quest.worktree("idea-a", "idea/001-a")  # inherits the index line
    (quest.root / "artifacts" / "runs" / f"{run}.json").unlink()
    (quest.root / ".ds/worktrees/idea-a/artifacts/runs" / f"{run}.json").unlink()

    report = evaluate(quest.root, "check")

    missing = [f for f in report.findings if f.rule == "index.missing-record"]
    assert len(missing) == 1
    assert run in missing[0].message and missing[0].line == 1 and missing[0].severity == "warning"


def test_a_truncated_record_is_one_error_and_not_missing(make_quest) -> None:
    """Issue 39: a record cut by an interrupted write is reported once, as invalid JSON at its
    line; the index line naming it does not add a second copy nor a false missing-record."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    record = quest.root / "artifacts" / "runs" / f"{run}.json"
    raw = record.read_bytes()
    record.write_bytes(raw[: len(raw) // 2])

    for scope in ("check", "closure"):
        report = evaluate(quest.root, scope)
        found = [(f.rule, f.path) for f in report.findings if f.rule != "coverage.pending-run"]
        assert found == [("artifact.invalid-json", f"artifacts/runs/{run}.json")]
        assert report.pending_run_ids == [run]  # the line says completed: counted from it, fail closed


def test_an_index_path_inside_the_quest_finds_a_record_stored_elsewhere(make_quest) -> None:
    quest = make_quest()
    legacy = quest.root / "legacy" / "run-0000aaaa.json"
    legacy.parent.mkdir()
    legacy.write_text(
        json.dumps({"kind": "run", "artifact_id": "run-0000aaaa", "run_kind": "experiment", "status": "done"})
    )
    line = {"artifact_id": "run-0000aaaa", "kind": "run", "status": "done", "path": str(legacy)}
    (quest.root / "artifacts" / "_index.jsonl").write_text(json.dumps(line) + "\n")
    report = evaluate(quest.root, "closure")
    assert report.pending_run_ids == ["run-0000aaaa"]
    assert report.completed_runs[0].path == "legacy/run-0000aaaa.json"


def test_an_index_path_outside_the_quest_is_never_read(make_quest, tmp_path) -> None:
    quest = make_quest()
    outside = tmp_path / "outside.json"
    outside.write_text(
        json.dumps({"kind": "run", "artifact_id": "run-0000bbbb", "run_kind": "experiment", "status": "done"})
    )
    line = {"artifact_id": "run-0000bbbb", "kind": "run", "status": "done", "path": str(outside)}
    (quest.root / "artifacts" / "_index.jsonl").write_text(json.dumps(line) + "\n")
    report = evaluate(quest.root, "check")
    assert report.completed_runs == []
    (finding,) = [f for f in report.findings if f.rule == "index.record-outside-quest"]
    assert "outside the quest, where a file is (not read)" in finding.message
    with pytest.raises(QuestError, match="move the record into the quest"):  # issue 24: PR #60 counts it; unseen here
        evaluate(quest.root, "closure")
    outside.unlink()  # nothing there: a stale line, as before
    (finding,) = [f for f in evaluate(quest.root, "closure").findings if f.rule == "index.missing-record"]
    assert "outside the quest, not read" in finding.message


def test_a_record_symlinked_out_of_the_quest_is_not_followed(make_quest, tmp_path) -> None:
    quest = make_quest()
    outside = tmp_path / "run-0000cccc.json"
    outside.write_text(
        json.dumps({"kind": "run", "artifact_id": "run-0000cccc", "run_kind": "experiment", "status": "done"})
    )
    runs = quest.root / "artifacts" / "runs"
    runs.mkdir(parents=True)
    os.symlink(outside, runs / "run-0000cccc.json")
    report = evaluate(quest.root, "check")
    assert report.completed_runs == []
    assert "path.symlink-outside-quest" in rules(report)
    with pytest.raises(
        QuestError, match="replace the link with the file itself"
    ):  # issue 24: closure cannot pass on it
        evaluate(quest.root, "closure")


def test_workspaces_come_from_git_folders_and_research_state_each_once(make_quest, tmp_path) -> None:
    quest = make_quest()
    standard = quest.worktree("idea-a", "idea/001-a")
    # a worktree registered with git but kept in another folder of the quest
    extra = quest.root / "tmp" / "side-checkout"
    git(quest.root, "worktree", "add", "-q", "-b", "side", str(extra))
    # a plain folder under .ds/worktrees that git does not know
    (quest.root / ".ds" / "worktrees" / "copied").mkdir()
    # a worktree outside the quest folder: reported, never read
    outside = tmp_path / "outside-wt"
    git(quest.root, "worktree", "add", "-q", "-b", "outside", str(outside))
    quest.run(outside, "main-009")
    state = {"research_head_worktree_root": str(standard), "current_workspace_root": str(standard)}
    (quest.root / ".ds" / "research_state.json").write_text(json.dumps(state))

    loaded = load_quest(quest.root)

    assert [ws.rel for ws in loaded.workspaces] == [
        ".",
        ".ds/worktrees/copied",
        ".ds/worktrees/idea-a",
        "tmp/side-checkout",
    ]
    branches = {ws.rel: ws.branch for ws in loaded.workspaces}
    assert branches["tmp/side-checkout"] == "side" and branches[".ds/worktrees/idea-a"] == "idea/001-a"
    assert loaded.runs == {}
    assert "workspace.outside-quest" in [f.rule for f in loaded.findings]


def test_research_head_recorded_before_a_move_is_found_by_its_worktree_tail(make_quest, home, tmp_path) -> None:
    quest = make_quest()
    head = quest.worktree("idea-a", "idea/001-a")
    (quest.root / ".ds" / "research_state.json").write_text(json.dumps({"research_head_worktree_root": str(head)}))
    moved = tmp_path / "moved"
    shutil.move(str(home), str(moved))
    loaded = load_quest(moved / "quests" / "001")
    assert [ws.rel for ws in loaded.workspaces] == [".", ".ds/worktrees/idea-a"]


def test_a_deleted_worktree_folder_is_skipped_with_a_note(make_quest) -> None:
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    quest.run(wt, "main-001")
    shutil.rmtree(wt)
    loaded = load_quest(quest.root)
    assert [ws.rel for ws in loaded.workspaces] == ["."]
    assert "workspace.missing" in [f.rule for f in loaded.findings]


def test_a_quest_without_git_is_read_from_its_folders(tmp_path) -> None:
    quest = ExampleQuest(tmp_path / "quests" / "007", "007")
    quest.root.mkdir(parents=True)
    (quest.root / "quest.yaml").write_text("quest_id: '007'\nstartup_contract:\n  experience_distill: on\n")
    wt = quest.root / ".ds" / "worktrees" / "idea-a"
    runs = wt / "artifacts" / "runs"
    runs.mkdir(parents=True)
    (runs / "run-0000dddd.json").write_text(json.dumps({"kind": "run", "run_kind": "experiment", "status": "done"}))
    report = evaluate(wt / "artifacts", "closure")
    assert report.quest is not None and not report.quest.is_git
    assert report.pending_run_ids == ["run-0000dddd"]
    assert "quest.not-git" in rules(report)


def test_records_in_unknown_folders_are_read_and_other_kinds_folders_are_not(make_quest) -> None:
    quest = make_quest()
    legacy = quest.root / "artifacts" / "legacy_runs"
    legacy.mkdir(parents=True)
    (legacy / "run-0000eeee.json").write_text(json.dumps({"kind": "run", "run_kind": "experiment", "status": "done"}))
    progress = quest.root / "artifacts" / "progress"
    progress.mkdir()
    (progress / "progress-1.json").write_text("{ not even json")  # never parsed: progress holds no runs
    report = evaluate(quest.root, "closure")
    assert report.pending_run_ids == ["run-0000eeee"]
    assert report.completed_runs[0].path == "artifacts/legacy_runs/run-0000eeee.json"
    assert "artifact.invalid-json" not in rules(report)


@pytest.mark.parametrize("encoding", ["report", "decision"])
def test_a_review_saved_with_a_byte_order_mark_covers_nothing(make_quest, encoding: str) -> None:
    """A review main's ``read_json`` cannot read (``json``: "Unexpected UTF-8 BOM"; main then holds
    an empty record) covers nothing here either: one invalid-JSON error at its file, the runs still
    pending. A run record with a BOM is still counted (stricter than main, which sees no run)."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    review = quest.review(quest.root, [run], cards=[], encoding=encoding)
    folder = "reports" if encoding == "report" else "decisions"
    path = quest.root / "artifacts" / folder / f"{review}.json"
    assert evaluate(quest.root, "closure").pending_run_ids == []
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    report = evaluate(quest.root, "closure")
    assert report.pending_run_ids == [run]
    found = [(f.rule, f.path) for f in report.findings if f.rule != "coverage.pending-run"]
    assert found == [("artifact.invalid-json", f"artifacts/{folder}/{review}.json")]
    assert "byte order mark" in next(f.hint for f in report.findings if f.rule == "artifact.invalid-json")
