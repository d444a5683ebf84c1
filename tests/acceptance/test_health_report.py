"""Issue 37 §3: ``ds-gate report``, a home's distillation health for the human who turned the discipline on.

Per quest: completed runs, reviewed, pending; the cards valid reviews wrote, global against quest
scope; quest-scope lessons not promoted (with the call that promotes each); reviews that wrote no
card (with their reason). The JSON form is the source and text and Markdown render from it, so
the three must agree on every count; the counts expected here come from how the quests were
built. It is a report, not a gate: exit 0 whenever it is made, 2 only when the home's quests
cannot be listed; an unreadable quest is a row saying why.
"""

from __future__ import annotations

import gc
import json
import re
import shlex
import subprocess
import sys
import weakref
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.cli.table import BY_NAME, HEALTH
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.engine.gate import evaluate
from ds_gate.engine.health import health_row, unreadable_row
from ds_gate.engine.home_quests import home_quests, reduce_each
from ds_gate.reporters import health as reporter
from ds_gate.rules.cards import promote_call

HOSTILE = "x|<img src=y>_[a](e)"  # a folder under quests/ that is no quest, named to draw on a summary
COUNTS = ("runs", "reviewed", "pending", "baselined", "cards_global", "cards_quest", "unpromoted", "empty_reviews")


@dataclass
class Built:
    """What a quest was built with: the report's counts are the lengths of these."""

    runs: list[str] = field(default_factory=list)  # completed runs
    reviewed: list[str] = field(default_factory=list)  # completed runs a valid review covers
    cards_global: list[str] = field(default_factory=list)  # cards valid reviews wrote, by scope
    cards_quest: list[str] = field(default_factory=list)
    unpromoted: list[str] = field(default_factory=list)  # quest-scope lessons with no global copy
    empty: dict[str, str] = field(default_factory=dict)  # valid review with cards_written: [] -> its reason

    def counts(self) -> dict[str, int]:
        pending = set(self.runs) - set(self.reviewed)
        return {
            "runs": len(self.runs),
            "reviewed": len(self.reviewed),
            "pending": len(pending),
            "baselined": 0,  # no trusted baseline here (test_baseline.py: the report counts one)
            "cards_global": len(self.cards_global),
            "cards_quest": len(self.cards_quest),
            "unpromoted": len(self.unpromoted),
            "empty_reviews": len(self.empty),
        }


def lesson(quest, scope: str, title: str, run: str, **meta) -> str:
    return quest.card(
        scope, title, claim=f"{title}: what the run taught.", lineage=[{"quest": quest.quest_id, "run": run}], **meta
    )


