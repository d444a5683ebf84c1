"""The agent's calls (the RFC's ``list_distill_candidates``, ``list_knowledge_summaries``,
``list_recent``, the closure check and a review draft) as plain functions over a quest.

JSON-able dicts out, no MCP: ``ds-gate mcp`` and the DeepScientist integration answer through
``call``, so anything else (the demo, a test, another transport) makes the same calls without
the ``mcp`` extra. Each result carries ``schema_version`` like the CLI's JSON; bad input
raises ``QuestError`` with the CLI's own message. Nothing here writes: the agent records
the review through DeepScientist's own ``artifact.record``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ds_gate.agent.toolspec import BY_NAME, BadArgument, checked
from ds_gate.engine.gate import OFF_NOTE, evaluate
from ds_gate.engine.recent import list_recent as recent_artifacts
from ds_gate.engine.review_check import validate_review
from ds_gate.engine.run_details import clip_text, read_record, run_details
from ds_gate.kernel.errors import QuestError
from ds_gate.model.findings import SCHEMA_VERSION
from ds_gate.model.records import Quest, text_of, timestamp
from ds_gate.model.reports import MAX_LIMIT, check_limit
from ds_gate.model.review_call import draft_payload, record_call
from ds_gate.recall.api import DEFAULT_ORDER, check_kind, recall
from ds_gate.recall.api import list_knowledge_summaries as recall_summaries
from ds_gate.recall.stage import stage_entry_tags
from ds_gate.recall.tags import normalize_tags
from ds_gate.rules.coverage import RunIndex
from ds_gate.sources.memory import card_tags

NEIGHBOURS = 5  # cards shown beside each run: enough to decide patch / new / separate
QUERY_CHARS = 500  # of a run's summary, as recall's text query
PASSED, PASSED_OFF, REJECTED = "passed", "passed (gate off)", "rejected"


def _clip_cards(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A card's title and claim, bounded like a run's summary (a card is the agent's text too)."""
    for item in results:
        for key in ("title", "claim"):
            item[key] = clip_text(item.get(key))[0]
    return results


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
        "candidates": [run_details(quest, run) for run in shown],
        "omitted": len(report.pending) - len(shown),
        "notes": list(report.notes) + ([] if quest.experience_distill else [
            f"{OFF_NOTE}: these runs are listed, but nothing requires their review"]),
    }


def list_knowledge_summaries(root: Path | str, domain_tags: Sequence[str] | None = None, kind: str | None = None,
                             limit: int = 20, home: Path | str | None = None, query: str | None = None,
                             max_chars: int | None = None, order: str = DEFAULT_ORDER) -> dict[str, Any]:
    """Recall over the home's and the quest's cards (scope ``visible``), each with its content
    (``summary``, within ``max_chars`` in all). Tags only: the RFC's order; a ``query``: full-text
    relevance with the tags as words. Empty ``domain_tags`` and no query: the most recent cards
    (the RFC's fallback), whatever ``recall_priors`` says; with it on, ``tag_sources`` holds the
    stage-entry tags to pass next."""
    check_limit(limit)
    check_kind(kind)
    if isinstance(domain_tags, str):  # the API's callers may pass "a,b" as the CLI's --tags
        domain_tags = domain_tags.split(",")
    tags = [t for t in domain_tags or () if isinstance(t, str) and t.strip()]
    query = query if isinstance(query, str) and query.strip() else None
    out: dict[str, Any] = {"schema_version": SCHEMA_VERSION,
                           "request": {"domain_tags": list(tags), "kind": kind, "limit": limit, "query": query,
                                       "max_chars": max_chars, "order": order}}
    notes: list[str] = []
    sources: dict[str, list[str]] | None = None
    if not tags and not query:
        entry = stage_entry_tags(root)
        out["request"]["for_stage"] = entry.stage
        if entry.recall_priors:
            sources = entry.sources
            notes.append(f"domain_tags and query are empty: the most recent cards, newest first (the RFC's fallback); "
                         f"this quest's stage-entry tags are {', '.join(entry.tags) or '(none)'} (tag_sources): pass "
                         "them as domain_tags to rank by them")
        else:
            notes.append("domain_tags and query are empty: the most recent cards, newest first (the RFC's fallback; "
                         "this quest's recall_priors is off); pass domain_tags to rank cards by shared tags, or query "
                         "to rank them by text")
    found = recall(tags, kind, limit, home=home, quest=root, scope="visible", query=query, max_chars=max_chars,
                   order=order)
    counts = found["counts"]
    results = found["results"]
    notes.extend(f"no card carries the tag {u['tag']}" + (f"; closest known: {', '.join(u['closest'])}"
                                                           if u["closest"] else "") for u in found["unmatched_tags"])
    notes.extend(found["notes"])
    left_out = {
        "other_kinds": counts["cards"] - counts["of_kind"],
        "no_shared_tag": counts["of_kind"] - counts["eligible"],
        "over_limit": max(0, counts["eligible"] - len(results) - found["collapsed"]),
        "collapsed_copies": found["collapsed"],
    }
    return {**out, "domain_tags": list(tags), "tag_sources": sources, "results": _clip_cards(results),
            "rank_by": found["rank_by"], "unmatched_tags": found["unmatched_tags"],
            "counts": {"cards_in_scope": counts["cards"], "of_kind": counts["of_kind"], "matching": counts["eligible"],
                       "returned": len(results)},
            "left_out": left_out, "notes": notes}


