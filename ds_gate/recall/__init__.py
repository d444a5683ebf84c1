"""Recall of lessons: the RFC's ``memory.list_knowledge_summaries(domain_tags, kind, limit)``.

DeepScientist never implemented it: its memory search is one substring match ordered by
time, over the last 500 files only. Here:

- **One tag normalisation** for cards and queries (``normalize_tag``): NFKC, casefold,
  strip, runs of spaces/underscores to ``-``; ``stage:``/``topic:`` prefixes stay.
- **A total, deterministic order**: tag overlap (descending), ``updated_at`` (descending),
  card id, path. Empty ``domain_tags``: recency, same tie-breaks. ``kind`` filters before
  ``limit``; nothing is truncated before ranking; every card file is read.
- **A lexical fallback** (``query=``): cards with no tag overlap rank after every
  overlapping card, by SQLite FTS5 ``bm25()`` over title, claim and body.
- **Speed**: cards are parsed with the C YAML loader; a cache in the user's cache folder
  (``io.cache_dir``, one file per home; never in the home) keeps each parsed card keyed by
  (path, ``mtime_ns``, size). SQLite makes it atomic and safe with two processes at once; a
  corrupt cache is rebuilt. Within a process the index stays in memory and is revalidated
  from the stamps of the memory folders and their ``_index.jsonl`` (MemoryService appends
  to it on every write); ``refresh=True`` re-stats every file.

Modules: ``tags`` (normalisation), ``entries`` (the slim card), ``cache`` (SQLite),
``index`` (ranking), ``jsonl`` (ScienceClaw's findings), ``stage`` (stage-entry tags from
the quest), ``api`` (the calls below).
Names are re-exported lazily: ``import ds_gate.recall`` loads no SQLite.
"""

from __future__ import annotations

_NAMES = {
    "list_knowledge_summaries": "api", "tags_for_stage": "api", "stage_entry_tags": "stage", "StageTags": "stage", "SCOPES": "api", "_INDEXES": "api",
    "MAX_LIMIT": "api", "normalize_tag": "tags", "normalize_tags": "tags", "Entry": "entries", "Cache": "cache",
    "CACHE_NAME": "cache", "CACHE_VERSION": "cache", "Index": "index", "Root": "index", "read_jsonl": "jsonl",
    "JSONL_TYPES": "jsonl",
}
__all__ = sorted(n for n in _NAMES if not n.startswith("_"))


def __getattr__(name: str) -> object:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'ds_gate.recall' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"ds_gate.recall.{module}"), name)
