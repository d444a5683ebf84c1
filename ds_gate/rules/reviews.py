"""What ds-gate asks of a distill review's entries, in either encoding: every card and neighbour
decision aims at a run the review lists, every card has an id (else it cannot be found), no
draft placeholder is left, and a reason that is text.

Called by ``rules.records`` for a ``distill_review`` decision and for a review report alike, so
the two encodings meet the same rules under the same ids.
"""

from __future__ import annotations

from typing import Any

from ds_gate.io.schema_explain import label
from ds_gate.kernel.errors import shown
from ds_gate.kernel.jsondoc import place, pointer
from ds_gate.model.findings import CONTRACT, DISCIPLINE, ERROR, WARNING, Finding, Rule
from ds_gate.model.review_call import FILL

REVIEW_TARGET_NOT_REVIEWED = Rule(
    "review.target-not-reviewed",
    ERROR,
    CONTRACT,
    "a `cards_written` / `neighbor_decisions` entry targets a run the review does not list",
)
REVIEW_CARD_ID_MISSING = Rule(
    "review.card-id-missing",
    ERROR,
    DISCIPLINE,
    "a `cards_written` entry without a `card_id`: nothing about its card can be checked (PR #60 accepts it)",
)
REVIEW_REASON_NOT_TEXT = Rule(
    "review.reason-not-text",
    WARNING,
    DISCIPLINE,
    "a `reason_if_empty` that is not text (DeepScientist reads `str(value)`, so it passes there)",
)
REVIEW_PLACEHOLDER = Rule(
    "review.placeholder",
    ERROR,
    DISCIPLINE,
    "a review still holds a draft's `<FILL: ...>` placeholder: it covers nothing until it is written",
)


def targets_reviewed(data: dict[str, Any], reviewed: set[str], raw: bytes | None, display: str) -> list[Finding]:
    """Every card and neighbour decision must point at a run this review covers."""
    found = []
    for list_key in ("cards_written", "neighbor_decisions"):
        entries = data.get(list_key)
        if not isinstance(entries, list):
            continue
        for i, entry in enumerate(entries):
            target = entry.get("target_run_id") if isinstance(entry, dict) else None
            if not isinstance(target, str) or not target.strip() or target in reviewed:
                continue
            path = (list_key, i, "target_run_id")
            found.append(
                REVIEW_TARGET_NOT_REVIEWED.at(
                    display,
                    f"{label(path)} is {shown(target)}, which is not in reviewed_run_ids",
                    hint=f"add {shown(target)} to reviewed_run_ids, or point target_run_id at a reviewed run",
                    pointer=pointer(path),
                    line=place(raw, path),
                )
            )
    return found


def review_discipline(data: dict[str, Any], raw: bytes | None, display: str) -> list[Finding]:
    """What ds-gate asks of a review beyond PR #60's validator: a card_id for every card
    (else the card cannot be found), and a reason that is text."""
    found = []
    cards = data.get("cards_written")
    for i, entry in enumerate(cards if isinstance(cards, list) else []):
        card_id = entry.get("card_id") if isinstance(entry, dict) else None
        if isinstance(entry, dict) and not (isinstance(card_id, str) and card_id.strip()):
            where = ("cards_written", i, "card_id")
            found.append(
                REVIEW_CARD_ID_MISSING.at(
                    display,
                    f"cards_written[{i}] has no card_id, so its card cannot be found or checked",
                    hint="add card_id: the id of the memory card written, e.g. knowledge-04942297",
                    pointer=pointer(where),
                    line=place(raw, where),
                )
            )
    found.extend(_placeholders(data, raw, display))
    reason = data.get("reason_if_empty")
    if cards == [] and reason and not isinstance(reason, str):
        found.append(
            REVIEW_REASON_NOT_TEXT.at(
                display,
                f"reason_if_empty is {shown(reason)}, not text; DeepScientist reads it as {shown(str(reason))}",
                hint="say in words why no card was worth writing",
                pointer="/reason_if_empty",
                line=place(raw, ("reason_if_empty",)),
            )
        )
    return found


def _placeholders(data: dict[str, Any], raw: bytes | None, display: str) -> list[Finding]:
    """Each value still holding a draft's placeholder (``draft_distill_review`` writes them where
    only the agent can): at the top, in a list, or in a list's entries."""

    def filled(value: Any) -> bool:
        return isinstance(value, str) and value.lstrip().startswith(FILL)

    where: list[tuple[str | int, ...]] = []
    cards = data.get("cards_written")
    for key, value in data.items():
        if key == "reason_if_empty" and isinstance(cards, list) and cards:
            continue  # read only when no card was written (PR #60), so a draft's text left there is harmless
        if filled(value):
            where.append((key,))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if filled(item):
                    where.append((key, i))
                elif isinstance(item, dict):
                    where.extend((key, i, inner) for inner, v in item.items() if filled(v))
    found = []
    for path in where:
        text: Any = data
        for step in path:
            text = text[step]
        found.append(
            REVIEW_PLACEHOLDER.at(
                display,
                f"{label(path)} still holds the draft's placeholder {shown(text[:120])}, so the review covers nothing",
                hint="write it in your own words as the placeholder asks, or delete the key where it does not apply",
                pointer=pointer(path),
                line=place(raw, path),
            )
        )
    return found