def list_recent(root: Path | str, kind: str | None = None, limit: int = 20) -> dict[str, Any]:
    """The quest's newest artifacts of every workspace (and unchecked-out branch tip)."""
    return {"schema_version": SCHEMA_VERSION, "request": {"kind": kind, "limit": limit},
            "results": recent_artifacts(root, kind, limit)}


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
        "findings": [f.as_dict() for f in findings[:MAX_LIMIT]],
        "findings_count": len(findings),
        "next_call": record_call(pending[:MAX_LIMIT], report.review_encoding) if pending else None,
        "encoding": report.review_encoding,
        "notes": list(report.notes),
    }


def _not_reviewable(quest: Quest, run_id: str, index: int) -> str:
    """Why ``run_id`` cannot be drafted, worded as the CLI's ``review.unknown-run`` finding."""
    run = quest.runs.get(run_id)
    if run is not None:
        return (f"run_ids[{index}] is {run_id!r}, a run of this quest that is not completed (status {run.status!r}, "
                f"run_kind {run.run_kind!r}); only completed runs are reviewed (see list_distill_candidates)")
    same = RunIndex(quest).by_run_id.get(run_id, [])
    if same:
        guess = " or ".join(same)
        return (f"run_ids[{index}] is {run_id!r}, the experiment run_id of {guess}, not a run artifact id; "
                f"did you mean {guess}? a review lists run artifact ids (run-xxxxxxxx)")

    close = difflib.get_close_matches(run_id, list(quest.runs), n=1, cutoff=0.8)
    return (f"run_ids[{index}] is {run_id!r}, which is not a run of this quest; "
            + (f"did you mean {close[0]}?" if close else "list_distill_candidates lists the runs to review"))


def _neighbours(root: Path | str, tags: Sequence[str], query: str | None, home: Path | str | None) -> list[dict[str, Any]]:
    """The closest cards of the home's global memory and the quest's own, merged in recall's
    order (shared tags, then text match, then recency); a promoted card once, as its global copy."""
    found: dict[str, dict[str, Any]] = {}
    for scope in ("global", "quest"):
        for item in recall_summaries(tags, None, NEIGHBOURS, home=home, quest=root, scope=scope, query=query):
            found.setdefault(item["card_id"], item)
    ordered = sorted(found.values(), key=lambda r: (-r["overlap"], -r.get("lexical_score", 0.0),
                                                    -timestamp(r["updated_at"]), r["card_id"], r["path"]))
    keys = ("card_id", "title", "scope", "kind", "claim", "matched_tags", "path")
    return _clip_cards([{key: item.get(key) for key in keys} for item in ordered[:NEIGHBOURS]])


