"""``recall``: lessons from memory cards, for an agent about to start a stage."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ds_gate.cli._shared import EXIT_OK, HOME_HELP, emit
from ds_gate.cli.kept import answered
from ds_gate.config.settings import load
from ds_gate.model import RecallReport
from ds_gate.recall.api import DEFAULT_ORDER, MAX_CHARS, ORDERS, STAGE_ORDER, recall
from ds_gate.recall.jsonl import SourceProblem, problem_notes
from ds_gate.recall.stage import priors_off, stage_entry_tags
from ds_gate.recall.visible import FLAG_CHOICES, FOLLOW
from ds_gate.reporters.escape import printable

if TYPE_CHECKING:
    import argparse

    from ds_gate.kernel.answers import Watch


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("--tags", default="", help="domain tags, comma-separated (normalised like the cards' tags)")
    p.add_argument(
        "--kind",
        help="only this memory kind (knowledge, papers, ...) or, with --jsonl, record type (pitfall, "
        "strategy, ideation, finding); applied before --limit",
    )
    p.add_argument("--limit", type=int, default=20, help="how many (1..200; default 20)")
    p.add_argument(
        "--scope",
        choices=("global", "quest", "visible"),
        default="visible",
        help="global memory, the quest's, or both plus other quests' (default: visible)",
    )
    p.add_argument(
        "--query",
        help="free text: cards and records ranked by BM25 over title, tags, claim and body (the "
        "--tags' words count as words of the query)",
    )
    p.add_argument(
        "--order",
        choices=ORDERS,
        default=None,
        help="with tags only: rfc (shared-tag count, then recency; the default) or relevance (each shared tag "
        "weighted by its rarity; the default with --for-stage); either is followed, when fewer than --limit "
        "cards share a tag, by cards whose text matches the tags' words",
    )
    p.add_argument(
        "--support",
        action="store_true",
        help="among results that rank equal, put first the lesson more quests hold a copy of",
    )
    p.add_argument(
        "--max-chars",
        type=int,
        default=None,
        metavar="N",
        help=f"at most N characters of summaries in all (default {MAX_CHARS:,}); the best-ranked are cut last",
    )
    p.add_argument(
        "--quest", metavar="PATH", help="the quest whose memory is in scope (default: none, or . with --for-stage)"
    )
    p.add_argument("--home", metavar="DIR", help=HOME_HELP)
    p.add_argument(
        "--visibility",
        choices=FLAG_CHOICES,
        default=None,
        help="which quests' cards to read (default: the home's memory.read_visibility_mode in config/config.yaml, "
        "as DeepScientist reads it): independent (global and --quest's own), shared_across_quests (also the other "
        "quests' and the home's quirks files) or all (every quest folder: a human's widening, which no agent tool "
        "offers)",
    )
    p.add_argument(
        "--jsonl",
        action="append",
        metavar="PATH",
        help="also recall from a ScienceClaw findings.jsonl (added to the recall_jsonl files of the trusted configuration)",
    )
    p.add_argument(
        "--for-stage",
        metavar="STAGE",
        nargs="?",
        const="",
        help="tags from the quest when recall_priors is on: stage:STAGE (default: its active_anchor), its "
        "domains and its own cards' most used tags",
    )
    p.add_argument("--refresh", action="store_true", help="re-check every card file against the cache")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the cache (in $DS_GATE_CACHE_DIR, else $XDG_CACHE_HOME/ds-gate or ~/.cache/ds-gate)",
    )


def run(args: argparse.Namespace) -> int:
    """Never fails: an empty answer is an answer, and priors turned off is a note. The answer is
    kept for the next process that asks the same, while nothing it read changes (``cli.kept``)."""
    return answered(args, _run)


def _run(args: argparse.Namespace, watch: Watch | None) -> int:
    tags = [t for t in (args.tags or "").split(",") if t.strip()]
    notes: list[str] = []
    staged: dict[str, object] = {}
    if args.for_stage is not None:
        entry = stage_entry_tags(args.quest or ".", args.for_stage)
        staged = {"for_stage": entry.stage, "tag_sources": entry.sources}
        if not entry.recall_priors:
            request = {"domain_tags": tags, **staged}
            emit(
                RecallReport(
                    command="recall", ok=True, findings=[], notes=[priors_off("--tags")], results=[], request=request
                ),
                args,
            )
            return EXIT_OK
        if tags:
            entry.sources["--tags"] = tags
        tags = entry.tags
        notes.append(entry.describe())
        if args.order is None:  # a dozen tags of unequal weight, assembled here: docs/recall-ranking.md
            args.order = STAGE_ORDER
    args.order = args.order or DEFAULT_ORDER
    quest = args.quest if args.quest or args.scope == "quest" or args.for_stage is not None else None
    trusted = load(watch=watch)
    if trusted.problem:
        warn(f"{trusted.problem}; the JSONL files its recall_jsonl names are not read")
    found = recall(
        tags,
        args.kind,
        args.limit,
        home=args.home,
        quest=quest or None,
        scope=args.scope,
        query=args.query,
        jsonl=args.jsonl or (),
        refresh=args.refresh,
        cache=not args.no_cache,
        max_chars=args.max_chars,
        support=args.support,
        order=args.order,
        configured_jsonl=trusted.recall_jsonl,
        visibility=args.visibility or FOLLOW,
        watch=watch,
    )
    for line in problem_notes([SourceProblem(**p) for p in found["source_problems"]]):
        warn(line)
    notes.extend(unmatched_notes(found["unmatched_tags"]))
    notes.extend(found["notes"])
    request = {
        "domain_tags": tags,
        "kind": args.kind,
        "limit": args.limit,
        "scope": args.scope,
        "query": args.query,
        "order": args.order,
        "max_chars": args.max_chars,
        **staged,
    }
    extra = {
        key: found[key]
        for key in ("rank_by", "unmatched_tags", "collapsed", "home", "home_exists", "source_problems", "visibility")
    }
    emit(
        RecallReport(
            command="recall", ok=True, findings=[], notes=notes, results=found["results"], request=request, recall=extra
        ),
        args,
    )
    return EXIT_OK


def unmatched_notes(unmatched: list[dict[str, object]]) -> list[str]:
    """One line per query tag no card carries, with the closest tags that cards do carry."""
    out = []
    for item in unmatched:
        near = item.get("closest") or []
        hint = f"; closest known: {', '.join(map(str, near))}" if isinstance(near, list) and near else ""
        out.append(f"no card carries the tag {item['tag']}{hint}")
    return out


def warn(line: str) -> None:
    """A warning on stderr (a skipped JSONL line, a configured file not read): the answer still stands."""
    if sys.stderr is not None:
        print(printable(f"ds-gate: warning: {line}"), file=sys.stderr)
