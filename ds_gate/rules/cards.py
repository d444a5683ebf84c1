"""Card rules: each card's frontmatter on its own, and the discipline the RFC asks of reviews.

- Every card passes ``knowledge_card.schema.json``; an experience card (``claim`` or
  ``lineage``) also passes ``experience_card.schema.json``.
- Every ``cards_written`` entry of a valid review names a card that exists in the scope
  it claims (``global``: the home's memory; ``quest``: the quest's).
- A ``new`` card that repeats an existing card (the same normalised body, or the same
  normalised title) needed a neighbour decision naming that card; "existing" means there
  when the review was recorded (``recorded_at``/``written_after``): a card written later,
  by this quest or another, does not fail an earlier review.
- A lesson kept in quest scope never reaches the next quest (the RFC's quest 014: nine
  quest-scope cards, one global), so it is a warning suggesting promotion.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ds_gate.kernel.digest import blake2b
from ds_gate.kernel.errors import shown
from ds_gate.kernel.jsondoc import place, pointer
from ds_gate.model.findings import DISCIPLINE, ERROR, WARNING, Finding, Rule
from ds_gate.model.records import Card, Decision, encoding_note, text_of, timestamp
from ds_gate.model.review_call import rerecord_call
from ds_gate.rules.schema import schema_findings

if TYPE_CHECKING:
    from pathlib import Path

    from ds_gate.io.schema_explain import SchemaError

CARD_SCHEMA = Rule("card.schema", ERROR, DISCIPLINE, "a card's frontmatter breaks `schemas/knowledge_card.schema.json`")
CARD_EXPERIENCE_SCHEMA = Rule(
    "card.experience-schema",
    ERROR,
    DISCIPLINE,
    "an experience card breaks `schemas/experience_card.schema.json` (empty claim, bad lineage entry)",
)
CARD_QUEST_SCOPE_LESSON = Rule(
    "card.quest-scope-lesson", WARNING, DISCIPLINE, "a lesson in quest scope with no global copy; promote it"
)
CARD_HOME_MISSING = Rule(
    "card.home-missing", WARNING, DISCIPLINE, "no home, so the global cards reviews name were not checked"
)
REVIEW_MISSING_CARD = Rule(
    "review.missing-card", ERROR, DISCIPLINE, "a `cards_written` entry names a card that does not exist in its scope"
)
REVIEW_DUPLICATE_CARD = Rule(
    "review.duplicate-card",
    ERROR,
    DISCIPLINE,
    "a `new` card repeats an existing card (body or title) and no neighbor decision names it",
)

_SPACE = re.compile(r"\s+")
Line = Callable[[tuple[str | int, ...]], "int | None"]


def normalise(text: str) -> str:
    """Unicode NFKC, casefold, whitespace collapsed: how two cards are "the same text"."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def card_schema_findings(meta: Mapping[str, Any], display: str | None, line: Line | None = None) -> list[Finding]:
    """Frontmatter against the card schemas: ``card.schema`` for what every card needs,
    ``card.experience-schema`` for what only a lesson needs."""
    experience = "claim" in meta or "lineage" in meta

    def rule(err: SchemaError) -> Rule:
        return CARD_SCHEMA if not experience or err.schema_path[:1] == ("allOf",) else CARD_EXPERIENCE_SCHEMA

    return schema_findings(
        "experience_card" if experience else "knowledge_card",
        dict(meta),
        display,
        line,
        rule,
        subject=text_of(meta.get("id")),
        document="the frontmatter",
    )


def card_findings(card: Card) -> list[Finding]:
    """What is wrong with one card on its own: unreadable frontmatter, or its schema."""
    if card.broken:
        return list(card.findings)
    return [*card.findings, *card_schema_findings(card.meta, card.display, card.line)]


