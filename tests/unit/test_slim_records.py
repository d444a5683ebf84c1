"""The slim records (``engine.slim``) survive the record cache's rows (``engine.slim_rows``)
and its SQLite file (``io.record_cache``) unchanged, and a row or file of another shape is
only a miss: the cache can make a run faster, never different."""

from __future__ import annotations

import marshal
import os
import sqlite3
import struct
import sys
import time
from pathlib import Path

import pytest
from rulecases import raw_of, review_data

from ds_gate.engine.slim import (
    SKIPPED,
    Bad,
    Refused,
    SlimDecision,
    SlimIndex,
    SlimRun,
    at,
    make_slim,
    pack_index,
    unpack_index,
)
from ds_gate.engine.slim_rows import DECISION, RUN, from_row, to_row
from ds_gate.io.record_cache import GRANULARITY, RecordCache, file_key
from ds_gate.model.findings import Finding
from ds_gate.plugins.manager import record_checker
from ds_gate.rules.records import ARTIFACT_ID_MISMATCH
from ds_gate.sources.records import IndexEntry

KINDS = ("run", "decision", "report")
RUN_DATA = {"kind": "run", "artifact_id": "run-1", "run_id": "main-001", "run_kind": "main_experiment",
            "status": "completed", "updated_at": "2026-11-01T00:00:00+00:00", "created_at": "2026-11-01T00:00:00+00:00"}


def slim_of(name: str, raw: bytes) -> object:
    return make_slim(name, raw, f"artifacts/{name}", KINDS, record_checker())


CASES = {
    "a run": ("runs/run-1.json", raw_of(RUN_DATA)),
    "a run with a schema finding and a misnamed file": ("runs/run-9.json", raw_of(dict(RUN_DATA, run_kind=3))),
    "a run of an unknown kind, read by its folder": ("runs/run-1.json", raw_of(dict(RUN_DATA, kind="runs"))),
    "a review": ("decisions/decision-1.json", raw_of(review_data(artifact_id="decision-1"))),
    "a review recorded as a report": ("reports/report-1.json", raw_of({
        **{k: v for k, v in review_data(artifact_id="report-1").items() if k != "action"},
        "kind": "report", "report_type": "distill_review"})),
    "a decision": ("decisions/decision-2.json", raw_of({"kind": "decision", "artifact_id": "decision-2",
                                                        "action": "launch_experiment", "verdict": "good"})),
    "not JSON": ("runs/run-1.json", b"{not json"),
    "a kind DeepScientist refuses": ("decisions/decision-3.json", raw_of({"kind": "decisions", "artifact_id": "d"})),
    "a report that is no review": ("reports/report-2.json", raw_of({"kind": "report", "artifact_id": "report-2"})),
}


@pytest.mark.parametrize("case", CASES)
def test_each_slim_comes_back_from_its_row_unchanged(case: str) -> None:
    slim = slim_of(*CASES[case])
    assert isinstance(slim, SlimRun | SlimDecision | Bad | Refused) or slim is SKIPPED
    row = marshal.loads(marshal.dumps(to_row(slim)))  # type: ignore[arg-type]
    assert from_row(row) == slim


def test_a_run_read_back_shares_its_strings_as_when_it_was_read() -> None:
    """Memory at 100,000 runs: the id, kind, status and workspace stay interned (one string
    with the index's and the reviews' ids), and equal dates stay one string."""
    slim = slim_of("runs/run-1.json", raw_of(dict(RUN_DATA, workspace_rel_path=".ds/worktrees/a")))
    back = from_row(marshal.loads(marshal.dumps({"runs/run-1.json": (bytes(40), to_row(slim))}))["runs/run-1.json"][1])
    assert isinstance(back, SlimRun) and back == slim
    assert back.artifact_id is sys.intern("run-1") and back.status is sys.intern("completed")
    assert back.home_rel is sys.intern(".ds/worktrees/a") and back.updated_at is back.created_at


def test_the_cases_reach_every_kind_of_slim_and_findings_on_both_sides() -> None:
    slims = {case: slim_of(*CASES[case]) for case in CASES}
    assert {type(s).__name__ for s in slims.values()} == {"SlimRun", "SlimDecision", "Bad", "Refused", "Skipped"}
    misnamed = slims["a run with a schema finding and a misnamed file"]
    assert isinstance(misnamed, SlimRun) and misnamed.found and misnamed.notes
    assert [f.rule for f in misnamed.notes] == [ARTIFACT_ID_MISMATCH.id]
    assert all(f.path is None for f in (*misnamed.notes, *misnamed.found))  # placed later, on each copy's path
    assert at(misnamed.notes[0], "x/artifacts/runs/run-9.json").path == "x/artifacts/runs/run-9.json"


