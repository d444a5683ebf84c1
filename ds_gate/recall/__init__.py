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
The package re-exports the names below (``from ds_gate.recall import list_knowledge_summaries``).
"""

from __future__ import annotations

from ds_gate.recall.api import (
    MAX_LIMIT,
    SCOPES,
    list_knowledge_summaries,
    tags_for_stage,
)
from ds_gate.recall.cache import CACHE_NAME, CACHE_VERSION, Cache
from ds_gate.recall.entries import Entry
from ds_gate.recall.index import Index, Root
from ds_gate.recall.jsonl import JSONL_TYPES, read_jsonl
from ds_gate.recall.stage import StageTags, stage_entry_tags
from ds_gate.recall.tags import normalize_tag, normalize_tags

__all__ = ["CACHE_NAME", "CACHE_VERSION", "Cache", "Entry", "Index", "JSONL_TYPES", "MAX_LIMIT", "Root", "SCOPES", "StageTags", "list_knowledge_summaries", "normalize_tag", "normalize_tags", "read_jsonl", "stage_entry_tags", "tags_for_stage"]
