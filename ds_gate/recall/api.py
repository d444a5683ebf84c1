"""The RFC's ``memory.list_knowledge_summaries(domain_tags, kind, limit)`` and the
stage-entry tags: what callers use; the index does the work, once per process."""

from __future__ import annotations

import difflib
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.io.cache_file import cache_name
from ds_gate.kernel import fs
from ds_gate.kernel.cache_folder import user_cache_dir
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.given_path import given_path, spelled
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.model.reports import check_limit
from ds_gate.recall.cache import Cache
from ds_gate.recall.entries import fit_summaries
from ds_gate.recall.files import Source
from ds_gate.recall.index import DEFAULT_ORDER, ORDERS, STAGE_ORDER, Index
from ds_gate.recall.jsonl import JSONL_TYPES, read_jsonl
from ds_gate.recall.quirks import QUIRKS_KIND
from ds_gate.recall.snapshot import Stale
from ds_gate.recall.stage import quest_folder
from ds_gate.recall.tags import normalize_tags
from ds_gate.recall.visible import FOLLOW, VISIBILITIES, add_document_ids, linked_note, plan
from ds_gate.sources.memory import resolve_home

if TYPE_CHECKING:
    from ds_gate.kernel.answers import Watch

__all__ = [
    "DEFAULT_ORDER",
    "MAX_CHARS",
    "ORDERS",
    "SCOPES",
    "STAGE_ORDER",
    "VISIBILITIES",
    "check_chars",
    "check_kind",
    "list_knowledge_summaries",
    "recall",
]  # re-exported: the orders

SCOPES = ("global", "quest", "visible")
_INDEXES: dict[tuple[Any, ...], Index] = {}
_LOCK = threading.Lock()


def list_knowledge_summaries(
    domain_tags: Iterable[str] | str | None = (),
    kind: str | None = None,
    limit: int = 20,
    *,
    home: Path | str | None = None,
    quest: Path | str | None = None,
    scope: str = "visible",
    query: str | None = None,
    jsonl: Sequence[Path | str] = (),
    refresh: bool = False,
    cache: bool = True,
    max_chars: int | None = None,
    support: bool = False,
    order: str = DEFAULT_ORDER,
    visibility: str = FOLLOW,
) -> list[dict[str, Any]]:
    """Cards and records for ``domain_tags`` and ``query``, best first, each with its title
    and a summary of its content, copies of one lesson collapsed (docs/recall.md); what other
    quests' cards are seen follows the home's ``memory.read_visibility_mode`` unless ``visibility``
    names a mode (``recall.visible``)."""
    found = recall(
        domain_tags,
        kind,
        limit,
        home=home,
        quest=quest,
        scope=scope,
        query=query,
        jsonl=jsonl,
        refresh=refresh,
        cache=cache,
        max_chars=max_chars,
        support=support,
        order=order,
        visibility=visibility,
    )
    if home is not None and not found["home_exists"] and scope != "quest":  # a list has no place for recall's note
        hidden = fs.hidden(found["home"])
        wrong = f"cannot read the DeepScientist home ({hidden.strerror})" if hidden else "no such DeepScientist home"
        raise QuestError(f"{spelled(found['home'])}: {wrong} — pass home=, the folder that holds memory/")
    rows: list[dict[str, Any]] = found["results"]
    return rows


