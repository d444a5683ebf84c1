"""Which decision finalizes a quest: the one definition the commit and pre-push hooks' fast paths
(``kernel.checkpoint``, ``kernel.push``) and their full gates (``rules.finalization``) ask.

As PR #60 reads it: action ``finalize`` or ``decision_scope: quest_completion`` (stripped, any
case). Not ``write``: an agent records it long before any paper, and DeepScientist re-stages an
uncommitted record at every checkpoint, so gating it would block every later one. DeepScientist
writes a decision at ``artifacts/decisions/<artifact_id>.json`` following ``..`` in the id, so a
finalizing decision can be any ``.json`` file of the workspace; ``may_finalize`` looks at the bytes
first, so only a file that could name either word is parsed.
"""

from __future__ import annotations

from ds_gate.kernel.jsondoc import loads
from ds_gate.kernel.layout import DECISIONS

FINALIZING_ACTIONS = frozenset({"finalize"})
COMPLETION_SCOPE = "quest_completion"
_WORDS = ("finalize", COMPLETION_SCOPE)
_BYTE_WORDS = tuple(word.encode() for word in _WORDS)
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff")  # UTF-16 and UTF-32 byte order marks (json.detect_encoding)


def may_finalize(raw: bytes) -> bool:
    """Whether a JSON file's bytes could name ``finalize`` or ``quest_completion`` once parsed
    (then ``finalizing_reason`` parses it). JSON writes a letter in other bytes only through a
    ``\\u`` escape or a wider encoding (UTF-16/32, which ``json.loads`` tells by a byte order
    mark or a NUL in the first four bytes); any case is read as the word (``casefold``, in
    which U+FB01 is ``fi`` and U+017F is ``s``), so a file with non-ASCII bytes is
    asked of its casefolded text. A file with none of these cannot say either word."""
    if b"\\u" in raw or b"\0" in raw[:4] or raw[:2] in _WIDE_BOMS:
        return True
    low = raw.lower()
    if any(word in low for word in _BYTE_WORDS):
        return True
    if raw.isascii():
        return False
    text = raw.decode("utf-8", "replace").casefold()
    return any(word in text for word in _WORDS)


def finalizing_reason(name: str, raw: bytes) -> str | None:
    """Why the workspace's file ``name`` (git's path) with bytes ``raw`` finalizes the quest, or
    None: a ``.json`` decision that finalizes. A decision is any file under ``artifacts/decisions/``
    (DeepScientist's collector goes by the folder, whatever ``kind`` says) or elsewhere one whose
    ``kind`` is ``decision`` (only a decision main writes lands outside the folder)."""
    if not name.endswith(".json") or not may_finalize(raw):
        return None
    data = _parsed(raw)
    if not isinstance(data, dict):
        return None
    if not name.startswith(DECISIONS) and not is_decision(data):
        return None
    return _reason(data)


def is_decision(data: dict[str, object]) -> bool:
    """A record whose ``kind`` says decision (stripped, in any case)."""
    kind = data.get("kind")
    return isinstance(kind, str) and kind.strip().casefold() == "decision"


def decision_reason(raw: bytes) -> str | None:
    """Why a decision record finalizes the quest, or None. Read as ``json.loads`` reads it
    (NaN too, any UTF): a record ``jsondoc.loads`` refuses (UTF-16 or UTF-32 bytes, which
    ``json.loads`` detects) is asked again of ``json`` itself, so no spelling DeepScientist's
    reader accepts hides a finalization. No question of ``kind`` or place: ``finalizing_reason``
    asks those."""
    data = _parsed(raw)
    return _reason(data) if isinstance(data, dict) else None


def _parsed(raw: bytes) -> object:
    """``raw`` as ``json.loads`` reads it, or None when it does not parse (validation reports it)."""
    try:
        return loads(raw)
    except (ValueError, RecursionError):
        import json  # kernel.lazy.LAZY_PLACES: json (with re) only for a record the kernel reader refused

        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return None


def _reason(data: dict[str, object]) -> str | None:
    """Why a parsed decision finalizes the quest, or None."""
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
