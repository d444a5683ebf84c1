"""The RFC's ``memory.list_knowledge_summaries(domain_tags, kind, limit)`` and the
stage-entry tags: what callers use; the index does the work, once per process."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ds_gate.io.cache_dir import cache_name, user_cache_dir
from ds_gate.kernel import fs
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.model.reports import MAX_LIMIT, check_limit
from ds_gate.recall.cache import Cache
from ds_gate.recall.index import Index, Root
from ds_gate.recall.stage import stage_entry_tags
from ds_gate.recall.tags import normalize_tags
from ds_gate.sources.location import locate
from ds_gate.sources.memory import resolve_home

__all__ = ["MAX_LIMIT", "SCOPES", "list_knowledge_summaries", "check_kind", "recall_with_counts", "tags_for_stage"]  # MAX_LIMIT: re-exported

SCOPES = ("global", "quest", "visible")
_INDEXES: dict[tuple[Any, ...], Index] = {}


def _roots(home: Path, quest: Path | None, scope: str) -> list[Root]:
    roots: list[Root] = []
    if scope in ("global", "visible"):
        roots.append(Root(home / "memory", "global", home))
    if scope in ("quest", "visible") and quest is not None:
        roots.append(Root(quest / "memory", "quest", quest))
    if scope == "visible":
        try:
            others = sorted(p for p in (home / "quests").iterdir() if p.is_dir())
        except OSError:
            others = []
        roots.extend(Root(p / "memory", "shared_quest", p) for p in others if quest is None or p.resolve() != quest)
    return roots


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
) -> list[dict[str, Any]]:
    """Cards whose tags overlap ``domain_tags``, best first (see the module docstring)."""
    results, _ = recall_with_counts(domain_tags, kind, limit, home=home, quest=quest, scope=scope, query=query,
                                    jsonl=jsonl, refresh=refresh, cache=cache)
    return results


def recall_with_counts(
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
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """``list_knowledge_summaries`` and the counts behind it (``Index.counts``), from one index:
    an agent told "20 cards" should also learn whether 20 or 2,000 were left out, and why."""
    if isinstance(domain_tags, str):
        domain_tags = domain_tags.split(",")
    check_limit(limit)
    if scope not in SCOPES:
        raise QuestError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    if not jsonl:
        check_kind(kind)
    quest_path = None
    if quest is not None:
        quest_path = locate(quest).root
    home_path = resolve_home(home, quest_path)
    if scope == "quest" and quest_path is None:
        raise QuestError("scope 'quest' needs a quest (--quest PATH)")
    sources = [Path(p) for p in jsonl]
    for source in sources:
        if not os.path.isfile(source):
            problem = fs.hidden(source)
            raise QuestError(f"cannot read {source}: {problem.strerror if problem else 'no such file'}")
    key = (str(home_path), str(quest_path), scope, tuple(str(p) for p in sources), cache)
    roots = _roots(home_path, quest_path, scope)  # each call: a quest added since is seen
    index = _INDEXES.get(key)
    if index is None:
        store = Cache(user_cache_dir(), cache_name("recall", home_path)) if cache else Cache(None)
        index = Index(roots, store, sources)
        index.build()
        _INDEXES[key] = index
    else:
        index.roots = roots
        if refresh or index.signature() != index.stamp:
            index.build()
    tags = normalize_tags(domain_tags or ())
    return index.rank(tags, kind, limit, query), index.counts(tags, kind, query)


def check_kind(kind: str | None) -> str | None:
    """A recall ``kind`` (a memory folder, or None for every kind), or the error a caller sees."""
    if kind is not None and kind not in MEMORY_KINDS:
        raise QuestError(f"kind must be one of {', '.join(MEMORY_KINDS)}, not {kind!r}")
    return kind


def tags_for_stage(quest: Path | str, stage: str | None = None) -> tuple[list[str], bool]:
    """The RFC's stage-entry tags and whether the quest turned ``recall_priors`` on (see
    ``recall.stage``: domains, ``stage:<stage>`` and the quest's own card tags)."""
    found = stage_entry_tags(quest, stage)
    return found.tags, found.recall_priors