def recall(
    domain_tags: Iterable[str] | str | None = (),
    kind: str | None = None,
    limit: int = 20,
    *,
    home: Path | str | None = None,
    quest: Path | str | None = None,
    scope: str = "visible",
    query: str | None = None,
    jsonl: Sequence[Path | str] = (),
    refresh: bool = False,
    cache: bool = True,
    max_chars: int | None = None,
    support: bool = False,
    order: str = DEFAULT_ORDER,
    configured_jsonl: Sequence[Path] = (),
    visibility: str = FOLLOW,
    watch: Watch | None = None,
) -> dict[str, Any]:
    """Everything one recall says: ``results``, ``rank_by`` (recent, tags, text), the query
    tags no card carries with the closest known tags (``unmatched_tags``), ``counts``,
    ``collapsed`` (copies folded into a result), ``notes``, ``home`` (with whether it exists)
    ``source_problems`` (what the JSONL sources' reading skipped) and ``visibility`` (the mode
    applied, where it came from, the quirks files read). ``configured_jsonl``: the trusted
    configuration's ``recall_jsonl``, whose missing or unreadable file is a problem said, where a
    ``jsonl`` source's is an error. ``watch`` gets everything the answer read (``kernel.answers``)."""
    if isinstance(domain_tags, str):
        domain_tags = domain_tags.split(",")
    check_limit(limit)
    check_chars(max_chars)
    if scope not in SCOPES:
        raise QuestError(f"scope must be one of {', '.join(SCOPES)}, not {shown(scope)}")
    given, kind = kind, check_kind(kind, jsonl=bool(jsonl) or bool(configured_jsonl))
    if order not in ORDERS:
        raise QuestError(f"order must be one of {', '.join(ORDERS)}, not {shown(order)}")
    quest_path = None
    if quest is not None:
        quest_path = quest_folder(quest)
    home_path = resolve_home(home, quest_path, watch)
    if scope == "quest" and quest_path is None:
        raise QuestError("scope 'quest' needs a quest (--quest PATH)")
    jsonl_paths = _jsonl_sources(jsonl)
    given_files = {os.path.abspath(p) for p in jsonl_paths}
    configured = [Path(p) for p in configured_jsonl if os.path.abspath(p) not in given_files]  # each read once
    seen = plan(home_path, quest_path, scope, visibility, watch)  # each call: the setting and quests as they are now
    sources = [
        *(Source(p, read_jsonl) for p in jsonl_paths),
        *(Source(p, read_jsonl, lenient=True) for p in configured),
        *seen.sources(),
    ]
    key = (
        str(home_path),
        str(quest_path),
        scope,
        seen.visibility.mode,
        tuple(map(str, jsonl_paths)),
        tuple(map(str, configured)),
        cache,
    )
    with _LOCK:  # one index per process, its cache connection with it: one call uses them at a time
        index = _INDEXES.get(key)
        if index is None:
            store = Cache(user_cache_dir(), cache_name("recall", home_path)) if cache else Cache(None)
            index = Index(seen.roots, store, sources)
            index.build()
            _INDEXES[key] = index
        else:
            index.roots, index.sources = seen.roots, sources
            if refresh or index.signature() != index.stamp:
                index.build()
        tags = normalize_tags(domain_tags or ())
        try:
            ranking = index.rank(tags, kind, limit, query, support, order)
        except Stale:  # the cache's snapshot names a row that changed under it: build from the cards
            index.build(snapshot=False)
            ranking = index.rank(tags, kind, limit, query, support, order)
        of_kind = len(index.entries) if kind is None else index.kinds[kind]
        cards = len(index.entries)
        problems = [p.as_dict() for p in index.problems]
        linked = linked_note(index.linked)
        if watch is not None:
            index.watched(watch)
    add_document_ids(ranking.rows, seen.roots)
    notes = [*seen.notes, *linked, *seen.kind_note(kind), *ranking.notes]
    if kind != given:
        notes.append(
            f"kind {shown(given)} is read as {shown(kind)} (recall's kinds are memory folders, plural; "
            "recent --kind takes artifact kinds, singular)"
        )
    truncated = fit_summaries(ranking.rows, max_chars if max_chars is not None else MAX_CHARS)
    if truncated:
        notes.append(
            f"summaries cut to fit max_chars={max_chars if max_chars is not None else MAX_CHARS} "
            "(summary_truncated on each cut one); read the card at its path for the rest"
        )
    home_exists = fs.is_dir(home_path)
    if not home_exists and scope != "quest":
        notes.append(
            f"the DeepScientist home {home_path} does not exist, so there is no global memory to recall "
            "from; pass --home DIR (or set DEEPSCIENTIST_HOME) to name it"
        )
    return {
        "results": ranking.rows,
        "rank_by": ranking.mode,
        "unmatched_tags": ranking.unmatched,
        "counts": {"cards": cards, "of_kind": of_kind, "eligible": ranking.eligible},
        "collapsed": ranking.collapsed,
        "notes": notes,
        "home": str(home_path),
        "home_exists": home_exists,
        "source_problems": problems,
        "visibility": seen.as_dict(),
    }


def _jsonl_sources(jsonl: object) -> list[Path]:
    """The JSONL files to read, each a regular file that is there, else the error naming it."""
    if isinstance(jsonl, (str, bytes, os.PathLike)) or not isinstance(jsonl, (list, tuple)):
        raise QuestError(f"jsonl must be a list of paths, not {type(jsonl).__name__} {shown(jsonl, 60)}")
    sources = []
    for given in jsonl:
        source = given_path(given, "jsonl source")
        if not os.path.isfile(source):
            problem = fs.hidden(source)
            raise QuestError(
                f"cannot read {spelled(os.fspath(given))}: "
                + (problem.strerror or "unreadable" if problem else "not a regular file (a folder, FIFO or device)")
                + " — pass a JSONL file"
            )
        sources.append(Path(given))
    return sources


MAX_CHARS = 8000  # summary characters in one answer by default: ~2,000 tokens, a fraction of an agent's context
MAX_CHARS_LIMIT = 200_000


def check_chars(max_chars: object) -> None:
    """``max_chars`` (None for the default, else 0..200,000), or the error a caller sees (exit 2)."""
    if max_chars is None:
        return
    if not isinstance(max_chars, int) or isinstance(max_chars, bool) or not 0 <= max_chars <= MAX_CHARS_LIMIT:
        raise QuestError(f"max_chars must be an integer from 0 to {MAX_CHARS_LIMIT:,}, not {shown(max_chars)}")


def check_kind(kind: str | None, jsonl: bool = False) -> str | None:
    """The recall ``kind`` meant (a memory folder, or with JSONL sources also a record type;
    None for every kind), or the error a caller sees. The other command's spelling is taken:
    ``recent --kind`` takes singular artifact kinds, so ``paper`` here is ``papers`` (and
    ``pitfalls`` is ``pitfall``), which ``recall`` notes; anything else close gets a did-you-mean."""
    allowed = (*MEMORY_KINDS, QUIRKS_KIND, *JSONL_TYPES) if jsonl else (*MEMORY_KINDS, QUIRKS_KIND)
    if kind is None or kind in allowed:
        return kind
    if not isinstance(kind, str):
        raise QuestError(f"kind must be one of the memory kinds {', '.join(allowed)} (a str), not {shown(kind, 60)}")
    text = kind.strip().casefold()
    same = next((k for k in allowed if text in (k, k.rstrip("s"), k + "s", k + "es")), None)
    if same is not None:
        return same
    guess = next(iter(difflib.get_close_matches(text, allowed, n=1, cutoff=0.6)), None)
    hint = f"; did you mean {shown(guess)}?" if guess else ""
    where = "memory kinds" + (" and JSONL record types" if jsonl else "")
    raise QuestError(
        f"kind must be one of the {where} {', '.join(allowed)}, not {shown(kind)}{hint} "
        "(recent --kind takes artifact kinds: run, decision, ...)"
    )
