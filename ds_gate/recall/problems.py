"""What is wrong with a recalled card, said with it (issue 38): a card that fails its schema or
whose lineage is broken is still a lesson an agent may read, so recall returns it, marked with
the finding ``ds-gate check`` or ``ds-gate lineage`` would report, rather than as a plain result."""

from __future__ import annotations

from typing import Any

from ds_gate.kernel.schema_fast import accepts
from ds_gate.model.records import same_quest


def card_problems(card: Any) -> list[dict[str, str]] | None:
    """What ``ds-gate check`` and ``ds-gate lineage`` find in the card on its own: its schema
    (``card.schema``, ``card.experience-schema``) and the lineage rules a card answers alone
    (``lineage.not-origin``, ``lineage.repeated-entry``; whether each run exists is
    ``ds-gate lineage``'s to say, as it reads every quest's records). Judged when the card is
    read, kept in its cache row; the rules (and jsonschema) load only for a card the kernel's
    fast check refuses or whose lineage looks wrong, so a home of sound cards never loads them."""
    meta = card.meta
    name = "experience_card" if card.is_experience else "knowledge_card"
    if accepts(name, meta) and not _lineage_suspect(card):
        return None
    return _findings(card) or None


def _lineage_suspect(card: Any) -> bool:
    entries = [e for e in card.lineage if isinstance(e, dict)]
    pairs = [(str(e.get("quest")).strip(), str(e.get("run")).strip()) for e in entries]
    origins = card.origin_quests()
    first = pairs[0][0] if pairs else None
    return len(set(pairs)) < len(pairs) or bool(first and origins and not any(same_quest(first, o) for o in origins))


def _findings(card: Any) -> list[dict[str, str]]:
    from ds_gate.rules.cards import card_schema_findings
    from ds_gate.rules.lineage import LINEAGE_ORIGIN_UNKNOWN, chain_findings

    found = [*card_schema_findings(card.meta, card.display, card.line), *chain_findings(card, lambda quest: None)]
    return [
        {
            "rule": f.rule,
            "message": f.message,
            **({"pointer": f.pointer} if f.pointer else {}),
            **({"hint": f.hint} if f.hint else {}),
        }
        for f in found
        if f.rule != LINEAGE_ORIGIN_UNKNOWN.id
    ]


def problem_rows(value: Any) -> bool:
    return type(value) is list and all(
        type(p) is dict and all(type(k) is str and type(v) is str for k, v in p.items()) for p in value
    )
