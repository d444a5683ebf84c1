"""``ds-gate closure --all-quests --home DIR``: every quest of a home in one process, one summary.

The rows must say what a separate ``closure QUEST`` says of each quest; the exit code is the
worst quest's; the Markdown form (for ``$GITHUB_STEP_SUMMARY``) cannot be drawn on by a quest's
name; a home is judged a quest at a time, each report let go before the next is read; the
home's global cards are read once for the whole run, and each quest's report is the same as
a separate run's.
"""

from __future__ import annotations

import gc
import io
import json
import os
import subprocess
import sys
import weakref
from collections import Counter
from pathlib import Path

import pytest

from ds_gate.cli import all_quests
from ds_gate.cli.main import main
from ds_gate.engine.gate import Gate, evaluate, scope_of
from ds_gate.engine.home_quests import home_quests, judge_each, row_of
from ds_gate.engine.options import GateOptions
from ds_gate.kernel import fs
from ds_gate.reporters.registry import get
from ds_gate.rules.cards import CardIndex
from ds_gate.sources.home_cards import SharedCards


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
        assert row["errors"] == sum(
            f["severity"] == "error" and not f["waived"] and f["rule"] != "coverage.pending-run"
            for f in report["findings"]
        )  # a pending run is counted under pending, not errors (issue 39)
    assert [rows[q]["exit_code"] for q in rows] == [0, 1, 0] and rows["003"]["pending"] == 1
    assert data["totals"] == {
        "quests": 3,
        "passed": 2,
        "failed": 1,
        "unreadable": 0,
        "completed": 3,
        "pending": 2,
        "errors": 0,
    }


def test_check_over_a_home_names_itself_not_closure(lab, capsys) -> None:
    """``check --all-quests`` judges each quest as ``check`` does, and its summary says so."""
    bad = lab / "quests" / "002" / "memory" / "knowledge" / "bad.md"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text("---\ntitle: [unclosed\n---\nbody\n")  # a card check fails on
    code = main(["check", "--all-quests", "--home", str(lab), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["command"] == "check" and [r["ok"] for r in data["quests"]] == [True, False, True]
    main(["check", "--all-quests", "--home", str(lab)])
    text = capsys.readouterr().out
    assert "ds-gate check: FAILED:" in text and "run `ds-gate check QUEST`" in text and "closure" not in text


@pytest.mark.slow
def test_text_and_an_unreadable_quest_exit_2(lab) -> None:
    (lab / "quests" / "004-notes").mkdir()  # not a quest
    done = ds_gate("closure", "--all-quests", "--home", str(lab))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["quest", "enforced", "completed", "pending", "errors", "verdict"]
    assert lines[1].split() == ["001", "yes", "1", "0", "0", "passed"]
    assert lines[2].split() == ["002", "yes", "1", "1", "0", "failed"]
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
    assert "| 002 | yes | 1 | 1 | 0 | ❌ failed |" in text
    assert "x\\|&lt;img src=y&gt;\\_" in text and "<img" not in text  # one cell, no HTML
    assert all(line.count("|") - line.count("\\|") == 7 for line in text.splitlines() if line.startswith("| "))


@pytest.mark.slow
def test_one_quest_in_markdown_and_formats_the_summary_has_not(lab) -> None:
    one = ds_gate("closure", str(lab / "quests" / "002"), "--format", "markdown")
    assert one.returncode == 1 and one.stdout.startswith("### ds-gate closure: FAILED")
    assert "| 002 | yes | 1 | 1 | 0 | ❌ failed |" in one.stdout and "coverage.pending-run" in one.stdout
    sarif = ds_gate("closure", "--all-quests", "--home", str(lab), "--format", "sarif")
    assert sarif.returncode == 2 and "--format text, json or markdown" in sarif.stderr
    nowhere = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", "--all-quests"], cwd=lab / "quests", capture_output=True, text=True
    )
    assert nowhere.returncode == 2 and "pass --home DIR" in nowhere.stderr and "Traceback" not in nowhere.stderr
    here = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", "--all-quests"], cwd=lab, capture_output=True, text=True
    )  # the current folder is a home
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


@pytest.fixture
def lessons(make_quest, home, tmp_path):
    """Quests 001 and 002 each with a review naming the global lesson it wrote, 003 with a review
    naming a global card not yet written; the home's memory also holds a link out of the home
    (a finding of the read itself, which every quest that reads the cards reports)."""
    quests = {}
    for name in ("001", "002", "003"):
        quest = quests[name] = make_quest(name)
        run = quest.run(quest.root, "main-001")
        cards = (
            [{"card_id": "knowledge-late", "scope": "global", "action": "new", "target_run_id": run}]
            if name == "003"
            else None
        )
        quest.review(quest.root, [run], cards=cards)
    (tmp_path / "elsewhere.md").write_text("---\nid: knowledge-out\n---\nnot the home's\n")
    (home / "memory" / "knowledge" / "out.md").symlink_to(tmp_path / "elsewhere.md")
    return home, quests


