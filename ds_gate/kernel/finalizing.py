"""Which decision finalizes a quest: asked of every staged decision by the commit hook's fast
path and, through ``rules.finalization``, by the full commit and pre-push gates.

As PR #60 reads it: action ``finalize`` (compared stripped and in any case) or
``decision_scope: quest_completion``. ``write`` is routing guidance an agent records long
before any paper; since DeepScientist re-stages an uncommitted record at every checkpoint,
gating it would block every later checkpoint of that workspace.
"""

from __future__ import annotations

from ds_gate.kernel.jsondoc import loads

FINALIZING_ACTIONS = frozenset({"finalize"})
COMPLETION_SCOPE = "quest_completion"


def decision_reason(raw: bytes) -> str | None:
    """Why a decision record finalizes the quest, or None. Read as ``json.loads`` reads it
    (NaN too, any UTF): a record ``jsondoc.loads`` refuses (UTF-16 or UTF-32 bytes, which
    ``json.loads`` detects) is asked again of ``json`` itself, so no spelling DeepScientist's
    reader accepts hides a finalization."""
    try:
        data = loads(raw)
    except (ValueError, RecursionError):
        import json  # kernel.lazy.LAZY_PLACES: json (with re) only for a record the kernel reader refused

        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return None  # validation reports it
    if not isinstance(data, dict):
        return None
    # no question of ``kind``: the callers ask of records in artifacts/decisions/, which
    # DeepScientist's collector names by that folder, whatever ``kind`` says
    action = data.get("action")
    if isinstance(action, str) and action.strip().casefold() in FINALIZING_ACTIONS:  # as PR #60: .strip().lower()
        return f"decision action '{action.strip()}'"
    scope = data.get("decision_scope")
    if isinstance(scope, str) and scope.strip().casefold() == COMPLETION_SCOPE:
        return f"decision_scope: {COMPLETION_SCOPE}"
    return None


def may_say_completed(raw: bytes) -> bool:
    """Whether a ``quest.yaml``'s bytes could mean ``status: completed`` once parsed. YAML
    writes a value in other bytes only through a double-quoted scalar's escapes (``\x63``,
    ``\u0063``, an escaped line break) and in another case (``Completed``); tags
    (``!!str``), flow style, anchors and aliases all keep the word's letters in the text. So
    a file with neither the word in any case nor a backslash cannot say it, and is not parsed."""
    return b"completed" in raw.lower() or b"\\" in raw
