"""The RFC's ``validate_cross_quest_patch``: what a quest may change in another quest's card.

The owners of a card are the quests in its lineage before the patch. As in PR #60, an
edit is free only when they are exactly the patching quest (or there are none: no
lineage, or no card before). Otherwise, and so as soon as a second quest has appended
its evidence, nobody may do more than add evidence: the claim stays (compared after
stripping surrounding whitespace, as DeepScientist does), confidence does not go up (a
missing confidence counts as 0), and lineage entries are only appended, so the old
lineage is a prefix of the new one. Quest ids compare as text, as DeepScientist compares
them: ``quest: 1`` is not quest ``'001'``.

Discipline, not contract: main's ``write_card`` does not call the RFC's validator (it is not
wired in main), so main writes such a patch; finalization and closure refuse it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ds_gate.kernel.errors import shown
from ds_gate.kernel.jsondoc import pointer
from ds_gate.model.findings import DISCIPLINE, ERROR, Finding, Rule
from ds_gate.model.records import Card, same_quest, text_of
from ds_gate.rules.cards import card_schema_findings

PATCH_CLAIM_CHANGED = Rule(
    "patch.claim-changed", ERROR, DISCIPLINE, "a quest that does not own a card changed its claim"
)
PATCH_CONFIDENCE_RAISED = Rule(
    "patch.confidence-raised", ERROR, DISCIPLINE, "a quest that does not own a card raised its confidence"
)
PATCH_LINEAGE_REWRITTEN = Rule(
    "patch.lineage-rewritten",
    ERROR,
    DISCIPLINE,
    "a quest that does not own a card changed or removed earlier lineage entries",
)


def owners(before: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for entry in _list(before.get("lineage")):
        quest = entry.get("quest") if isinstance(entry, Mapping) else None
        if (
            isinstance(quest, (str, int))
            and not isinstance(quest, bool)
            and str(quest).strip()
            and str(quest).strip() not in out
        ):
            out.append(str(quest).strip())
    return out


def _stripped(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _unnamed(finding: Finding, meta: Mapping[str, Any]) -> bool:
    """The schema's "`id` is required", for metadata that has none: PR #60's
    ``validate_cross_quest_patch`` validates ``after`` as experience metadata (``claim`` and
    ``lineage``), the frontmatter a caller hands ``memory.write``, which assigns the id. An
    ``id`` that is there but wrong is still reported."""
    return "id" not in meta and finding.pointer == "/id"


def _confidence(meta: Mapping[str, Any]) -> float | None:
    value = meta.get("confidence")
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None  # not a number: the schema reports it
    return float(value)


def validate_cross_quest_patch(
    before: Mapping[str, Any] | Card | None,
    after: Mapping[str, Any] | Card,
    patching_quest: str | None,
    *,
    path: str | None = None,
    validate_after: bool = True,
) -> list[Finding]:
    """Findings for patching ``before`` into ``after`` by ``patching_quest`` ([] when allowed).

    ``before``/``after`` are card frontmatters (or Cards, which also give line numbers).
    ``patching_quest=None`` means unknown: held to the rules for a foreign quest.
    ``validate_after`` first checks ``after`` against the card schemas, as PR #60 does.
    ``patching_quest`` is compared as text, as a lineage's quest is (``owners``): a number is taken
    as its text (``1`` is quest ``'1'``, not ``'001'``); any other type is a ``TypeError``.
    """
    if isinstance(patching_quest, int) and not isinstance(patching_quest, bool):
        patching_quest = str(patching_quest)
    elif patching_quest is not None and not isinstance(patching_quest, str):
        raise TypeError(f"patching_quest must be a quest id (str) or None, not {type(patching_quest).__name__}")
    card = after if isinstance(after, Card) else None
    new = after.meta if isinstance(after, Card) else after
    old = before.meta if isinstance(before, Card) else before
    display = path if path is not None else (card.display if card is not None else None)
    found: list[Finding] = []
    if validate_after:
        found.extend(
            f
            for f in card_schema_findings(new, display, card.line if card is not None else None)
            if not _unnamed(f, new)
        )
    if old is None:
        return found
    owning = owners(old)
    patcher = patching_quest.strip() if patching_quest is not None else None
    if not owning or (patcher is not None and set(owning) == {patcher}):
        return found
    who = f"quest {patcher}" if patcher else "a quest that cannot be named"
    whose = (
        f"quest {owning[0]}"
        if len(owning) == 1
        else f"quests {', '.join(owning)} (once two quests own it, neither edits it freely)"
    )
    if patcher is not None and patcher not in owning and any(same_quest(patcher, o) for o in owning):
        whose += f"; quest ids compare as text, as DeepScientist compares them, so {shown(patcher)} is not one of them"

    def add(rule: Rule, where: tuple[str | int, ...], message: str, hint: str) -> None:
        line = card.line(where) if card is not None else None
        subject = text_of(new.get("id"))
        found.append(
            rule.at(
                display,
                f"{who} patches a card owned by {whose}: {message}",
                hint=hint,
                pointer=pointer(where),
                line=line,
                subject=subject,
            )
        )

    if _stripped(old.get("claim")) != _stripped(new.get("claim")):
        add(
            PATCH_CLAIM_CHANGED,
            ("claim",),
            f"the claim changed from {shown(old.get('claim'))} to {shown(new.get('claim'))}",
            "keep the claim word for word; a quest that disagrees writes a new card (action: new) and records a "
            "neighbor_decision against this one",
        )
    before_conf, after_conf = _confidence(old), _confidence(new)
    if before_conf is not None and after_conf is not None and after_conf > before_conf:
        add(
            PATCH_CONFIDENCE_RAISED,
            ("confidence",),
            f"confidence rose from {shown(old.get('confidence'))} to {shown(new.get('confidence'))}",
            "another quest may lower confidence or leave it, never raise it; add your run to lineage as evidence instead",
        )
    old_lineage = _list(old.get("lineage"))
    new_lineage = _list(new.get("lineage"))
    for i, entry in enumerate(old_lineage):
        if i >= len(new_lineage):
            add(
                PATCH_LINEAGE_REWRITTEN,
                ("lineage",),
                f"lineage lost entries: it had {len(old_lineage)}, it now has {len(new_lineage)}",
                "keep every earlier lineage entry as it was and append your own after them",
            )
            break
        if new_lineage[i] != entry:
            add(
                PATCH_LINEAGE_REWRITTEN,
                ("lineage", i),
                f"lineage[{i}] was rewritten (it was {shown(entry)})",
                "restore the earlier entry exactly; a patch may only append entries after the existing ones",
            )
            break
    return found


def check_patch(before: Card | None, after: Card, patching_quest: str | None) -> list[Finding]:
    """The patch rules alone, as the commit hook and ``lineage --since`` apply them (the card
    itself is checked on its own elsewhere); a new card patches nothing."""
    if before is None or before.broken or after.broken:
        return []
    return validate_cross_quest_patch(before, after, patching_quest, validate_after=False)