class CardIndex:
    """Cards by id, by normalised body and by normalised title (built on first use)."""

    def __init__(self, cards: Iterable[Card]) -> None:
        self.cards = [c for c in cards if not c.broken]
        self.by_id: dict[str, list[Card]] = {}
        for card in self.cards:
            if card.card_id:
                self.by_id.setdefault(card.card_id, []).append(card)
        self._bodies: dict[str, list[Card]] | None = None
        self._titles: dict[str, list[Card]] | None = None

    @staticmethod
    def body_key(card: Card) -> str | None:
        text = normalise(card.body)
        return blake2b(text.encode(), digest_size=16).hexdigest() if text else None  # a grouping key, never shown

    @staticmethod
    def title_key(card: Card) -> str | None:
        return normalise(card.title) if card.title and normalise(card.title) else None

    def _table(self, key: Callable[[Card], str | None]) -> dict[str, list[Card]]:
        table: dict[str, list[Card]] = {}
        for card in self.cards:
            k = key(card)
            if k is not None:
                table.setdefault(k, []).append(card)
        return table

    def same(self, what: str, key: str) -> list[Card]:
        """The cards whose normalised ``what`` (body or title) is ``key``; the tables are built
        on first use, once per index, so an index shared by many quests builds them once."""
        if self._bodies is None:
            self._bodies, self._titles = self._table(self.body_key), self._table(self.title_key)
        assert self._titles is not None
        return (self._bodies if what == "body" else self._titles).get(key, [])


def duplicates_of(card: Card, *indexes: CardIndex) -> list[tuple[Card, str]]:
    """Other cards of ``indexes`` (another id) with the same body or title as ``card``, as one
    index of them all would give them: a body match before a title match, the first index's
    card before a later one's. The quest's cards and the home's are two indexes, so the
    home's, shared by every quest of a run, is not built again beside each quest's."""
    out: dict[str, tuple[Card, str]] = {}
    for what, key in (("body", CardIndex.body_key(card)), ("title", CardIndex.title_key(card))):
        if not key:
            continue
        for index in indexes:
            for other in index.same(what, key):
                if other.card_id and other.card_id != card.card_id:
                    out.setdefault(other.card_id, (other, what))
    return [out[k] for k in sorted(out)]


@dataclass(slots=True)
class Discipline:
    findings: list[Finding] = field(default_factory=list)
    written: list[Card] = field(default_factory=list)  # the cards the reviews name, found


def review_findings(
    reviews: Iterable[Decision], quest_cards: CardIndex, global_cards: CardIndex | None, home_note: str
) -> Discipline:
    """Card discipline of valid reviews. ``global_cards`` is None when the home is absent:
    global entries are then not checked (``home_note`` says so once, elsewhere)."""
    out = Discipline()
    both = (quest_cards, global_cards) if global_cards else (quest_cards,)
    for review in reviews:
        for i, entry in enumerate(review.cards_written):
            card_id, scope = entry.get("card_id"), entry.get("scope")
            if not isinstance(card_id, str) or scope not in ("global", "quest"):
                continue  # the schema reports it
            index = quest_cards if scope == "quest" else global_cards
            if index is None:
                continue
            found = index.by_id.get(card_id.strip())
            where = ("cards_written", i, "card_id")
            if not found:
                other = global_cards if scope == "quest" else quest_cards
                elsewhere = other is not None and card_id.strip() in other.by_id
                out.findings.append(
                    review_finding(
                        review,
                        REVIEW_MISSING_CARD,
                        where,
                        f"cards_written[{i}] names {scope} card {shown(card_id)}, but no card in the {scope} memory has that id"
                        + (f" (it is in the {'quest' if scope == 'global' else 'global'} memory)" if elsewhere else ""),
                        f"set scope: {'quest' if scope == 'global' else 'global'}"
                        if elsewhere
                        else f"write the card (memory.write scope={scope}) or correct card_id; "
                        + (
                            f"the global memory is {home_note}"
                            if scope == "global"
                            else "the quest memory is <quest>/memory/"
                        ),
                    )
                )
                continue
            card = found[0]
            out.written.append(card)
            if entry.get("action") != "new":
                continue
            when = recorded_at(review, card)
            unnamed = [
                (other, what)
                for other, what in duplicates_of(card, *both)
                if other.card_id not in review.neighbor_cards and not written_after(other, when)
            ]
            if unnamed:
                names = ", ".join(f"{o.card_id} ({o.display}, same {what})" for o, what in unnamed)
                out.findings.append(
                    review_finding(
                        review,
                        REVIEW_DUPLICATE_CARD,
                        ("cards_written", i),
                        f"new card {card_id} repeats an existing card: {names}",
                        f"decide against it first: add neighbor_decisions: [{{candidate_card_id: {unnamed[0][0].card_id}, "
                        "decision: patch | new | neighbor_but_separate, target_run_id, reason}], or patch that card instead",
                    )
                )
    return out


