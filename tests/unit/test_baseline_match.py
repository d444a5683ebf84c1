"""``engine.baseline_match`` on a real folder (no git needed for the current copy): a run is the
run its baseline commit held only while its record has the held bytes, whatever else is written
there; a run counted from index lines only while every line naming it was held."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ds_gate.engine.baseline_match import HeldRun, Same
from ds_gate.kernel.git import blob_id
from ds_gate.model.records import Run, Workspace

from rulecases import quest, raw_of

RECORD = raw_of(
    {"kind": "run", "artifact_id": "run-1", "run_id": "main-001", "run_kind": "main_experiment", "status": "completed"}
)
LINE = b'{"artifact_id": "run-1", "kind": "run", "status": "completed", "updated_at": "2026-01-01T00:00:00+00:00"}'


def judged(files: dict[str, bytes], held: HeldRun, run: Run) -> str | None:
    """``Same.why_not`` over a quest folder holding ``files`` (quest-relative)."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        subject = quest([run])
        subject.root, subject.workspaces = root, [Workspace(root, ".")]
        same = Same(subject, None)
        same.read([run])
        return same.why_not(held, run)


RUN = Run("run-1", "main-001", "main_experiment", "completed", ".", "artifacts/runs/run-1.json")
INDEXED = Run("run-1", None, None, "completed", ".", "artifacts/_index.jsonl", from_index=True)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_a_record_is_the_held_one_only_with_the_held_bytes(data: bytes) -> None:
    held = HeldRun(done_blobs={blob_id(RECORD)}, records=1)
    why = judged({RUN.path: data}, held, RUN)
    assert (why is None) == (data == RECORD)
    assert judged({RUN.path: RECORD}, held, RUN) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([LINE, LINE.replace(b"2026", b"2027"), b"not json", b""]), max_size=4))
def test_an_indexed_run_is_the_held_one_only_while_every_line_naming_it_was_held(lines: list[bytes]) -> None:
    held = HeldRun(lines={LINE}, done_lines=[json.loads(LINE)])
    why = judged({INDEXED.path: b"\n".join(lines) + b"\n"}, held, INDEXED)
    naming = [line for line in lines if line.startswith(b"{")]
    assert (why is None) == (bool(naming) and all(line == LINE for line in naming))


def test_a_run_not_completed_in_the_commit_is_never_the_held_one() -> None:
    held = HeldRun(records=1, status="running")
    assert "status 'running' there" in (judged({RUN.path: RECORD}, held, RUN) or "")


def test_a_record_where_only_its_line_was_held_must_say_what_the_line_said() -> None:
    line = json.loads(LINE)
    record = {**json.loads(RECORD), "updated_at": line["updated_at"], "metrics": {"acc": 1}}
    held = HeldRun(lines={LINE}, done_lines=[line])
    assert judged({RUN.path: json.dumps(record).encode()}, held, RUN) is None
    moved = {**record, "updated_at": "2027-01-01T00:00:00+00:00"}
    assert "says other than its index line" in (judged({RUN.path: json.dumps(moved).encode()}, held, RUN) or "")


def test_a_record_linked_out_of_the_quest_is_not_read_again(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_bytes(RECORD)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        (root / "artifacts" / "runs").mkdir(parents=True)
        (root / RUN.path).symlink_to(outside)
        subject = quest([RUN])
        subject.root, subject.workspaces = root, [Workspace(root, ".")]
        same = Same(subject, None)
        same.read([RUN])
        why = same.why_not(HeldRun(done_blobs={blob_id(RECORD)}, records=1), RUN)
    assert why is not None and "cannot be read again" in why