@pytest.fixture
def lab(make_quest, home):
    """Three real git quests and a folder that is no quest (named to inject Markdown and HTML).

    - 001: three completed runs and one still running. One review wrote a global lesson and a
      quest-scope card; one wrote none (its reason said); one run pending. A second quest-scope
      lesson was promoted (a global card of the same id), so it is not counted.
    - 002 (main's report encoding): one review covering both runs wrote two quest-scope lessons; an
      invalid review (an unknown run) with ``cards_written: []`` counts neither as a review nor as empty.
    - 003 (the toggle off): a pending run, an unpromoted lesson no review names, and a note (no
      claim, no lineage), which is no lesson.
    """
    built: dict[str, Built] = {}
    q = make_quest("001")
    b = built["001"] = Built()
    b.runs = [q.run(q.root, f"main-00{i}") for i in (1, 2, 3)]
    q.run(q.root, "main-004", status="running")
    local = lesson(q, "quest", "Routing collapses under noise", b.runs[0])
    promoted = lesson(q, "quest", "Warmup matters", b.runs[0])
    lesson(q, "global", "Warmup matters", b.runs[0], card_id=promoted)
    written = q.lessons([b.runs[0]])  # one global lesson, in the home's memory
    q.review(
        q.root,
        [b.runs[0]],
        cards=[*written, {"card_id": local, "scope": "quest", "action": "new", "target_run_id": b.runs[0]}],
    )
    empty = q.review(q.root, [b.runs[1]], cards=[], reason_if_empty="  main-002 repeats main-001  ")
    b.reviewed, b.cards_global, b.cards_quest = b.runs[:2], [c["card_id"] for c in written], [local]
    b.unpromoted, b.empty = [local], {empty: "main-002 repeats main-001"}

    q = make_quest("002")
    b = built["002"] = Built()
    b.runs = [q.run(q.root, f"main-00{i}") for i in (1, 2)]
    b.cards_quest = [lesson(q, "quest", f"Lesson {i}", run) for i, run in enumerate(b.runs)]
    entries = [
        {"card_id": c, "scope": "quest", "action": "new", "target_run_id": r}
        for c, r in zip(b.cards_quest, b.runs, strict=True)
    ]
    q.review(q.root, b.runs, cards=entries, encoding="report")
    q.review(q.root, [b.runs[0], "run-nope"], cards=[], encoding="report")  # invalid: covers nothing, counts nowhere
    b.reviewed, b.unpromoted = list(b.runs), list(b.cards_quest)

    q = make_quest("003", experience_distill=None)
    b = built["003"] = Built()
    b.runs = [q.run(q.root, "main-001")]
    b.unpromoted = [lesson(q, "quest", "Nobody reviewed this", b.runs[0])]
    q.card("quest", "A plain note")

    (home / "quests" / HOSTILE).mkdir()
    return home, built


