"""Issue 17: the record cache only ever saves time. Each change a quest can go through
between two runs (and each way a cache file can go bad) gives, byte for byte, the report
``--no-cache`` gives; and worktree copies of a record, read once per content, still put
their findings on their own paths.

Files younger than the cache's granularity are never cached (racy-safe), so each quest is
aged past it (a real wait: ``ctime`` cannot be set back) before the first cached run.
"""

from __future__ import annotations

import json
import marshal
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.cache_folder import GRANULARITY, SEAL, SECRET_NAME

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

SETTLE = GRANULARITY / 1e9 + 0.2
pytest_plugins = ["pytester"]


def gate(root: Path, cache: Path, *extra: str, command: str = "closure") -> tuple[int, bytes]:
    env = {**os.environ, "DS_GATE_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", command, str(root), "--format", "json", *extra],
        capture_output=True,
        env=env,
        check=False,
    )
    assert done.stderr == b"", done.stderr
    return done.returncode, done.stdout


def same_as_uncached(root: Path, cache: Path) -> bytes:
    """The cached report (twice: as the run that updates the cache, then as the one that reads it)."""
    cached = gate(root, cache)
    assert cached == gate(root, cache, "--no-cache")
    assert gate(root, cache) == cached
    return cached[1]


def cache_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("records-*.sqlite3"))


def cached_paths(file: Path) -> list[str]:
    """Every file the cache holds what the gate read of: a folder's row (keyed by the folder and
    the workspace it was read as) names its records (relative to it) and holds its index lines;
    ``quest.yaml`` has a row of its own."""
    db = sqlite3.connect(file)
    try:
        rows = db.execute("SELECT path, value FROM folders").fetchall()
    finally:
        db.close()
    out = []
    for key, value in rows:
        path = os.fsdecode(key)
        if "\0" not in path:
            out.append(path)
            continue
        items, lines = marshal.loads(value[SEAL:])[1]  # after the row's seal: (stamp, value)
        folder = path.partition("\0")[0]
        out += [folder + item[0] for item in items] + ([folder + "_index.jsonl"] if lines else [])
    return sorted(out)


@pytest.fixture
def quest(make_quest: object, tmp_path: Path) -> ExampleQuest:
    """Runs on main, a worktree branched after them (so it holds copies), a review there, one
    pending run, and records with findings: a decision with an unknown action and a run whose
    file name differs from its artifact_id, both copied into the worktree."""
    q: ExampleQuest = make_quest()  # type: ignore[operator]
    runs = [q.run(q.root, f"main-{i:03d}") for i in range(6)]
    q.decision(q.root, "finalise")  # unknown action: a finding on each copy that wins
    odd = q.run(q.root, "main-odd")
    (q.root / "artifacts" / "runs" / f"{odd}.json").rename(q.root / "artifacts" / "runs" / "renamed.json")
    q.checkpoint(q.root, "runs")
    ws = q.worktree("run-a", "run/a")
    q.review(ws, runs[:5], cards=[], reason_if_empty="nothing reusable")
    q.checkpoint(ws, "review")
    return q


def settle() -> None:
    time.sleep(SETTLE)


def test_worktree_copies_share_one_parse_and_keep_their_own_paths(quest: ExampleQuest, tmp_path: Path) -> None:
    code, out = gate(quest.root, tmp_path / "cache", "--no-cache")
    report = json.loads(out)
    mismatches = sorted(f["path"] for f in report["findings"] if f["rule"] == "artifact.id-mismatch")
    assert mismatches == [".ds/worktrees/run-a/artifacts/runs/renamed.json", "artifacts/runs/renamed.json"]
    assert any(f["rule"] == "decision.unknown-action" for f in report["findings"])
    settle()
    assert same_as_uncached(quest.root, tmp_path / "cache") == out


