"""Which decision finalizes a quest: the one definition the commit and pre-push hooks' fast paths
(``kernel.checkpoint``, ``kernel.push``) and their full gates (``rules.finalization``) ask.

As PR #60 reads it: action ``finalize`` or ``decision_scope: quest_completion`` (stripped, any
case). Not ``write``: an agent records it long before any paper, and DeepScientist re-stages an
uncommitted record at every checkpoint, so gating it would block every later one. DeepScientist
writes a decision at ``artifacts/decisions/<artifact_id>.json`` following ``..`` in the id, so a
finalizing decision can be any ``.json`` file of the workspace; ``may_finalize`` looks at the bytes
first, so only a file that could name either word is parsed.

A status says the quest is completed in each file main reads it from: ``quest.yaml``
(``rules.finalization.quest_status``, YAML) and ``.ds/runtime_state.json``, whose
``display_status`` or ``status`` main's snapshot reads before ``quest.yaml`` and where
``mark_completed`` writes it first (``completed_keys``; looked at by bytes first, as a decision is).
"""

from __future__ import annotations

from ds_gate.kernel.jsondoc import loads
from ds_gate.kernel.layout import DECISIONS, RUNTIME_STATE

FINALIZING_ACTIONS = frozenset({"finalize"})
COMPLETION_SCOPE = "quest_completion"
_WORDS = ("finalize", COMPLETION_SCOPE)
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff")  # UTF-16 and UTF-32 byte order marks (json.detect_encoding)
COMPLETED = "completed"
STATUS_KEYS = ("display_status", "status")  # runtime_state.json's, in the order main's snapshot reads them


def may_finalize(raw: bytes) -> bool:
    """Whether a JSON file's bytes could name ``finalize`` or ``quest_completion`` once parsed
    (then ``finalizing_reason`` parses it); see ``may_say``."""
    return may_say(raw, _WORDS)


def may_say(raw: bytes, words: tuple[str, ...]) -> bool:
    """Whether a JSON file's bytes could name one of ``words`` (lower-case ASCII) once parsed.
    JSON writes a letter in other bytes only through a ``\\u`` escape or a wider encoding
    (UTF-16/32, which ``json.loads`` tells by a byte order mark or a NUL in the first four
    bytes); any case is read as the word (``casefold``, in which U+FB01 is ``fi`` and U+017F is
    ``s``), so a file with non-ASCII bytes is asked of its casefolded text. A file with none of
    these cannot say the word."""
    if b"\\u" in raw or b"\0" in raw[:4] or raw[:2] in _WIDE_BOMS:
        return True
    low = raw.lower()
    if any(word.encode() in low for word in words):
        return True
    if raw.isascii():
        return False
    text = raw.decode("utf-8", "replace").casefold()
    return any(word in text for word in words)


def completed_keys(raw: bytes | object) -> frozenset[str]:
    """Which of ``runtime_state.json``'s ``display_status`` and ``status`` say ``completed``
    (stripped, any case: main compares exactly, so this is stricter), read as ``json.loads``
    reads the file; a file that does not parse, or is no object, says none (main then takes
    its defaults). Bytes that cannot say the word are not parsed: DeepScientist writes the
    file at every turn, and an ordinary checkpoint stays fast."""
    if not isinstance(raw, bytes) or not may_say(raw, (COMPLETED,)):
        return frozenset()
    data = as_python_reads(raw)
    if not isinstance(data, dict):
        return frozenset()
    return frozenset(
        key for key in STATUS_KEYS if isinstance(data.get(key), str) and data[key].strip().casefold() == COMPLETED
    )


def runtime_reason(after: bytes | object, before: bytes | object) -> str | None:
    """Why a ``runtime_state.json`` (``after``, replacing ``before``: None when new) completes the
    quest, or None: a status key says ``completed`` that did not before. A file completed
    already (main keeps writing it after ``mark_completed``) finalizes nothing again."""
    keys = completed_keys(after) - completed_keys(before)
    if not keys:
        return None
    return f"{RUNTIME_STATE} with {' and '.join(f'{key}: {COMPLETED}' for key in STATUS_KEYS if key in keys)}"


def finalizing_reason(name: str, raw: bytes) -> str | None:
    """Why the workspace's file ``name`` (git's path) with bytes ``raw`` finalizes the quest, or
    None: a ``.json`` decision that finalizes. A decision is any file under ``artifacts/decisions/``
    (DeepScientist's collector goes by the folder, whatever ``kind`` says) or elsewhere one whose
    ``kind`` is ``decision`` (only a decision main writes lands outside the folder)."""
    if not name.endswith(".json") or not may_finalize(raw):
        return None
    data = as_python_reads(raw)
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
    data = as_python_reads(raw)
    return _reason(data) if isinstance(data, dict) else None


def as_python_reads(raw: bytes) -> object:
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