def test_an_index_comes_back_from_its_row_with_its_warnings_on_the_copy() -> None:
    warning = Finding("index.bad-line", "warning", "artifacts/_index.jsonl", "a line that is not JSON", line=2)
    items: list[IndexEntry | Finding] = [IndexEntry("run-1", "run", "/q/artifacts/runs/run-1.json", 1), warning]
    packed = pack_index(items, "artifacts/_index.jsonl")
    assert packed is not None
    back = from_row(marshal.loads(marshal.dumps(to_row(packed))))
    assert isinstance(back, SlimIndex)
    assert unpack_index(back, "artifacts/_index.jsonl") == items
    assert pack_index(items, "elsewhere/_index.jsonl") is None  # a warning on another path is not shared


@pytest.mark.parametrize("row", [
    None, [RUN], (), (99,), (RUN, "run-1"), (RUN, 5, (), None, None, None, None, None, None, ()),
    (RUN, "run-1", ((1, 2),), None, None, None, None, None, None, ()), (RUN, "run-1", (), None, 7, None, None, None, None, ()),
    (DECISION, "d", (), None, None, None, None, "yes", (), (), None, (), (), "decision"),
    (DECISION, "d", (), None, None, None, None, True, (), (5,), None, (), (), "decision"),
    ([1], "x"),
], ids=repr)
def test_a_row_of_another_shape_is_a_miss(row: object) -> None:
    assert from_row(row) is None


def aged(path: Path) -> bytes:
    """A file's key, its times set back past the racy window (``ctime`` with them: a new file)."""
    path.write_text("{}")
    past = time.time_ns() - 2 * GRANULARITY
    os.utime(path, ns=(past, past))
    time.sleep(GRANULARITY / 1e9 + 0.1)  # ctime cannot be set back: wait it out
    key = file_key(str(path))
    assert key is not None
    return key


@pytest.mark.slow
def test_a_shelf_keeps_settled_files_only_and_misses_on_any_other_stat(tmp_path: Path) -> None:
    record = tmp_path / "old.json"
    key = aged(record)
    RecordCache(tmp_path / "cache" / "records.sqlite3", b"v1").save()  # a quest's first run only asks
    cache = RecordCache(tmp_path / "cache" / "records.sqlite3", b"v1")
    shelf = cache.shelf(str(tmp_path))
    shelf.put("old.json", key, ("row",))
    young = tmp_path / "young.json"
    young.write_text("{}")
    young_key = file_key(str(young))
    assert young_key is not None
    shelf.put("young.json", young_key, ("row",))  # changed within the racy window: never kept
    cache.store(shelf)
    cache.save()

    again = RecordCache(tmp_path / "cache" / "records.sqlite3", b"v1")
    shelf = again.shelf(str(tmp_path))
    assert sorted(shelf.held) == ["old.json"]
    assert shelf.get("young.json", young_key) is None
    assert shelf.get("old.json", bytes(len(key))) is None and shelf.changed  # another stat: a miss, rewritten
    before_1970 = struct.pack("<QqqQQ", 2, -5, -5, 1, 1)
    shelf.put("1969.json", before_1970, ("row",))  # a time before 1970 never settles
    assert "1969.json" not in shelf.kept
    other = RecordCache(tmp_path / "cache" / "records.sqlite3", b"v2").shelf(str(tmp_path))
    assert other.held == {}  # another version: empty


@pytest.mark.slow
def test_rows_of_folders_a_run_did_not_read_are_dropped(tmp_path: Path) -> None:
    key = aged(tmp_path / "a.json")
    file = tmp_path / "cache" / "records.sqlite3"
    RecordCache(file, b"v1").save()  # a quest's first run only asks
    cache = RecordCache(file, b"v1")
    for folder in ("one", "two"):
        shelf = cache.shelf(folder)
        shelf.put("a.json", key, ("row",))
        cache.store(shelf)
    cache.save()
    cache = RecordCache(file, b"v1")
    assert cache.shelf("one").get("a.json", key) == ("row",)
    cache.save()
    db = sqlite3.connect(file)
    assert [os.fsdecode(path) for (path,) in db.execute("SELECT path FROM folders")] == ["one"]
    db.close()
    assert os.stat(file).st_mode & 0o077 == 0


@pytest.mark.slow
def test_a_quest_is_cached_from_its_second_run(tmp_path: Path) -> None:
    """A one-off run (a CI job on a fresh clone) writes no rows it would never read: the first
    run of a quest only notes it was asked; the second keeps rows; the third reads them."""
    key = aged(tmp_path / "a.json")
    file = tmp_path / "cache" / "records.sqlite3"
    for run in range(3):
        cache = RecordCache(file, b"v1")
        shelf = cache.shelf("one")
        held = shelf.get("a.json", key)
        if held is None:
            shelf.put("a.json", key, ("row",))
        cache.store(shelf)
        cache.save()
        db = sqlite3.connect(file)
        rows = db.execute("SELECT count(*) FROM folders").fetchone()[0]
        db.close()
        assert (held, rows) == [(None, 0), (None, 1), (("row",), 1)][run]
