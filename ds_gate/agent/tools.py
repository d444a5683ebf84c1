"""The agent's calls (the rows of ``agent/toolspec.py``) as plain functions over a quest.

JSON-able dicts out, no MCP: ``ds-gate mcp`` and the DeepScientist integration answer through
``call``, so anything else makes the same calls without the ``mcp`` extra. Each result carries
``schema_version``; bad input raises ``QuestError`` with the CLI's own message. Nothing here
writes: the agent records the review through DeepScientist's own ``artifact.record``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ds_gate.agent.draft import clip_cards, draft_distill_review
from ds_gate.agent.toolspec import BY_NAME, BadArgument, checked
from ds_gate.config.settings import load as trusted_settings
from ds_gate.engine.gate import OFF_NOTE, evaluate
from ds_gate.engine.recent import list_recent as recent_artifacts
from ds_gate.engine.review_check import validate_review
from ds_gate.engine.run_details import run_details
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.model.findings import SCHEMA_VERSION
from ds_gate.model.reports import MAX_LIMIT, check_limit
from ds_gate.model.review_call import record_call
from ds_gate.recall.api import DEFAULT_ORDER, check_kind, recall
from ds_gate.recall.jsonl import SourceProblem, problem_notes
from ds_gate.recall.stage import stage_entry_tags
from ds_gate.recall.visible import FOLLOW

PASSED, PASSED_OFF, REJECTED = "passed", "passed (gate off)", "rejected"
__all__ = [
    "call",
    "check_closure",
    "draft_distill_review",
    "list_distill_candidates",
    "list_knowledge_summaries",
    "list_recent",
    "validate_distill_review",
]  # the tools, each named as its row in agent.toolspec


def list_distill_candidates(root: Path | str) -> dict[str, Any]:
    """The completed runs no valid review covers, each with its summary and metrics read back
    from its record (the model keeps none of them), at most ``MAX_LIMIT`` of them."""
    report = evaluate(root, "candidates")
    quest = report.quest
    shown = report.pending[:MAX_LIMIT]

    return {
        "schema_version": SCHEMA_VERSION,
        "quest_root": str(quest.root),
        "quest_id": quest.quest_id,
        "experience_distill": quest.experience_distill,
        "experience_distill_on": quest.experience_distill,  # PR #60's name for it
        "pending_count": len(report.pending),
        "baselined_count": len(report.baselined),  # completed runs a trusted baseline took out of pending
        "candidates": [run_details(quest, run) for run in shown],
        "omitted": len(report.pending) - len(shown),
        "notes": list(report.notes)
        + (
            []
            if quest.experience_distill
            else [f"{OFF_NOTE}: these runs are listed, but nothing requires their review"]
        ),
    }


def list_knowledge_summaries(
    root: Path | str,
    domain_tags: Sequence[str] | None = None,
    kind: str | None = None,
    limit: int = 20,
    home: Path | str | None = None,
    query: str | None = None,
    max_chars: int | None = None,
    order: str = DEFAULT_ORDER,
) -> dict[str, Any]:
    """Recall over the home's and the quest's cards (scope ``visible``), each with its content
    (``summary``, within ``max_chars`` in all). What else is seen (other quests' cards, the quirks
    files) is the home's ``memory.read_visibility_mode`` alone: every agent route comes here, and
    no argument of the tool widens it (``visibility="follow"``, never a caller's). Tags only: the RFC's order; a ``query``: full-text
    relevance with the tags as words. Empty ``domain_tags`` and no query: the most recent cards
    (the RFC's fallback), whatever ``recall_priors`` says; with it on, ``tag_sources`` holds the
    stage-entry tags to pass next."""
    check_limit(limit)
    trusted = trusted_settings()  # recall_jsonl: the JSONL lesson files the user names (never the quest)
    check_kind(kind, jsonl=bool(trusted.recall_jsonl))
    if isinstance(domain_tags, str):  # the API's callers may pass "a,b" as the CLI's --tags
        domain_tags = domain_tags.split(",")
    tags = [t for t in domain_tags or () if isinstance(t, str) and t.strip()]
    query = query if isinstance(query, str) and query.strip() else None
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "request": {
            "domain_tags": list(tags),
            "kind": kind,
            "limit": limit,
            "query": query,
            "max_chars": max_chars,
            "order": order,
        },
    }
    notes: list[str] = []
    sources: dict[str, list[str]] | None = None
    if not tags and not query:
        entry = stage_entry_tags(root)
        out["request"]["for_stage"] = entry.stage
        if entry.recall_priors:
            sources = entry.sources
            notes.append(
                f"domain_tags and query are empty: the most recent cards, newest first (the RFC's fallback); "
                f"this quest's stage-entry tags are {', '.join(entry.tags) or '(none)'} (tag_sources): pass "
                "them as domain_tags to rank by them"
            )
        else:
            notes.append(
                "domain_tags and query are empty: the most recent cards, newest first (the RFC's fallback; "
                "this quest's recall_priors is off); pass domain_tags to rank cards by shared tags, or query "
                "to rank them by text"
            )
    if trusted.problem:
        notes.append(f"{trusted.problem}; the JSONL files its recall_jsonl names are not read")
    found = recall(
        tags,
        kind,
        limit,
        home=home,
        quest=root,
        scope="visible",
        query=query,
        max_chars=max_chars,
        order=order,
        configured_jsonl=trusted.recall_jsonl,
        visibility=FOLLOW,
    )
    counts = found["counts"]
    results = found["results"]
    notes.extend(
        f"no card carries the tag {u['tag']}" + (f"; closest known: {', '.join(u['closest'])}" if u["closest"] else "")
        for u in found["unmatched_tags"]
    )
    notes.extend(found["notes"])
    notes.extend(problem_notes([SourceProblem(**p) for p in found["source_problems"]]))
    left_out = {
        "other_kinds": counts["cards"] - counts["of_kind"],
        "no_shared_tag": counts["of_kind"] - counts["eligible"],
        "over_limit": max(0, counts["eligible"] - len(results) - found["collapsed"]),
        "collapsed_copies": found["collapsed"],
    }
    return {
        **out,
        "domain_tags": list(tags),
        "tag_sources": sources,
        "results": clip_cards(results),
        "rank_by": found["rank_by"],
        "unmatched_tags": found["unmatched_tags"],
        "counts": {
            "cards_in_scope": counts["cards"],
            "of_kind": counts["of_kind"],
            "matching": counts["eligible"],
            "returned": len(results),
        },
        "left_out": left_out,
        "source_problems": found["source_problems"],  # each {path, line, why}: what recall skipped of a JSONL file
        "notes": notes,
        "visibility": found["visibility"],
    }


def list_recent(root: Path | str, kind: str | None = None, limit: int = 20) -> dict[str, Any]:
    """The quest's newest artifacts of every workspace (and unchecked-out branch tip)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "request": {"kind": kind, "limit": limit},
        "results": recent_artifacts(root, kind, limit),
    }


def check_closure(root: Path | str, home: Path | str | None = None) -> dict[str, Any]:
    """The closure gate's verdict with what to do next: the pending runs, the findings (errors
    first, at most ``MAX_LIMIT``) and the call that records their review."""
    report = evaluate(root, "closure", home=home)
    verdict = PASSED_OFF if not report.enforced else PASSED if report.ok else REJECTED
    pending = report.pending_run_ids
    findings = sorted(report.findings, key=lambda f: not f.fails)  # stable: errors first, each group as reported
    return {
        "schema_version": SCHEMA_VERSION,
        "ok": report.ok,
        "verdict": verdict,
        "enforced": report.enforced,
        "pending_run_ids": pending[:MAX_LIMIT],
        "pending_count": len(pending),
        "baselined_count": len(report.baselined),  # completed runs a trusted baseline took out of pending
        "findings": [f.as_dict() for f in findings[:MAX_LIMIT]],
        "findings_count": len(findings),
        "next_call": record_call(pending[:MAX_LIMIT], report.review_encoding) if pending else None,
        "encoding": report.review_encoding,
        "notes": list(report.notes),
    }


validate_distill_review = validate_review  # what closure would say about a review before it is recorded (the engine's)


def call(name: str, root: Path | str, given: dict[str, Any], home: Path | str | None = None) -> dict[str, Any]:
    """The tool ``name`` as an agent calls it: its arguments out of ``given``, checked against
    the table's schemas (``toolspec.checked``), passed to the function of that name here."""
    spec = BY_NAME.get(name) if isinstance(name, str) else None
    if spec is None:
        raise QuestError(f"unknown tool {shown(name, 60)}")
    if not isinstance(given, dict):
        raise QuestError(f"a tool's arguments are an object of named values, not {shown(given, 60)}")
    try:
        arguments = checked(spec, given)
    except BadArgument as exc:
        raise QuestError(str(exc)) from None
    function: Callable[..., dict[str, Any]] = globals()[name]
    try:
        return function(root, **arguments, **({"home": home} if spec.reads_home else {}))
    except RecursionError:  # a value nested deeper than Python's stack (a payload): one line, as every bad call
        raise QuestError(
            f"{name}: an argument is nested too deeply to read; send JSON nested at most a few hundred levels"
        ) from None
