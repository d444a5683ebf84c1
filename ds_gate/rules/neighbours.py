"""Neighbour decisions must mean something (issue 37): the RFC's distill skill weighs each new lesson
against the cards already there and records a ``neighbor_decisions`` entry per card it weighed.

- ``review.neighbor-missing-card``: an entry names a card that exists in the scope it claims. A plain
  card id is looked up in its ``scope`` (``global``, ``quest``, ``shared_quest``), else in every memory
  the quest sees; main's ``memory::<path>`` and ``sharedmemory::<quest>::<path>`` document ids by path
  (``sources.shared_memory``). Another quest's card counts only where the home's
  ``memory.read_visibility_mode`` is ``shared_across_quests``; elsewhere the finding says the card is
  not visible, the same words whether it exists or not.
- ``review.neighbor-patch-unwritten``: a ``patch`` decision has its ``cards_written`` entry with
  ``action: patch`` for that card (a path id: the ``id`` of the card it leads to).
- ``review.near-duplicate-card``: a card the review writes as ``new`` that says what an existing card
  says needs a neighbour decision naming that card. The measure: the same non-empty set of tags once
  each is normalised as recall normalises it (``sources.tag_values.normalize_tag``: case, spacing,
  ``_``/``-``), and claims that are equal once normalised (``rules.cards.normalise``: NFKC, casefold,
  whitespace) or whose sets of words (``\\w+``) have a Jaccard index of at least 0.8 (one word changed
  in a claim of nine or more distinct words), unless the words they differ by hold a negation or a
  number ("helps" / "does not help", "500 steps" / "5000 steps" say opposite or other things). "Existing" is as for ``review.duplicate-card``: another
  id the quest can see, not written after the review; a pair that rule reports is not reported twice.

All three are discipline, judged at closure (``rules.policy.at_closure``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ds_gate.kernel.errors import shown
from ds_gate.model.findings import DISCIPLINE, ERROR, Finding, Rule
from ds_gate.model.records import Card, Decision, text_of
from ds_gate.rules.cards import CardIndex, duplicates_of, normalise, recorded_at, review_finding, written_after
from ds_gate.rules.policy import at_closure
from ds_gate.sources.shared_memory import DocumentId, Neighbourhood, document_id
from ds_gate.sources.tag_values import card_tags, normalize_tags
from ds_gate.sources.visibility import SHARED

REVIEW_NEIGHBOR_MISSING_CARD = Rule(
    "review.neighbor-missing-card",
    ERROR,
    DISCIPLINE,
    "a `neighbor_decisions` entry names a card that does not exist in the scope it claims, "
    "or another quest's card this home's `memory.read_visibility_mode` does not show to the quest",
)
REVIEW_NEIGHBOR_PATCH_UNWRITTEN = Rule(
    "review.neighbor-patch-unwritten",
    ERROR,
    DISCIPLINE,
    "a `patch` neighbour decision with no `cards_written` entry (`action: patch`) for that card",
)
REVIEW_NEAR_DUPLICATE_CARD = Rule(
    "review.near-duplicate-card",
    ERROR,
    DISCIPLINE,
    "a `new` card with an existing card's tags (normalised) and a claim that says the same (equal once "
    "normalised, or a word-set Jaccard index >= 0.8, with no negation or number apart), and no neighbour "
    "decision names it",
)
AT_CLOSURE = (REVIEW_NEIGHBOR_MISSING_CARD, REVIEW_NEIGHBOR_PATCH_UNWRITTEN, REVIEW_NEAR_DUPLICATE_CARD)

SCOPES = ("global", "quest", "shared_quest")
SAME_CLAIM = 0.8  # the word-set Jaccard index from which two claims say the same
_WORD = re.compile(r"\w+")
# words that turn a claim around; "t" is what \w+ leaves of "doesn't", "isn't", "can't"
NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "neither", "without", "cannot", "t"})
_CJK_NEGATIONS = frozenset("不没無无未非别")
_IN = {"quest": "in the quest memory", "global": "in the global memory", "shared_quest": "in another quest's memory"}
DECIDE = "'decision': 'patch' | 'new' | 'neighbor_but_separate'"


def claim_overlap(a: str, b: str) -> float | None:
    """How far two claims say the same: 1.0 when equal once normalised, else the Jaccard index of
    their word sets when it is at least ``SAME_CLAIM``; None when they differ more (or one is empty)."""
    na, nb = normalise(a), normalise(b)
    if not na or not nb:
        return None
    if na == nb:
        return 1.0
    wa, wb = set(_WORD.findall(na)), set(_WORD.findall(nb))
    differ = wa ^ wb
    if differ & NEGATIONS or any(ch.isdigit() for word in differ for ch in word):
        return None  # one says the opposite, or another quantity: not the same lesson
    if (_CJK_NEGATIONS & set(na)) != (_CJK_NEGATIONS & set(nb)):
        return None
    overlap = len(wa & wb) / len(wa | wb) if wa and wb else 0.0
    return overlap if overlap >= SAME_CLAIM else None


def tag_key(card: Card) -> frozenset[str]:
    return frozenset(normalize_tags(card_tags(card.meta.get("tags"))))


class TagIndex:
    """Cards with tags and a claim, by their normalised tag set (``Home.index`` builds the global one
    once for a run over many quests)."""

    def __init__(self, cards: Iterable[Card]) -> None:
        self.by_tags: dict[frozenset[str], list[Card]] = {}
        for card in cards:
            key = tag_key(card)
            if not card.broken and card.card_id and key and text_of(card.meta.get("claim")):
                self.by_tags.setdefault(key, []).append(card)


@dataclass(slots=True)
class Neighbours:
    findings: list[Finding] = field(default_factory=list)
    unchecked: bool = False  # a card named in the global memory, with no home read


@dataclass(frozen=True, slots=True)
class _Miss:
    message: str
    hint: str = ""


_NAME_ONE = (
    "name a card this quest can see by its id (or the document_id memory.search or memory.list_recent gives), "
    "with scope global, quest or shared_quest where it lies; or remove the entry"
)


def _invisible(mode: str) -> _Miss:
    return _Miss(
        f"names another quest's card, which this home's memory.read_visibility_mode {shown(mode)} does not show to "
        "this quest",
        "name a card of this quest or of the global memory; another quest's cards count only in a home whose owner "
        "set memory.read_visibility_mode: shared_across_quests",
    )


def _by_id(
    card_id: str, scope: str | None, own: CardIndex, glob: CardIndex | None, place: Neighbourhood
) -> Card | _Miss | None:
    """A plain id in its scope (None: every memory the quest sees); None when only the unread
    global memory could hold it."""
    shared = place.mode == SHARED
    if scope == "shared_quest" and not shared:
        return _invisible(place.mode)
    looks = {"quest": ("quest",), "global": ("global",), "shared_quest": ("shared_quest",)}.get(
        scope or "", ("quest", "global", "shared_quest") if shared else ("quest", "global")
    )
    for where in looks:
        if where == "shared_quest":
            found = next((c for c in place.siblings() if c.card_id == card_id), None)
        else:
            index = own if where == "quest" else glob
            hits = index.by_id.get(card_id) if index is not None else None
            found = hits[0] if hits else None
        if found is not None:
            return found
    if "global" in looks and glob is None:
        return None
    other = [
        w for w, index in (("quest", own), ("global", glob)) if w not in looks and index and card_id in index.by_id
    ]
    return _Miss(
        f"names card {shown(card_id)}, but no card {_IN.get(scope or '', 'this quest can see')} "
        "has that id" + (f" (it is in the {other[0]} memory)" if other else ""),
        f"set scope: {other[0]}" if other else _NAME_ONE,
    )


def _by_path(doc: DocumentId, scope: str | None, place: Neighbourhood) -> Card | _Miss | None:
    """A ``memory::`` or ``sharedmemory::`` id: the card at that path, or why there is none."""
    if doc.quest is not None and not place.is_own(doc.quest):
        if not place.home_exists:
            return None
        if place.mode != SHARED:
            return _invisible(place.mode)
        shared = place.shared_card(doc.quest, doc.rel)
        return shared if isinstance(shared, Card) else _Miss(f"names another quest's card, but {shared}", _NAME_ONE)
    if doc.quest is not None:  # sharedmemory:: naming this quest: its own memory
        looks: tuple[str, ...] = ("quest",)
    else:
        looks = (scope,) if scope in ("quest", "global") else ("quest", "global")
    for where in looks:
        found = place.at_path(where, doc.rel)
        if found is not None:
            return found
    if "global" in looks and place.global_cards is None:
        return None
    return _Miss(f"names no card: there is no {doc.rel} in the {' or '.join(looks)} memory", _NAME_ONE)


def neighbour_findings(
    reviews: Iterable[Decision],
    own: CardIndex,
    glob: CardIndex | None,
    place: Neighbourhood,
    tag_indexes: Callable[[], Sequence[TagIndex]],
    closing: bool = True,
) -> Neighbours:
    """The three rules over valid reviews; ``tag_indexes`` gives the cards the quest can see by tags
    (built only when a review writes a ``new`` card)."""
    out = Neighbours()
    for review in reviews:
        named: set[str] = set()
        for i, (candidate, decision, scope) in enumerate(review.neighbor_decisions):
            if candidate is None or not candidate.strip():
                continue  # the schema reports it
            wanted = candidate.strip()
            doc = document_id(wanted)
            if scope is not None and scope not in SCOPES:
                got: Card | _Miss | None = _Miss(f"claims scope {shown(scope)}, none of {', '.join(SCOPES)}", _NAME_ONE)
            elif isinstance(doc, str):
                got = _Miss(f"names no card: {doc}", _NAME_ONE)
            else:
                got = _by_id(wanted, scope, own, glob, place) if doc is None else _by_path(doc, scope, place)
            out.unchecked |= got is None
            if isinstance(got, _Miss):
                where = ("neighbor_decisions", i, "candidate_card_id")
                message = f"neighbor_decisions[{i}] ({shown(candidate)}) {got.message}"
                out.findings.append(review_finding(review, REVIEW_NEIGHBOR_MISSING_CARD, where, message, got.hint))
            if isinstance(got, Card):
                named.update(filter(None, (got.card_id, str(got.path))))
            elif doc is None:
                named.add(wanted)  # as review.duplicate-card reads a name, whatever it leads to
            if decision == "patch" and (isinstance(got, Card) or (got is None and doc is None)):
                target = got.card_id if isinstance(got, Card) else wanted
                out.findings.extend(_patch_written(review, i, target, got))
        out.findings.extend(_near_duplicates(review, own, glob, named, tag_indexes))
    out.findings = at_closure(out.findings, closing)
    return out


def _patch_written(review: Decision, i: int, target: str | None, card: Card | None) -> list[Finding]:
    patched = {
        e["card_id"].strip()
        for e in review.cards_written
        if e.get("action") == "patch" and isinstance(e.get("card_id"), str)
    }
    if target is not None and target in patched:
        return []
    name = shown(target) if target else f"{card.display if card else '?'} (a card without an id)"
    scope = card.scope if card is not None and card.scope in ("global", "quest") else "<its scope>"
    message = f"neighbor_decisions[{i}] decides to patch card {name}, but no cards_written entry patches it"
    hint = (
        f"patch the card (memory.write with its id), then add {{'card_id': {name}, 'scope': '{scope}', "
        "'action': 'patch', 'target_run_id': ...} to cards_written; or decide new or neighbor_but_separate"
    )
    return [
        review_finding(review, REVIEW_NEIGHBOR_PATCH_UNWRITTEN, ("neighbor_decisions", i, "decision"), message, hint)
    ]


def _near_duplicates(
    review: Decision,
    own: CardIndex,
    glob: CardIndex | None,
    named: set[str],
    tag_indexes: Callable[[], Sequence[TagIndex]],
) -> list[Finding]:
    found = []
    for j, entry in enumerate(review.cards_written):
        card_id, scope = entry.get("card_id"), entry.get("scope")
        index = own if scope == "quest" else glob if scope == "global" else None
        hits = index.by_id.get(card_id.strip()) if index is not None and isinstance(card_id, str) else None
        if entry.get("action") != "new" or not hits:
            continue  # review.missing-card reports a card not there
        card, claim = hits[0], text_of(hits[0].meta.get("claim")) or ""
        key = tag_key(card)
        if not key or not claim:
            continue
        when = recorded_at(review, card)
        twins = {o.card_id for o, _ in duplicates_of(card, *((own, glob) if glob else (own,)))}  # duplicate-card's
        near: dict[str, tuple[Card, float]] = {}
        for table in tag_indexes():
            for other in table.by_tags.get(key, ()):
                overlap = claim_overlap(claim, text_of(other.meta.get("claim")) or "")
                if (
                    overlap is None
                    or other.card_id in (card.card_id, *twins)
                    or other.card_id in named
                    or str(other.path) in named
                    or written_after(other, when)
                ):
                    continue
                near.setdefault(str(other.card_id), (other, overlap))
        if near:
            first = sorted(near)[0]
            said = ", ".join(
                f"{k} ({o.display}, {'the same claim' if v == 1.0 else f'{v:.2f} of the claim words shared'})"
                for k, (o, v) in sorted(near.items())
            )
            message = (
                f"new card {card.card_id} says what an existing card says, with the same tags "
                f"({', '.join(sorted(key))}): {said}"
            )
            hint = (
                f"weigh it first: add to neighbor_decisions {{'candidate_card_id': {shown(first)}, {DECIDE}, "
                f"'target_run_id': {shown(entry.get('target_run_id'))}, 'reason': '<why>'}}, or patch {first} instead"
            )
            found.append(review_finding(review, REVIEW_NEAR_DUPLICATE_CARD, ("cards_written", j), message, hint))
    return found
