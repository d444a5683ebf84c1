"""Recall of lessons: the RFC's ``memory.list_knowledge_summaries(domain_tags, kind, limit)``, which
DeepScientist never implemented, with a text query, the lessons' content and copies collapsed.
docs/recall.md says what it does and docs/recall-ranking.md how it ranks.

Modules: ``tags`` (normalisation and matching), ``entries`` (the slim card, its summary and
content key), ``cache`` (SQLite), ``snapshot`` (the built index in the cache), ``index``
(ranking), ``text`` (FTS5), ``jsonl`` (ScienceClaw's findings), ``stage`` (stage-entry tags from
the quest), ``api`` (the calls: ``ds_gate.list_knowledge_summaries`` is ``api``'s).
"""
