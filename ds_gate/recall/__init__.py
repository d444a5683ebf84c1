"""Recall of lessons: the RFC's ``memory.list_knowledge_summaries(domain_tags, kind, limit)``,
with a text query, the lessons' content and copies collapsed (docs/recall-ranking.md).

DeepScientist never implemented it: its memory search is one substring match ordered by
time, over the last 500 files only. Here:

- **Tags**: one normalisation for cards and queries (``normalize_tag``: NFKC, casefold,
  ``-``/``_``/space), and one matching key (``match_key``: plurals, British spellings; a
  query tag with no ``key:`` prefix matches any prefix). A query tag no card carries is
  reported with the closest known tags.
- **Order**: tags only -> the RFC's order exactly: shared-tag count (descending),
  ``updated_at`` (descending), card id, path; ``order="relevance"`` ranks the tags as text
  instead. A query (or tags that match no card) -> SQLite FTS5 ``bm25()`` with the porter
  stemmer over title, tags, claim and body, the tags' words counted as words of the query,
  in one ranking (a text match is never hidden by cards that only share a tag). No tags and
  no query: the most recent. ``kind`` filters before ``limit``; every card file is read.
- **Content**: each result's ``summary`` (claim and first body lines; a JSONL record's
  lesson fields), all summaries within ``max_chars``.
- **Copies**: results with the same normalised content are one result listing every copy
  (``copies``) and how many quests hold it (``support``, optionally a tie-breaker).
- **Speed**: cards are parsed with the C YAML loader; a cache in the user's cache folder
  (``io.cache_file``, one file per home; never in the home) keeps each parsed card keyed by
  its path and stat (size, ``mtime_ns``, ``ctime_ns``, inode, device). SQLite makes it atomic and safe with two processes at
  once; a corrupt cache is rebuilt. Within a process the index stays in memory and is
  revalidated from the stamps of the memory folders and their ``_index.jsonl``
  (MemoryService appends to it on every write); ``refresh=True`` re-stats every file. A new
  process ranks from a snapshot of the built index kept in the cache file (``snapshot``: keyed
  by a digest of every card file's stat), with the FTS5 table kept there too, and makes an
  entry only for the results it shows.

Modules: ``tags`` (normalisation and matching), ``entries`` (the slim card, its summary and
content key), ``cache`` (SQLite), ``snapshot`` (the built index in the cache), ``index``
(ranking), ``text`` (FTS5), ``jsonl`` (ScienceClaw's findings), ``stage`` (stage-entry tags from
the quest), ``api`` (the calls: ``ds_gate.list_knowledge_summaries`` is ``api``'s).
"""
