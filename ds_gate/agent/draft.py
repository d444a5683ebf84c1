"""``draft_distill_review``: a review payload ready for the agent to complete, with each run's
neighbouring cards, so the patch / new / separate decision is made against what memory holds.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ds_gate.engine.gate import evaluate
from ds_gate.engine.run_details import clip_text, read_record
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.model.findings import SCHEMA_VERSION
from ds_gate.model.records import Quest, text_of, timestamp
from ds_gate.model.reports import MAX_LIMIT
from ds_gate.model.review_call import draft_payload
from ds_gate.recall.api import list_knowledge_summaries as recall_summaries
from ds_gate.recall.stage import stage_entry_tags
from ds_gate.recall.tags import normalize_tags
from ds_gate.rules.coverage import RunIndex
from ds_gate.sources.memory import card_tags

NEIGHBOURS = 5  # cards shown beside each run: enough to decide patch / new / separate
QUERY_CHARS = 500  # of a run's summary, as recall's text query


def clip_cards(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A card's title and claim, bounded like a run's summary (a card is the agent's text too)."""
    for item in results:
        for key in ("title", "claim"):
            item[key] = clip_text(item.get(key))[0]
    return results


def _not_reviewable(quest: Quest, run_id: str, index: int) -> str:
    """Why ``run_id`` cannot be drafted, worded as the CLI's ``review.unknown-run`` finding."""
    run = quest.runs.get(run_id)
    if run is not None:
        return (
            f"run_ids[{index}] is {shown(run_id)}, a run of this quest that is not completed (status {shown(run.status)}, "
            f"run_kind {shown(run.run_kind)}); only completed runs are reviewed (see list_distill_candidates)"
        )
    same = RunIndex(quest).by_run_id.get(run_id, [])
    if same:
        guess = " or ".join(same)
        return (
            f"run_ids[{index}] is {shown(run_id)}, the experiment run_id of {guess}, not a run artifact id; "
            f"did you mean {guess}? a review lists run artifact ids (run-xxxxxxxx)"
        )

    close = difflib.get_close_matches(run_id, list(quest.runs), n=1, cutoff=0.8)
    return f"run_ids[{index}] is {shown(run_id)}, which is not a run of this quest; " + (
        f"did you mean {close[0]}?" if close else "list_distill_candidates lists the runs to review"
    )


def _neighbours(
    root: Path | str, tags: Sequence[str], query: str | None, home: Path | str | None
) -> list[dict[str, Any]]:
    """The closest cards of the home's global memory and the quest's own, merged in recall's
    order (shared tags, then text match, then recency); a promoted card once, as its global copy."""
    found: dict[str, dict[str, Any]] = {}
    for scope in ("global", "quest"):
        for item in recall_summaries(tags, None, NEIGHBOURS, home=home, quest=root, scope=scope, query=query):
            found.setdefault(item["card_id"], item)
    ordered = sorted(
        found.values(),
        key=lambda r: (
            -r["overlap"],
            -r.get("lexical_score", 0.0),
            -timestamp(r["updated_at"]),
            r["card_id"],
            r["path"],
        ),
    )
    keys = ("card_id", "title", "scope", "kind", "claim", "matched_tags", "path")
    return clip_cards([{key: item.get(key) for key in keys} for item in ordered[:NEIGHBOURS]])


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
        raise QuestError(
            "run_ids must name at least one completed run by its artifact id (run-xxxxxxxx); "
            "list_distill_candidates lists them"
        )
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
        "recall": {
            "stage_tags": entry.tags,
            "tag_sources": entry.sources,
            "run_tags": run_tags,
            "query": f"each run's summary (its first {QUERY_CHARS} characters)",
        },
        "already_reviewed": [run_id for run_id in ids if run_id not in pending],
        "instructions": INSTRUCTIONS,
    }