def report(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["report", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def text_rows(out: str) -> dict[str, list[str]]:
    """The text table's rows: the quest's name, then its seven counts."""
    lines = out.splitlines()
    assert lines[0].split("  ")[0] == "quest"
    rows = {}
    for line in lines[1:]:
        found = re.fullmatch(r"(.+?)\s+" + r"\s+".join([r"(\S+)"] * len(COUNTS)), line)
        if not found or line.startswith("ds-gate report:"):
            break
        rows[found.group(1)] = list(found.groups()[1:])
    return rows


def markdown_rows(out: str) -> dict[str, list[str]]:
    rows = {}
    for line in out.splitlines()[4:]:
        if not line.startswith("| "):
            break
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == 1 + len(COUNTS), line  # a quest cannot add a cell
        rows[cells[0]] = cells[1:]
    return rows


def test_text_json_and_markdown_agree_on_every_count_the_quests_were_built_with(lab, capsys) -> None:
    home, built = lab
    code, out, err = report(capsys, "--home", str(home), "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["schema_version"] == 1 and data["command"] == "report" and data["ok"] is True
    rows = {row["quest"]: row for row in data["quests"]}
    assert list(rows) == ["001", "002", "003", HOSTILE]
    for name, quest in built.items():
        assert {key: rows[name][key] for key in COUNTS} == quest.counts(), name
        assert rows[name]["problem"] is None and rows[name]["quest_id"] == name
    assert rows["001"]["enforced"] is True and rows["003"]["enforced"] is False
    unreadable = rows[HOSTILE]
    assert all(unreadable[key] is None for key in COUNTS) and "quest.yaml" in unreadable["problem"]
    expected = {key: sum(quest.counts()[key] for quest in built.values()) for key in COUNTS}
    cards_global, cards_quest = expected["cards_global"], expected["cards_quest"]
    assert data["totals"] == {
        "quests": 4,
        "readable": 3,
        "unreadable": 1,
        **expected,
        "global_quest_ratio": f"{cards_global}:{cards_quest}",
        "global_share": round(cards_global / (cards_global + cards_quest), 3),
    }
    assert data["totals"]["global_quest_ratio"] == "1:3"  # the RFC's figure was 1:9

    code, text, _ = report(capsys, "--home", str(home))
    assert code == 0
    code, markdown, _ = report(capsys, "--home", str(home), "--format", "markdown")
    assert code == 0
    as_text = text_rows(text)
    as_markdown = markdown_rows(markdown)
    for name, row in rows.items():
        counts = ["-" if row[key] is None else str(row[key]) for key in COUNTS]
        assert as_text[name] == counts, name
        shown = reporter.md(name) + (" ⚠️ unreadable" if row["problem"] else "")
        assert as_markdown[shown] == counts, name
    line = reporter.headline(data)
    assert "4 quest(s) (1 unreadable): 6 completed run(s), 4 reviewed, 2 pending" in line
    assert "global:quest 1:3 (25% global); 4 quest-scope lesson(s) not promoted; 1 review(s)" in line
    assert line in text.splitlines() and f"### {reporter.md(line)}" == markdown.splitlines()[0]


def test_json_names_each_promote_call_and_each_empty_reviews_reason(lab, capsys) -> None:
    home, built = lab
    _, out, _ = report(capsys, "--home", str(home), "--format", "json")
    rows = {row["quest"]: row for row in json.loads(out)["quests"]}
    for name, quest in built.items():
        calls = {u["card_id"]: u["call"] for u in rows[name]["unpromoted_lessons"]}
        assert calls == {card: f"memory.promote_to_global(card_id='{card}')" for card in quest.unpromoted}, name
        assert all(u["path"].startswith("memory/knowledge/") for u in rows[name]["unpromoted_lessons"])
        assert {e["review_id"]: e["reason"] for e in rows[name]["empty_review_reasons"]} == quest.empty
    assert rows[HOSTILE]["unpromoted_lessons"] == [] and rows[HOSTILE]["empty_review_reasons"] == []
    _, text, _ = report(capsys, "--home", str(home))
    for quest in built.values():  # text lists them too, for the human
        assert all(f"memory.promote_to_global(card_id='{card}')" in text for card in quest.unpromoted)
        assert all(f"{review}: {reason}" in text for review, reason in quest.empty.items())


def test_markdown_escapes_a_hostile_quest_name_and_fits_a_step_summary(lab, capsys) -> None:
    home, _ = lab
    code, out, _ = report(capsys, "--home", str(home), "--format", "markdown")
    assert code == 0 and out.startswith("### ds-gate report: 4 quest(s) (1 unreadable)")
    assert (
        "| quest | runs | reviewed | pending | baselined | global cards | quest cards | unpromoted | empty reviews |"
        in out
    )
    escaped = "x\\|&lt;img src=y&gt;\\_\\[a\\](e)"
    assert f"| {escaped} ⚠️ unreadable | - | - |" in out and f"- {escaped}: cannot read:" in out
    assert "<img" not in out and "[a](" not in out  # no HTML, no link
    table = [line for line in out.splitlines() if line.startswith("| ")]
    assert len(table) == 5 and all(len(re.split(r"(?<!\\)\|", line)) == 11 for line in table)
    assert "memory.promote\\_to\\_global(card\\_id='" in out  # the calls, escaped like any quest text


def test_a_hostile_reason_stays_one_inert_line_in_markdown_and_text(lab, capsys) -> None:
    home, built = lab
    quest = ExampleQuest(home / "quests" / "002", "002")
    hostile = "ok\n| a | row |\n<script>x</script> [l](u) `c`"
    review = quest.review(quest.root, built["002"].runs[:1], cards=[], encoding="report", reason_if_empty=hostile)
    _, out, _ = report(capsys, "--home", str(home), "--format", "markdown")
    line = next(line for line in out.splitlines() if review in line)
    assert line == f"- 002: {review}: ok\\\\n\\| a \\| row \\|\\\\n&lt;script&gt;x&lt;/script&gt; \\[l\\](u) \\`c\\`"
    assert "<script>" not in out and len([line for line in out.splitlines() if line.startswith("| ")]) == 5
    _, text, _ = report(capsys, "--home", str(home))
    assert f"  002: {review}: ok\\n| a | row |\\n<script>x</script> [l](u) `c`" in text.splitlines()


def test_it_is_a_report_not_a_gate_exit_0_and_2_only_when_the_home_cannot_be_listed(lab, tmp_path, capsys) -> None:
    home, built = lab
    code, out, _ = report(capsys, "--home", str(home), "--format", "json")
    assert code == 0 and json.loads(out)["totals"]["pending"] == 2  # pending runs, an unreadable quest: still 0
    code, out, err = report(capsys, "--home", str(tmp_path / "nowhere"))
    assert code == 2 and out == "" and "cannot list" in err and "pass --home DIR" in err and "Traceback" not in err
    code, out, _ = report(capsys, "--home", str(tmp_path / "nowhere"), "--format", "json")
    error = json.loads(out)
    assert code == 2 and error["ok"] is False and error["exit_code"] == 2 and error["command"] == "report"
    assert error["fix"] == "pass --home DIR, the folder that holds quests/"
    code, _, err = report(capsys, "--home", str(home), "--format", "sarif")
    assert code == 2 and "use one of: text, json, markdown" in err


def test_quests_named_are_the_only_rows_and_an_unknown_name_is_a_row(lab, capsys) -> None:
    home, built = lab
    code, out, _ = report(capsys, "--home", str(home), "--format", "json", "002", str(home / "quests" / "003"), "009")
    data = json.loads(out)
    assert code == 0 and [row["quest"] for row in data["quests"]] == ["002", "003", "009"]
    assert data["totals"]["runs"] == len(built["002"].runs) + len(built["003"].runs)
    assert "no quest folder 009 under" in data["quests"][2]["problem"]


def test_the_home_is_read_a_quest_at_a_time(lab) -> None:
    """Each quest's report is let go once its row is made, before the next quest is read."""
    home, _ = lab
    alive: list[weakref.ref] = []

    def judge(path: Path):
        gc.collect()
        assert sum(ref() is not None for ref in alive) == 0
        judged = evaluate(path, "closure", home=home)
        alive.append(weakref.ref(judged))
        return judged

    rows = list(reduce_each(home_quests(home), judge, health_row, unreadable_row))
    assert [row.quest for row in rows] == ["001", "002", "003", HOSTILE] and len(alive) == 3


def test_the_row_and_its_help_say_what_it_offers(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    command = BY_NAME["report"]
    assert command.formats == HEALTH == tuple(reporter.RENDER)
    assert main(["report", "--help"]) == 0
    out = capsys.readouterr().out
    assert "example:\n  ds-gate report --home ~/DeepScientist --format markdown" in out
    assert "output format: text, json, markdown (default: text)" in out


def test_the_promote_call_names_the_card_by_id_else_by_its_path() -> None:
    assert promote_call("knowledge-1a2b", Path("/h/quests/001/memory/knowledge/x.md")) == (
        "memory.promote_to_global(card_id='knowledge-1a2b')"
    )
    assert promote_call(None, Path("/h/quests/001/memory/knowledge/x.md")) == (
        "memory.promote_to_global(path='/h/quests/001/memory/knowledge/x.md')"
    )


@pytest.mark.slow
def test_the_step_summary_recipe(lab, tmp_path) -> None:
    """docs/ci-many-quests.md: the Markdown report written with --output, exit 0 with a quest unreadable."""
    home, _ = lab
    summary = tmp_path / "summary.md"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ds_gate",
            "report",
            "--home",
            str(home),
            "--format",
            "markdown",
            "--output",
            str(summary),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("### ds-gate report: 4 quest(s)") and "| 001 | 3 | 2 | 1 | 0 | 1 | 1 | 1 | 1 |" in text


def test_the_command_a_row_suggests_keeps_a_hostile_home_one_word(tmp_path, capsys) -> None:
    """Adversary s4 break 04's class: a path in a suggested command is shell-quoted, never code."""
    home = tmp_path / "h;touch pwned"
    (home / "quests").mkdir(parents=True)
    code, out, _ = report(capsys, "--home", str(home), "--format", "json", "009")
    [row] = json.loads(out)["quests"]
    command = row["problem"].split("`")[1]
    assert code == 0 and shlex.split(command) == ["ds-gate", "report", "--home", str(home)]