def _moments(values: Iterable[Any]) -> list[float]:
    """The values that are ISO 8601 times, as seconds (YAML may have made them datetimes)."""
    out = []
    for value in values:
        text = value.isoformat() if hasattr(value, "isoformat") else value
        moment = timestamp(text) if isinstance(text, str) else float("-inf")
        if moment != float("-inf"):
            out.append(moment)
    return out


def recorded_at(review: Decision, card: Card) -> float | None:
    """When a review was recorded, as far as the quest says: the latest of its own
    ``created_at``/``updated_at`` and the ``created_at`` of the card it names (a review is
    recorded after the cards it writes, so backdating the review alone moves nothing; the
    card's ``updated_at`` is left out, since another quest's later patch moves it). None when
    no time can be read: then every card counts, as if all existed already."""
    moments = _moments((review.created_at, review.updated_at, card.meta.get("created_at")))
    return max(moments) if moments else None


def written_after(other: Card, when: float | None) -> bool:
    """Whether a card was certainly written after the review recorded at ``when``: both its
    ``created_at`` and ``updated_at`` (those it has) are later. A card without a readable time
    counts as having existed, so a review is judged against the cards there were then, and a
    copy another quest writes afterwards does not fail it retroactively."""
    if when is None:
        return False
    moments = _moments((other.meta.get("created_at"), other.meta.get("updated_at")))
    return bool(moments) and min(moments) > when


def review_finding(review: Decision, rule: Rule, where: tuple[str | int, ...], message: str, hint: str) -> Finding:
    """A finding about a review's entry, at its line; the review is fixed through DeepScientist's
    own tools, so the hint ends with the call that records it again under its id."""
    hint += (
        f"; to change the review, record it again under its id: "
        f"{rerecord_call(review.artifact_id, review.reviewed_run_ids, review.encoding)}"
    )
    return rule.at(
        review.path,
        message + encoding_note(review.encoding),
        hint=hint,
        pointer=pointer(where),
        line=place(review.raw, where),
    )


def promote_call(raw_id: object, path: Path) -> str:
    """The call that promotes a quest card from its quest: main's ``promote_to_global`` finds it by
    its ``id`` exactly as written (``raw_id``, else by its absolute ``path``) and keeps that id, so the
    global copy clears the warning."""
    if isinstance(raw_id, str) and raw_id.strip() and raw_id == raw_id.strip():
        return f"memory.promote_to_global(card_id={shown(raw_id)})"
    return f"memory.promote_to_global(path={shown(str(path))})"


def quest_scope_findings(
    quest_cards: Iterable[Card], global_ids: set[str], promoted: frozenset[str] = frozenset(), quest_id: str = ""
) -> list[Finding]:
    """A lesson in quest scope that was never promoted to global: no global card has its id, and
    none was promoted from its file (``promoted``: the ``promoted_from.path`` of the global cards)."""
    where = f"quest {quest_id}" if quest_id else "its quest"
    return [
        CARD_QUEST_SCOPE_LESSON.at(
            card.display,
            f"lesson {card.card_id or card.display} is kept in quest scope, where the next quest never reads it; "
            f"promote it from {where}: {promote_call(card.meta.get('id'), card.path)}",
            hint=f"write it with scope=global, or promote it as the experience-distill RFC asks, from {where}: "
            + promote_call(card.meta.get("id"), card.path),
            subject=card.card_id,
        )
        for card in quest_cards
        if not card.broken and card.is_experience and card.card_id not in global_ids and str(card.path) not in promoted
    ]
