"""The slim records (``engine.slim``) survive the gate's cache rows (``engine.slim_rows``)
and its SQLite file (``engine.record_store`` on ``io.cache_file``) unchanged, and a row or file
of another shape or version is only a miss: the cache can make a run faster, never different."""

from __future__ import annotations

import marshal
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ds_gate.engine.record_store import RecordStore
from ds_gate.engine.slim import (
    SKIPPED,
    Bad,
    Refused,
    SlimDecision,
    SlimRun,
    at,
    make_slim,
)
from ds_gate.engine.slim_rows import DECISION, RUN, from_row, to_row
from ds_gate.io.cache_file import CacheFile
from ds_gate.kernel.cache_folder import GRANULARITY
from ds_gate.plugins.manager import record_checker
from ds_gate.rules.records import ARTIFACT_ID_MISMATCH

from rulecases import raw_of, review_data

KINDS = ("run", "decision", "report")
RUN_DATA = {
    "kind": "run",
    "artifact_id": "run-1",
    "run_id": "main-001",
    "run_kind": "main_experiment",
    "status": "completed",
    "updated_at": "2026-11-01T00:00:00+00:00",
    "created_at": "2026-11-01T00:00:00+00:00",
}


def slim_of(name: str, raw: bytes) -> object:
    return make_slim(name, raw, f"artifacts/{name}", KINDS, record_checker())


CASES = {
    "a run": ("runs/run-1.json", raw_of(RUN_DATA)),
    "a run with a schema finding and a misnamed file": ("runs/run-9.json", raw_of(dict(RUN_DATA, run_kind=3))),
    "a run of an unknown kind, read by its folder": ("runs/run-1.json", raw_of(dict(RUN_DATA, kind="runs"))),
    "a review": ("decisions/decision-1.json", raw_of(review_data(artifact_id="decision-1"))),
    "a review recorded as a report": (
        "reports/report-1.json",
        raw_of(
            {
                **{k: v for k, v in review_data(artifact_id="report-1").items() if k != "action"},
                "kind": "report",
                "report_type": "distill_review",
            }
        ),
    ),
    "a decision": (
        "decisions/decision-2.json",
        raw_of({"kind": "decision", "artifact_id": "decision-2", "action": "launch_experiment", "verdict": "good"}),
    ),
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


@pytest.mark.parametrize(
    "row",
    [
        None,
        [RUN],
        (),
        (99,),
        (RUN, "run-1"),
        (RUN, 5, (), None, None, None, None, None, None, (), True),
        (RUN, "run-1", ((1, 2),), None, None, None, None, None, None, (), True),
        (RUN, "run-1", (), None, 7, None, None, None, None, (), True),
        (RUN, "run-1", (), None, None, None, None, None, None, (), 1),
        (DECISION, "d", (), None, None, None, None, "yes", (), (), None, (), (), "decision"),
        (DECISION, "d", (), None, None, None, None, True, (), (5,), None, (), (), "decision"),
        ([1], "x"),
    ],
    ids=repr,
)
def test_a_row_of_another_shape_is_a_miss(row: object) -> None:
    assert from_row(row) is None


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[], RecordStore]:
    """A quest's store, opened anew at each call (each call a run), in a cache folder of the test's."""
    monkeypatch.setenv("DS_GATE_CACHE_DIR", str(tmp_path / "cache"))
    return lambda: RecordStore(tmp_path / "quest", b"", ("run",))


def rows(tmp_path: Path) -> list[str]:
    [file] = (tmp_path / "cache").glob("records-*.sqlite3")
    db = sqlite3.connect(file)
    try:
        return [os.fsdecode(path) for (path,) in db.execute("SELECT path FROM folders")]
    finally:
        db.close()


def test_a_quest_is_cached_from_its_second_run(store: Callable[[], RecordStore], tmp_path: Path) -> None:
    """A one-off run (a CI job on a fresh clone) writes no rows it would never read: the first
    run of a quest only notes it was asked; the second keeps rows; the third reads them."""
    for run in range(3):
        cache = store()
        held = cache.get("one")
        if held is None:
            cache.put("one", b"stamp", (["item"], []))
        cache.save()
        assert (held, len(rows(tmp_path))) == [(None, 0), (None, 1), ((b"stamp", (["item"], [])), 1)][run]


def test_rows_of_what_a_run_did_not_read_are_dropped(store: Callable[[], RecordStore], tmp_path: Path) -> None:
    store().save()  # a quest's first run only asks
    cache = store()
    for folder in ("one", "two"):
        cache.put(folder, b"stamp", ([], []))
    cache.save()
    cache = store()
    assert cache.get("one") == (b"stamp", ([], []))
    cache.save()
    assert rows(tmp_path) == ["one"]
    [file] = (tmp_path / "cache").glob("records-*.sqlite3")
    assert os.stat(file).st_mode & 0o077 == 0


def test_a_row_another_version_or_another_secret_sealed_is_a_miss(
    store: Callable[[], RecordStore], tmp_path: Path
) -> None:
    store().save()
    cache = store()
    cache.put("one", b"stamp", ([], []))
    cache.save()
    name = next((tmp_path / "cache").glob("records-*.sqlite3")).name
    other = CacheFile(tmp_path / "cache", name, (b"another key",), lambda db: None, durable=False)
    assert other.db is not None  # another version: the file is made again, empty
    assert other.db.execute("SELECT name FROM sqlite_master WHERE name='folders'").fetchone() is None
    other.close()
    store().save()
    cache = store()
    cache.put("one", b"stamp", ([], []))
    cache.save()
    (tmp_path / "cache" / "cache-secret").write_bytes(bytes(32))
    assert store().get("one") is None  # sealed with the secret that was


def test_only_files_older_than_the_granularity_settle(tmp_path: Path) -> None:
    cache = CacheFile(None, "x", (), lambda db: None, durable=False)
    path = tmp_path / "a.json"
    path.write_text("{}")
    assert not cache.settles(os.stat(path))  # changed within the racy window: never kept
    past = time.time_ns() - 2 * GRANULARITY
    os.utime(path, ns=(past, past))
    assert not cache.settles(os.stat(path))  # ctime cannot be set back: still young
    fields = tuple(os.stat(path)[:10])
    assert cache.settles(os.stat_result(fields, {"st_mtime_ns": past, "st_ctime_ns": past}))  # a file of long ago
    assert not cache.settles(os.stat_result(fields, {"st_mtime_ns": -5, "st_ctime_ns": -5}))  # before 1970: never