def test_the_cache_is_used_and_holds_each_record_and_index_file(quest: ExampleQuest, tmp_path: Path) -> None:
    settle()
    same_as_uncached(quest.root, tmp_path / "cache")
    [file] = cache_files(tmp_path / "cache")
    entries = cached_paths(file)
    files = [
        *quest.root.rglob("artifacts/*/*.json"),
        *quest.root.rglob("artifacts/_index.jsonl"),
        quest.root / "quest.yaml",
    ]  # its clean parse too: a repeated run does not import PyYAML
    assert sorted(entries) == sorted(str(p.resolve()) for p in files) and len(files) >= 18
    assert os.stat(file).st_mode & 0o077 == 0


def test_a_record_edited_in_place_in_the_same_second(quest: ExampleQuest, tmp_path: Path) -> None:
    """Same size, and the old mtime put back: only ctime tells the change; and a record
    written just before the run is never cached at all."""
    settle()
    cache = tmp_path / "cache"
    before = same_as_uncached(quest.root, cache)
    record = next((quest.root / "artifacts" / "runs").glob("run-*.json"))
    st = os.stat(record)
    text = record.read_text()
    assert '"status": "completed"' in text
    record.write_text(text.replace('"status": "completed"', '"status": "cancelled"'))  # same size
    os.utime(record, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(record).st_size == st.st_size and os.stat(record).st_mtime_ns == st.st_mtime_ns
    after = same_as_uncached(quest.root, cache)
    assert after != before
    record.write_text(text)  # and back, in the same second as that run
    assert same_as_uncached(quest.root, cache) == before


def test_a_record_replaced_by_a_same_size_file(quest: ExampleQuest, tmp_path: Path) -> None:
    settle()
    cache = tmp_path / "cache"
    before = same_as_uncached(quest.root, cache)
    review = next((quest.root / ".ds" / "worktrees" / "run-a" / "artifacts" / "decisions").glob("*.json"))
    st = os.stat(review)
    data = json.loads(review.read_text())
    data["reviewed_run_ids"] = data["reviewed_run_ids"][:-1] + [data["reviewed_run_ids"][0]]  # same length ids
    text = json.dumps(data, indent=2)
    assert len(text.encode()) == st.st_size
    fresh = review.with_name("fresh.tmp")
    fresh.write_text(text)
    os.utime(fresh, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(fresh, review)
    after = same_as_uncached(quest.root, cache)
    assert after != before


def test_a_record_deleted(quest: ExampleQuest, tmp_path: Path) -> None:
    settle()
    cache = tmp_path / "cache"
    before = same_as_uncached(quest.root, cache)
    next((quest.root / ".ds" / "worktrees" / "run-a" / "artifacts" / "decisions").glob("*.json")).unlink()
    assert same_as_uncached(quest.root, cache) != before


def test_a_worktree_added(quest: ExampleQuest, tmp_path: Path) -> None:
    settle()
    cache = tmp_path / "cache"
    before = same_as_uncached(quest.root, cache)
    ws = quest.worktree("run-b", "run/b", "run/a")
    quest.run(ws, "main-new")
    after = same_as_uncached(quest.root, cache)
    assert after != before and b".ds/worktrees/run-b" in after


@pytest.mark.parametrize(
    "damage", ["truncated", "another version", "a damaged row", "rows of another shape", "garbage", "empty", "a folder"]
)
def test_a_damaged_or_foreign_cache_file_only_costs_speed(quest: ExampleQuest, tmp_path: Path, damage: str) -> None:
    settle()
    cache = tmp_path / "cache"
    before = same_as_uncached(quest.root, cache)
    [file] = cache_files(cache)
    blob = file.read_bytes()
    if damage == "truncated":
        file.write_bytes(blob[: len(blob) // 2])
    elif damage == "another version":
        db = sqlite3.connect(file)
        with db:
            db.execute("UPDATE meta SET value=? WHERE key='version'", (bytes(32),))
        db.close()
    elif damage == "a damaged row":
        db = sqlite3.connect(file)
        with db:
            db.execute("UPDATE folders SET value=?", (b"\xff" + os.urandom(64),))
        db.close()
    elif damage == "rows of another shape":
        db = sqlite3.connect(file)
        with db:
            for folder, value in db.execute("SELECT path, value FROM folders").fetchall():
                stamp, _ = marshal.loads(value[SEAL:])
                shaped = marshal.dumps((stamp, ([("runs/x.json", ("run", "x"))], [("x",)])))
                db.execute("UPDATE folders SET value=? WHERE path=?", (value[:SEAL] + shaped, folder))
        db.close()
    elif damage == "garbage":
        file.write_bytes(b"SQLite format 3\x00" + os.urandom(len(blob)))
    elif damage == "empty":
        file.write_bytes(b"")
    else:
        file.unlink()
        file.mkdir()
    assert same_as_uncached(quest.root, cache) == before


def test_a_cache_folder_others_may_write_or_a_link_is_not_used(quest: ExampleQuest, tmp_path: Path) -> None:
    settle()
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)
    assert same_as_uncached(quest.root, shared) and cache_files(shared) == []
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    assert same_as_uncached(quest.root, tmp_path / "link") and cache_files(real) == []


def test_two_closures_racing_on_one_cache(quest: ExampleQuest, tmp_path: Path) -> None:
    settle()
    cache = tmp_path / "cache"
    expected = gate(quest.root, cache, "--no-cache")
    env = {**os.environ, "DS_GATE_CACHE_DIR": str(cache)}
    for _ in range(3):
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "ds_gate", "closure", str(quest.root), "--format", "json"],
                stdout=subprocess.PIPE,
                env=env,
            )
            for _ in range(2)
        ]
        outs = [(p.communicate()[0], p.returncode) for p in procs]
        assert all((code, out) == expected for out, code in outs)
        quest.run(quest.root, f"main-race-{_}")  # the next round races on a changed quest
        expected = gate(quest.root, cache, "--no-cache")
    assert gate(quest.root, cache) == expected
    assert [p.name for p in cache.iterdir() if not p.name.startswith("records-") and p.name != SECRET_NAME] == []


