"""``ds-gate closure --all-quests --home DIR``: every quest of a home in one process, one summary.

The rows must say what a separate ``closure QUEST`` says of each quest; the exit code is the
worst quest's; the Markdown form (for ``$GITHUB_STEP_SUMMARY``) cannot be drawn on by a quest's
name; a home is judged a quest at a time, each report let go before the next is read.
"""

from __future__ import annotations

import gc
import io
import json
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from ds_gate.cli import all_quests
from ds_gate.engine.gate import evaluate
from ds_gate.engine.home_quests import home_quests, judge_each


@pytest.fixture
def lab(make_quest, home):
    """Quests 001 (a covered run: passes), 002 (a pending run: fails) and 003 (off: passes, pending counted)."""
    first = make_quest("001")
    covered = first.run(first.root, "main-001")
    first.review(first.root, [covered], cards=[], reason_if_empty="nothing reusable")
    second = make_quest("002")
    second.run(second.root, "main-001")
    third = make_quest("003", experience_distill=None)
    third.run(third.root, "main-001")
    return home


def ds_gate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ds_gate", *args], capture_output=True, text=True)


@pytest.mark.slow
def test_the_rows_say_what_each_closure_says_and_the_exit_is_the_worst(lab) -> None:
    done = ds_gate("closure", "--all-quests", "--home", str(lab), "--format", "json")
    assert done.returncode == 1 and done.stderr == ""  # stderr is no terminal: no progress line
    data = json.loads(done.stdout)
    assert data["schema_version"] == 1 and data["command"] == "closure" and data["ok"] is False
    rows = {row["quest"]: row for row in data["quests"]}
    assert list(rows) == ["001", "002", "003"]
    for name, row in rows.items():  # each row is the separate command's verdict
        alone = ds_gate("closure", str(lab / "quests" / name), "--home", str(lab), "--format", "json")
        report = json.loads(alone.stdout)
        assert row["exit_code"] == alone.returncode and row["ok"] == report["ok"]
        assert row["pending"] == len(report["pending_run_ids"]) and row["enforced"] == report["enforced"]
        assert row["completed"] == len(report["completed_runs"])
        assert row["errors"] == sum(f["severity"] == "error" and not f["waived"] for f in report["findings"])
    assert [rows[q]["exit_code"] for q in rows] == [0, 1, 0] and rows["003"]["pending"] == 1
    assert data["totals"] == {"quests": 3, "passed": 2, "failed": 1, "unreadable": 0, "completed": 3, "pending": 2,
                              "errors": 1}


@pytest.mark.slow
def test_text_and_an_unreadable_quest_exit_2(lab) -> None:
    (lab / "quests" / "004-notes").mkdir()  # not a quest
    done = ds_gate("closure", "--all-quests", "--home", str(lab))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["quest", "enforced", "completed", "pending", "errors", "verdict"]
    assert lines[1].split() == ["001", "yes", "1", "0", "0", "passed"]
    assert lines[2].split() == ["002", "yes", "1", "1", "1", "failed"]
    assert lines[4].split() == ["004-notes", "no", "0", "0", "1", "unreadable"]
    assert "004-notes: cannot read:" in done.stdout and "1 failed, 1 unreadable" in done.stdout
    assert "run `ds-gate closure QUEST`" in done.stdout


@pytest.mark.slow
def test_markdown_for_a_step_summary_escapes_a_quests_name(lab, tmp_path) -> None:
    (lab / "quests" / "x|<img src=y>_").mkdir()
    out = tmp_path / "summary.md"
    done = ds_gate("closure", "--all-quests", "--home", str(lab), "--format", "markdown", "--output", str(out))
    assert done.returncode == 2 and done.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert text.startswith("### ds-gate closure: FAILED: 4 quest(s), 2 passed, 1 failed, 1 unreadable")
    assert "| quest | enforced | completed | pending | errors | verdict |" in text
    assert "| 002 | yes | 1 | 1 | 1 | ❌ failed |" in text
    assert "x\\|&lt;img src=y&gt;\\_" in text and "<img" not in text  # one cell, no HTML
    assert all(line.count("|") - line.count("\\|") == 7 for line in text.splitlines() if line.startswith("| "))


@pytest.mark.slow
def test_one_quest_in_markdown_and_formats_the_summary_has_not(lab) -> None:
    one = ds_gate("closure", str(lab / "quests" / "002"), "--format", "markdown")
    assert one.returncode == 1 and one.stdout.startswith("### ds-gate closure: FAILED")
    assert "| 002 | yes | 1 | 1 | 1 | ❌ failed |" in one.stdout and "coverage.pending-run" in one.stdout
    sarif = ds_gate("closure", "--all-quests", "--home", str(lab), "--format", "sarif")
    assert sarif.returncode == 2 and "--format text, json or markdown" in sarif.stderr
    nowhere = subprocess.run([sys.executable, "-m", "ds_gate", "closure", "--all-quests"], cwd=lab / "quests",
                             capture_output=True, text=True)
    assert nowhere.returncode == 2 and "pass --home DIR" in nowhere.stderr and "Traceback" not in nowhere.stderr
    here = subprocess.run([sys.executable, "-m", "ds_gate", "closure", "--all-quests"], cwd=lab,
                          capture_output=True, text=True)  # the current folder is a home
    assert here.returncode == 1 and "002" in here.stdout


def test_a_home_is_judged_a_quest_at_a_time(lab) -> None:
    """Each report is let go once its row is made, before the next quest is read."""
    alive: list[weakref.ref] = []

    def judge(path: Path):
        gc.collect()
        assert sum(ref() is not None for ref in alive) == 0  # no earlier quest's report is held
        report = evaluate(path, "closure", home=lab)
        alive.append(weakref.ref(report))
        return report

    rows = list(judge_each(home_quests(lab), judge))
    assert [row.quest for row in rows] == ["001", "002", "003"] and len(alive) == 3


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_shows_on_a_terminal_after_a_second_and_is_cleared() -> None:
    stream = Terminal()
    progress = all_quests.Progress(stream)
    progress(0, 24, "q000")
    assert stream.getvalue() == ""  # under a second: nothing
    progress.start -= all_quests.DELAY + 0.1
    progress(12, 24, "q\x1b[2J")
    assert stream.getvalue() == "\rds-gate: 12/24 quests judged, now q\\x1b[2J"
    progress.clear()
    assert stream.getvalue().endswith("\r" + " " * len("ds-gate: 12/24 quests judged, now q\\x1b[2J") + "\r")
    plain = io.StringIO()  # not a terminal: never
    quiet = all_quests.Progress(plain)
    quiet.start -= 10
    quiet(1, 2, "q")
    quiet.clear()
    assert plain.getvalue() == ""
