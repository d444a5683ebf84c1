"""``ds-gate report``, a home's distillation health, as text, JSON or Markdown.

All three are rendered from the report's data (``engine.health.health``), so they cannot
disagree on a count. Markdown is for a CI step summary (``$GITHUB_STEP_SUMMARY``): what comes
from a quest (its folder name, its id, a card id or path, a review's reason, why it could not be
read) goes through ``escape.md``, so a quest cannot draw its own cell, a link or an image.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ds_gate.reporters.escape import json_text, md, printable
from ds_gate.reporters.registry import JSON, MARKDOWN, TEXT

COLUMNS = (
    "quest",
    "runs",
    "reviewed",
    "pending",
    "baselined",
    "global cards",
    "quest cards",
    "unpromoted",
    "empty reviews",
)
COUNTS = ("runs", "reviewed", "pending", "baselined", "cards_global", "cards_quest", "unpromoted", "empty_reviews")
MAX_LISTED = 50  # calls and empty reviews listed in text and Markdown; JSON lists every one
JSON_HINT = "ds-gate report --format json lists every one"
CARDS_EMPTY = "cards_written: []"


def _cells(row: dict[str, Any]) -> list[str]:
    return ["-" if row[key] is None else str(row[key]) for key in COUNTS]


def _share(totals: dict[str, Any]) -> str:
    share = totals["global_share"]
    return "" if share is None else f" ({round(share * 100)}% global)"


def headline(data: dict[str, Any]) -> str:
    t = data["totals"]
    unreadable = f" ({t['unreadable']} unreadable)" if t["unreadable"] else ""
    baselined = f", {t['baselined']} baselined" if t["baselined"] else ""
    return (
        f"ds-gate report: {t['quests']} quest(s){unreadable}: {t['runs']} completed run(s), {t['reviewed']} reviewed, "
        f"{t['pending']} pending{baselined}; cards written global:quest {t['global_quest_ratio']}{_share(t)}; "
        f"{t['unpromoted']} quest-scope lesson(s) not promoted; {t['empty_reviews']} review(s) with {CARDS_EMPTY}"
    )


def _listed(
    data: dict[str, Any], key: str, line: Callable[[dict[str, Any], dict[str, Any]], str], lead: str
) -> list[str]:
    """Up to ``MAX_LISTED`` lines of each quest's ``key`` items, then how many more the JSON holds."""
    items = [(row, item) for row in data["quests"] for item in row[key]]
    more = len(items) - MAX_LISTED
    return [line(row, item) for row, item in items[:MAX_LISTED]] + (
        [f"{lead}… and {more} more ({JSON_HINT})"] if more > 0 else []
    )


def _promote_text(row: dict[str, Any], item: dict[str, Any]) -> str:
    return f"  {printable(row['quest'])}: {printable(item['call'])}   # {printable(item['path'])}"


def _empty_text(row: dict[str, Any], item: dict[str, Any]) -> str:
    reason = printable(item["reason"]) if item["reason"] is not None else "(no reason_if_empty)"
    return f"  {printable(row['quest'])}: {printable(item['review_id'])}: {reason}"


def render_text(data: dict[str, Any]) -> str:
    rows = [list(COLUMNS), *([printable(row["quest"]), *_cells(row)] for row in data["quests"])]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    lines += [
        f"{printable(row['quest'])}: cannot read: {printable(row['problem'])}"
        for row in data["quests"]
        if row["problem"]
    ]
    lines.append(headline(data))
    if data["totals"]["unpromoted"]:
        lines += ["quest-scope lessons not promoted (promote each through DeepScientist):"]
        lines += _listed(data, "unpromoted_lessons", _promote_text, "  ")
    if data["totals"]["empty_reviews"]:
        lines += [f"reviews with {CARDS_EMPTY}, and their reason_if_empty:"]
        lines += _listed(data, "empty_review_reasons", _empty_text, "  ")
    return "\n".join(line.rstrip() for line in lines) + "\n"


def render_json(data: dict[str, Any]) -> str:
    return json_text(data) + "\n"


def _md_rows(data: dict[str, Any]) -> Iterator[str]:
    yield "| " + " | ".join(COLUMNS) + " |"
    yield "|---" + "|--:" * len(COUNTS) + "|"
    for row in data["quests"]:
        name = md(row["quest"])
        if row["quest_id"] and row["quest_id"] != row["quest"]:
            name += f" (id {md(row['quest_id'])})"
        if row["problem"]:
            name += " ⚠️ unreadable"
        yield "| " + " | ".join([name, *_cells(row)]) + " |"


def render_markdown(data: dict[str, Any]) -> str:
    lines = [f"### {md(headline(data))}", "", *_md_rows(data)]
    problems = [f"- {md(row['quest'])}: cannot read: {md(row['problem'])}" for row in data["quests"] if row["problem"]]
    if problems:
        lines += ["", *problems]
    if data["totals"]["unpromoted"]:
        lines += ["", "**Quest-scope lessons not promoted** (promote each through DeepScientist):", ""]
        lines += _listed(
            data, "unpromoted_lessons", lambda row, item: f"- {md(row['quest'])}: {md(item['call'])}", "- "
        )
    if data["totals"]["empty_reviews"]:
        lines += ["", f"**Reviews with `{CARDS_EMPTY}`**, and their `reason_if_empty`:", ""]
        lines += _listed(
            data,
            "empty_review_reasons",
            lambda row, item: (
                f"- {md(row['quest'])}: {md(item['review_id'])}: "
                + (md(item["reason"]) if item["reason"] is not None else "(no reason\\_if\\_empty)")
            ),
            "- ",
        )
    return "\n".join(lines) + "\n"


RENDER = {TEXT: render_text, JSON: render_json, MARKDOWN: render_markdown}  # the formats the report is printed in