def test_no_cache_neither_reads_nor_writes(quest: ExampleQuest, tmp_path: Path) -> None:
    settle()
    cache = tmp_path / "cache"
    gate(quest.root, cache, "--no-cache")
    gate(quest.root, cache, "--no-cache", command="candidates")
    assert not cache.exists()
    gate(quest.root, cache, command="check")
    assert len(cache_files(cache)) == 1


def test_an_index_line_appended(quest: ExampleQuest, tmp_path: Path) -> None:
    """The index is cached too (by its stat): a line DeepScientist appends is seen at once."""
    settle()
    cache = tmp_path / "cache"
    before = same_as_uncached(quest.root, cache)
    line = {
        "artifact_id": "run-0000dead",
        "kind": "run",
        "status": "completed",
        "quest_id": "001",
        "path": str(quest.root / "artifacts" / "runs" / "run-0000dead.json"),
    }
    with (quest.root / "artifacts" / "_index.jsonl").open("a") as index:
        index.write(json.dumps(line) + "\n")
    after = same_as_uncached(quest.root, cache)
    assert after != before and b"run-0000dead" in after


def test_the_pytest_plugin_uses_the_cache_unless_told(
    quest: ExampleQuest, tmp_path: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    settle()
    cache = tmp_path / "cache"
    monkeypatch.setenv("DS_GATE_CACHE_DIR", str(cache))
    uncached = pytester.runpytest_subprocess(f"--ds-gate={quest.root}", "--ds-gate-no-cache", "-p", "no:cacheprovider")
    assert not cache.exists()
    cached = pytester.runpytest_subprocess(f"--ds-gate={quest.root}", "-p", "no:cacheprovider")
    assert len(cache_files(cache)) == 1
    assert cached.parseoutcomes() == uncached.parseoutcomes()
