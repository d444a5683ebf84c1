"""The command line writes JSON in parts (a long list a chunk at a time, never the whole
report in memory); the parts must join to exactly the one-piece text, chunk boundaries,
empty lists, non-ASCII and bytes that are not UTF-8 included."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.engine.gate import evaluate
from ds_gate.reporters import json as json_reporter
from ds_gate.reporters.json import JsonReporter


@pytest.fixture
def quest(make_quest: object) -> ExampleQuest:
    """Runs (some pending), two reviews, findings on several records, a non-ASCII summary and a
    record whose file name is not UTF-8."""
    q: ExampleQuest = make_quest()  # type: ignore[operator]
    runs = [q.run(q.root, f"main-{i:03d}", summary=f"été {i} ✓") for i in range(7)]
    q.review(q.root, runs[:2], cards=[], reason_if_empty="nothing reusable")
    q.review(q.root, runs[2:4], cards=[], reason_if_empty="nothing reusable either")
    q.decision(q.root, "finalise")
    for n in range(3):
        (q.root / "artifacts" / "runs" / f"broken-{n}.json").write_text("{not json")
    os.rename(
        q.root / "artifacts" / "runs" / "broken-0.json", os.fsencode(q.root / "artifacts" / "runs") + b"/bad-\xff.json"
    )
    q.checkpoint(q.root, "records")
    return q


@pytest.mark.parametrize("chunk", [1, 2, 3, 2048])
@pytest.mark.parametrize("scope", ["closure", "check", "candidates"])
def test_the_parts_join_to_the_one_piece_text(
    quest: ExampleQuest, monkeypatch: pytest.MonkeyPatch, chunk: int, scope: str
) -> None:
    monkeypatch.setattr(json_reporter, "CHUNK", chunk)
    report = evaluate(quest.root, scope)
    assert len(report.findings) >= 4 and len(getattr(report, "completed_runs", [])) in (0, 7)
    whole = JsonReporter().render(report)
    assert "".join(JsonReporter().render_parts(report)) == whole
    json.loads(whole)


def test_empty_lists_and_the_command_line(
    quest: ExampleQuest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    monkeypatch.setattr(json_reporter, "CHUNK", 2)
    empty = tmp_path / "DeepScientist" / "quests" / "002"
    ExampleQuest(empty, "002").create()
    for root in (quest.root, empty):
        report = evaluate(root, "closure")
        assert main(["closure", str(root), "--format", "json"]) in (0, 1)
        printed = capsysbinary.readouterr().out
        assert printed == JsonReporter().render(report).encode("utf-8")
        assert main(["closure", str(root), "--format", "json", "-o", str(tmp_path / "out.json")]) in (0, 1)
        assert (tmp_path / "out.json").read_bytes() == printed
