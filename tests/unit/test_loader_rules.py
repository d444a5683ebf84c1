"""What the loader's collector (``engine.loader.Collector``) reports while it reads records
and index lines from in-memory readers, and what it keeps of them. The gate counts only the
runs the collector keeps, so a record it refuses, renames or cannot read must be reported
and must not silently count (or vanish)."""

from __future__ import annotations

import json

from ds_gate.engine.collector import MISSING_SHOWN, Collector
from ds_gate.model.findings import ERROR, WARNING
from ds_gate.model.records import Workspace

from rulecases import ROOT, MemoryReader, fired, raw_of

FAILS = {"index.missing-record", "artifact.id-mismatch", "artifact.unknown-kind", "artifact.unreadable"}
PASSES = set(FAILS)
RUN = {
    "kind": "run",
    "artifact_id": "run-1",
    "run_id": "main-001",
    "run_kind": "main_experiment",
    "status": "completed",
}


def lines(*entries: dict[str, str]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in entries)


def collect(*readers: MemoryReader) -> Collector:
    collector = Collector(ROOT, [Workspace(ROOT, ".")])
    for reader in readers:
        collector.read(reader)
    collector.resolve_index()
    return collector


def test_past_a_hundred_missing_records_the_rest_are_summed_up() -> None:
    """A stale index of thousands of lines must not bury the report: the first ones are
    listed at their lines, the rest counted in one finding."""
    index = lines(*({"artifact_id": f"run-{i:04d}", "kind": "run"} for i in range(MISSING_SHOWN + 5)))
    found = collect(MemoryReader({}, index, branch="main")).findings
    assert fired(found) == ["index.missing-record"] * (MISSING_SHOWN + 1)
    assert [f.line for f in found[:MISSING_SHOWN]] == list(range(1, MISSING_SHOWN + 1))
    summary = found[-1]
    assert summary.line is None and summary.severity == WARNING and "and 5 more" in summary.message
    exactly = lines(*({"artifact_id": f"run-{i:04d}", "kind": "run"} for i in range(MISSING_SHOWN)))
    assert all("more" not in f.message for f in collect(MemoryReader({}, exactly, branch="main")).findings)


def test_a_missing_record_is_reported_once_however_many_indexes_name_it() -> None:
    """Branches inherit index lines, so one lost record must not become one warning per branch."""
    index = lines({"artifact_id": "run-2", "kind": "run"})
    found = collect(MemoryReader({}, index, branch="main"), MemoryReader({}, index, branch="idea")).findings
    assert [(f.rule, f.path) for f in found] == [("index.missing-record", "refs/heads/main:artifacts/_index.jsonl")]


def test_a_record_found_on_another_tip_is_not_missing() -> None:
    """A worktree's branch inherits its parent's index lines; one copy anywhere is enough."""
    index = lines({"artifact_id": "run-1", "kind": "run"})
    assert (
        collect(
            MemoryReader({}, index, branch="main"), MemoryReader({"runs/run-1.json": raw_of(RUN)}, branch="idea")
        ).findings
        == []
    )


def test_an_index_path_outside_the_quest_is_named_and_not_read() -> None:
    """The index may say where the record was written on another machine; that is shown, never opened."""
    index = lines({"artifact_id": "run-2", "kind": "run", "path": "/somewhere/else/run-2.json"})
    [finding] = collect(MemoryReader({}, index, branch="main")).findings
    assert "/somewhere/else/run-2.json (outside the quest, not read)" in finding.message


def test_only_runs_and_decisions_of_the_index_are_looked_for() -> None:
    """The gate judges runs and decisions; an idea's missing file is not its business."""
    index = lines({"artifact_id": "idea-1", "kind": "idea"}, {"artifact_id": "decision-1", "kind": "decision"})
    found = collect(MemoryReader({}, index, branch="main")).findings
    assert [(f.rule, f.line) for f in found] == [("index.missing-record", 2)]


def test_a_misnamed_record_counts_under_its_artifact_id() -> None:
    """DeepScientist names a record after its artifact_id; reviews name that id, so the gate uses it."""
    collector = collect(MemoryReader({"runs/run-9.json": raw_of(RUN)}, branch="main"))
    assert fired(collector.findings) == ["artifact.id-mismatch"] and list(collector.runs.best) == ["run-1"]
    nameless = collect(
        MemoryReader({"runs/run-9.json": raw_of({k: v for k, v in RUN.items() if k != "artifact_id"})}, branch="main")
    )
    assert nameless.findings == [] and list(nameless.runs.best) == ["run-9"]  # the file name is its id


def test_a_record_of_an_unknown_kind_is_reported_and_counted_only_by_its_folder() -> None:
    """``artifact.record`` refuses it; but DeepScientist's collector names a file by its folder,
    so one in runs/ is still a run there, and the gate counts it (docs/reading-the-quest.md)."""
    collector = collect(MemoryReader({"runs/run-1.json": raw_of(dict(RUN, kind="Run"))}, branch="main"))
    assert fired(collector.findings) == ["artifact.unknown-kind"] and list(collector.runs.best) == ["run-1"]
    assert collector.findings[0].hint == "did you mean run?"
    elsewhere = collect(MemoryReader({"decisions/run-1.json": raw_of(dict(RUN, kind=" run "))}, branch="main"))
    assert fired(elsewhere.findings) == ["artifact.unknown-kind"] and elsewhere.runs.best == {}
    assert list(collect(MemoryReader({"runs/run-1.json": raw_of(RUN)}, branch="main")).runs.best) == ["run-1"]


def test_a_record_in_runs_is_a_run_whatever_its_kind_says() -> None:
    """Main's collector resolves a folder/kind disagreement by the folder: a completed run
    filed as a decision (or a report) in runs/ is a run the gate waits for."""
    from ds_gate.rules.coverage import is_completed

    for kind in ("decision", "report", "baseline"):
        collector = collect(MemoryReader({"runs/run-1.json": raw_of(dict(RUN, kind=kind))}, branch="main"))
        (run,) = collector.runs.best.values()
        assert is_completed(run) and collector.decisions.best == {}, kind


def test_an_unreadable_record_is_an_error_and_the_others_are_still_read() -> None:
    """A file that exists but cannot be read is not "missing", and does not stop the read."""
    collector = collect(
        MemoryReader(
            {"runs/run-1.json": raw_of(RUN), "runs/run-2.json": PermissionError(13, "Permission denied")}, branch="main"
        )
    )
    assert [(f.rule, f.severity, f.path) for f in collector.findings] == [
        ("artifact.unreadable", ERROR, "refs/heads/main:artifacts/runs/run-2.json")
    ]
    assert list(collector.runs.best) == ["run-1"]
    assert collect(MemoryReader({"runs/run-1.json": raw_of(RUN)}, branch="main")).findings == []


def test_an_artifact_id_is_the_text_pr_60_names_the_run_by() -> None:
    """PR #60 names a candidate ``str(artifact_id)`` as written and compares reviewed ids to it:
    a blank or numeric id is that text, never the file name a review could list instead."""
    for given, expected in (("  ", "  "), (7, "7"), (" run-1", " run-1"), ("", "run-9"), (None, "run-9")):
        collector = collect(MemoryReader({"runs/run-9.json": raw_of(dict(RUN, artifact_id=given))}, branch="main"))
        assert list(collector.runs.best) == [expected], given
        assert fired(collector.findings) == ([] if expected == "run-9" else ["artifact.id-mismatch"]), given
