"""The memory side of the gate: card checks for a quest (``check``/``closure``) and for a
home (``ds-gate lineage``). Pure checks live in ``checks/``; this module decides which
cards to read, reads each once, and puts the findings together.

The home is read only when something needs it: a review naming a global card, or a
quest-scope lesson (is it promoted already?). A home that does not exist, as in a CI
clone of one quest, makes global entries unverifiable, which is one warning, not an
error per card.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from ds_gate.engine.loader import load_quest
from ds_gate.kernel.errors import shown
from ds_gate.model.findings import Finding, then_hint
from ds_gate.model.records import Card, Quest, Review
from ds_gate.plugins.manager import card_checker
from ds_gate.rules.cards import (
    CARD_HOME_MISSING,
    CardIndex,
    quest_scope_findings,
    review_findings,
)
from ds_gate.rules.lineage import QuestRuns, chain_findings, runs_by_quest
from ds_gate.rules.neighbours import TagIndex, neighbour_findings
from ds_gate.sources.home import Home, quest_cards, valid_quest_id
from ds_gate.sources.home_cards import SharedCards
from ds_gate.sources.shared_memory import Neighbourhood
from ds_gate.sources.visibility import SHARED


@dataclass(slots=True)
class MemoryResult:
    findings: list[Finding] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    home: Path | None = None


def _home_missing(home: Home, what: str) -> Finding:
    return CARD_HOME_MISSING.at(
        None,
        f"no DeepScientist home at {home.path}: {what} not checked",
        hint="pass --home DIR, or set DEEPSCIENTIST_HOME, to check them",
    )


def _rewrite_hint(findings: list[Finding], card: Card) -> list[Finding]:
    """A card's errors, each hint ending in the call that fixes it through DeepScientist:
    ``memory.write`` with the card's own title writes its file again (the file is named
    after the title), with the corrected metadata."""
    title = (card.title or "<its title>")[:200]  # the reporters escape what they show
    call = (
        f"memory.write(kind={shown(card.kind)}, title={shown(title)}, scope={shown(card.scope)}, "
        "metadata={<its frontmatter, corrected>}) writes this card's file again"
    )
    return [
        replace(f, hint=then_hint(f.hint, f"through DeepScientist: {call}") if f.hint else call)
        if f.severity == "error" and f.path == card.display
        else f
        for f in findings
    ]


def quest_memory(
    quest: Quest,
    reviews: list[Review],
    home_dir: Path | str | None = None,
    shared: SharedCards | None = None,
    closing: bool = True,
) -> MemoryResult:
    """Card findings for ``check``/``closure``: the quest's own cards, and the cards its
    valid reviews say they wrote. ``shared``: the global cards read once for a run over many
    quests (``closure --all-quests``); the findings are the same as without it. ``closing``: the
    gate closes (not ``check``), where the neighbour rules are errors (``rules.policy.at_closure``)."""
    out = MemoryResult()
    own, found = quest_cards(quest)
    out.findings.extend(found)
    out.cards.extend(own)
    valid = [quest.decisions[r.artifact_id] for r in reviews if r.valid and r.artifact_id in quest.decisions]
    entries = [e for d in valid for e in d.cards_written]
    neighbours = any(d.neighbor_decisions for d in valid)
    needs_global = neighbours or any(e.get("scope") == "global" or e.get("action") == "new" for e in entries)
    lessons = [c for c in own if c.is_experience and not c.broken]
    if not (own or entries or neighbours):
        return out  # no card to look at: the card rules are not even imported

    home = Home(
        home_dir, base=quest.root, load=functools.partial(load_quest, runs_only=True), quest=quest.root, shared=shared
    )
    home.register(quest)
    quest_runs = runs_by_quest(home.quest)
    check_card = card_checker()
    global_index: CardIndex | None = None
    if needs_global or lessons:
        if home.exists:
            global_index = home.index(CardIndex)
            out.findings.extend(home.findings)
            out.home = home.path
        elif any(e.get("scope") == "global" for e in entries):
            out.findings.append(_home_missing(home, "the global cards its reviews name were"))

    unverified: list[str] = []

    def runs_of(quest_id: str) -> QuestRuns | str | None:
        runs = quest_runs(quest_id)
        if isinstance(runs, str) and not home.exists and valid_quest_id(quest_id.strip()):
            unverified.append(quest_id)
            return None  # a clone of one quest: other quests are simply not here
        return runs

    for card in own:
        out.findings.extend(_rewrite_hint([*check_card(card), *chain_findings(card, runs_of)], card))
    if lessons:
        promoted = frozenset(_promoted_from(global_index.cards)) if global_index else frozenset()
        global_ids = set(global_index.by_id) if global_index else set()
        out.findings.extend(quest_scope_findings(lessons, global_ids, promoted, quest.quest_id))

    own_index = CardIndex(own)
    discipline = review_findings(valid, own_index, global_index, str(home.path / "memory"))
    out.findings.extend(discipline.findings)
    place = Neighbourhood(
        home.path, home.exists, quest.root, quest.quest_id, own, home.cards if global_index is not None else None
    )

    def tag_indexes() -> list[TagIndex]:
        """The cards the quest can see, by tags: its own, the global ones (once per run), its siblings' if shared."""
        tables = [TagIndex(own), *([home.index(TagIndex)] if global_index is not None else [])]
        return tables + ([TagIndex(place.siblings())] if place.mode == SHARED else [])

    near = neighbour_findings(valid, own_index, global_index, place, functools.cache(tag_indexes), closing)
    out.findings.extend(near.findings)
    if near.unchecked and not home.exists:
        out.findings.append(_home_missing(home, "the cards its neighbour decisions name were"))
    seen = {card.path for card in own}
    for card in discipline.written:
        if card.path in seen:
            continue
        seen.add(card.path)
        card = home.own(card)
        out.cards.append(card)
        out.findings.extend(_rewrite_hint([*check_card(card), *chain_findings(card, runs_of)], card))
    if unverified:
        out.findings.append(_home_missing(home, f"lineage links to quest {', '.join(sorted(set(unverified)))} were"))
    return out


def _promoted_from(cards: list[Card]) -> list[str]:
    """The quest card files global cards were promoted from (main's ``promoted_from.path``)."""
    found = (card.meta.get("promoted_from") for card in cards)
    return [os.path.normpath(p["path"]) for p in found if isinstance(p, dict) and isinstance(p.get("path"), str)]