INSTRUCTIONS = (
    "Complete the payload: for each lesson, decide patch / new / neighbor_but_separate against the neighbours "
    "and list each neighbour you weighed in neighbor_decisions as {candidate_card_id, decision, target_run_id, "
    "reason}; write each card with memory.write(scope='global', metadata={claim, lineage, confidence}) and list "
    "it in cards_written as {card_id, scope: 'global', action: 'new' | 'patch', target_run_id}; replace every "
    "'<FILL: ...>' text (reason_if_empty: why no card was written; not read when cards_written lists cards). Keep "
    "reviewed_run_ids and the other keys as given. Then call validate_distill_review(payload=<the completed "
    "payload>) until it answers ok, then artifact.record(payload=<that payload>), then check_closure."
)


def draft_distill_review(root: Path | str, run_ids: Sequence[str], home: Path | str | None = None) -> dict[str, Any]:
    """A review payload for ``run_ids`` in the encoding the quest's DeepScientist accepts, with
    each run's neighbouring cards. Every id must be a completed run; one already covered may
    be reviewed again."""
    if isinstance(run_ids, str):  # one id, not its characters
        run_ids = [run_ids]
    ids = list(dict.fromkeys(run_ids))
    if not ids:
        raise QuestError("run_ids must name at least one completed run by its artifact id (run-xxxxxxxx); "
                         "list_distill_candidates lists them")
    if len(ids) > MAX_LIMIT:
        raise QuestError(f"run_ids may name at most {MAX_LIMIT} runs, not {len(ids)}; review them in batches")
    report = evaluate(root, "candidates")
    quest = report.quest
    completed = {run.artifact_id: run for run in report.completed_runs}
    for index, run_id in enumerate(run_ids):
        if run_id not in completed:
            raise QuestError(_not_reviewable(quest, run_id, index))
    entry = stage_entry_tags(quest.root)
    neighbours: dict[str, list[dict[str, Any]]] = {}
    run_tags: dict[str, list[str]] = {}
    for run_id in ids:
        data, _ = read_record(quest, completed[run_id])
        own = list(normalize_tags(card_tags((data or {}).get("tags"))))
        run_tags[run_id] = own
        query = (text_of((data or {}).get("summary")) or "")[:QUERY_CHARS] or None
        neighbours[run_id] = _neighbours(quest.root, [*own, *entry.tags], query, home)
    pending = set(report.pending_run_ids)
    return {
        "schema_version": SCHEMA_VERSION,
        "encoding": report.review_encoding,
        "payload": draft_payload(ids, report.review_encoding),
        "neighbours": neighbours,
        "recall": {"stage_tags": entry.tags, "tag_sources": entry.sources, "run_tags": run_tags,
                   "query": f"each run's summary (its first {QUERY_CHARS} characters)"},
        "already_reviewed": [run_id for run_id in ids if run_id not in pending],
        "instructions": INSTRUCTIONS,
    }


validate_distill_review = validate_review  # what closure would say about a review before it is recorded (the engine's)


def call(name: str, root: Path | str, given: dict[str, Any], home: Path | str | None = None) -> dict[str, Any]:
    """The tool ``name`` as an agent calls it: its arguments out of ``given``, checked against
    the table's schemas (``toolspec.checked``), passed to the function of that name here."""
    spec = BY_NAME.get(name)
    if spec is None:
        raise QuestError(f"unknown tool {name!r}")
    try:
        arguments = checked(spec, given)
    except BadArgument as exc:
        raise QuestError(str(exc)) from None
    function: Callable[..., dict[str, Any]] = globals()[name]
    return function(root, **arguments, **({"home": home} if spec.reads_home else {}))