def all_quests_profiled(home: Path, profile, capsys) -> list[dict]:
    """``closure --all-quests`` over ``home`` in this process with ``profile`` as the profile
    hook (it counts calls; the run itself is untouched): its rows, once it exited 1."""
    sys.setprofile(profile)
    try:
        code = main(["closure", "--all-quests", "--home", str(home), "--format", "json"])
    finally:
        sys.setprofile(None)
    assert code == 1
    return json.loads(capsys.readouterr().out)["quests"]


def test_the_global_cards_are_read_once_for_the_whole_run(lessons, capsys) -> None:
    """Every file of the home's memory is opened once for the quests, not once per quest that names a
    global card, and once more for the home's own lineage row (issue 39: ``home::lineage``, whose
    paths are the home's); counted where every file read goes through, ``kernel.fs.read_with_stat``,
    by a profile hook: the file system itself is real and untouched."""
    home, _ = lessons
    memory = str(home / "memory") + os.sep
    reads: Counter[str] = Counter()
    reader = fs.read_with_stat.__code__

    def profile(frame, event, arg) -> None:
        if event == "call" and frame.f_code is reader and str(frame.f_locals["path"]).startswith(memory):
            reads[str(frame.f_locals["path"])] += 1

    rows = all_quests_profiled(home, profile, capsys)
    assert [(row["quest"], row["errors"]) for row in rows] == [("001", 0), ("002", 0), ("003", 1)]
    cards = sorted(str(p) for p in (home / "memory").rglob("*.md") if not p.is_symlink())
    assert len(cards) == 2 and sorted(reads) == cards and set(reads.values()) == {2}, reads


def test_the_global_cards_are_indexed_once_for_the_whole_run(lessons, capsys) -> None:
    """Every quest's review writes a ``new`` card, so each is compared with every global card
    (``review.duplicate-card``): the body and title tables of the global cards are built once
    for the run, not once per quest (counted by a profile hook on ``CardIndex._table``)."""
    home, _ = lessons
    builds: Counter[str] = Counter()
    table = CardIndex._table.__code__

    def profile(frame, event, arg) -> None:
        if event == "call" and frame.f_code is table:
            scopes = {card.scope for card in frame.f_locals["self"].cards}
            builds["global" if "global" in scopes else "quest"] += 1

    rows = all_quests_profiled(home, profile, capsys)
    assert [row["errors"] for row in rows] == [0, 0, 1]
    assert builds["global"] == 2, builds  # the body table and the title table, once


def test_each_quest_gets_the_report_a_separate_run_gives_and_its_own_copies(lessons) -> None:
    home, quests = lessons
    shared, render = SharedCards(), get("json").render
    for name, quest in quests.items():
        alone = evaluate(quest.root, "closure", home=home)
        together = Gate(quest.root, scope_of("closure"), GateOptions(home=home), shared_cards=shared).run()
        assert render(together) == render(alone), name
        held = shared.cards(home, None).cards  # the one read, unchanged since
        assert [c.scope for c in together.cards] == (["global"] if name != "003" else [])
        assert all(card in held and not any(card is h for h in held) for card in together.cards)  # equal, not the same
        assert "path.symlink-outside-quest" in {f.rule for f in together.findings}  # the read's own finding, each time
    assert [f.rule for f in alone.findings if f.fails] == ["review.missing-card"]


def test_a_card_written_while_the_run_goes_on_is_seen_by_the_next_quest(lessons) -> None:
    """The shared read is kept only while the memory folders are unchanged: what a separate
    ``closure`` of quest 003 would see after the card is written is what the run sees."""
    home, quests = lessons
    shared = SharedCards()

    def judge(path: Path):
        if path.name == "003":  # DeepScientist writes the card 003's review names, mid-run
            quests["003"].card("global", "Late lesson", card_id="knowledge-late")
        return Gate(path, scope_of("closure"), GateOptions(home=home), shared_cards=shared).run()

    rows = list(judge_each(home_quests(home), judge))
    assert [row.errors for row in rows] == [0, 0, 0]  # 003: no review.missing-card any more
    assert rows[2] == row_of("003", evaluate(quests["003"].root, "closure", home=home))


def test_a_quest_that_holds_the_home_memory_reads_its_own_cards_shown_relative_to_it(lessons) -> None:
    """The shared read shows card paths whole, as every quest outside the memory sees them; a
    base that holds the memory (or lies in it) would show them relative, so it gets its own read."""
    home, quests = lessons
    shared = SharedCards()
    outside = shared.cards(home, quests["001"].root)
    assert outside is shared.cards(home, quests["002"].root)  # one read for both
    assert all(card.display == str(card.path) for card in outside.cards)
    holding = shared.cards(home, home)
    assert holding is not outside and sorted(c.display for c in holding.cards) == sorted(
        f"memory/knowledge/{c.path.name}" for c in outside.cards
    )
    assert shared.cards(home, quests["003"].root) is outside  # the relative read was not held in its place
