"""``kernel.jsondoc.loads`` parses with ``json``'s own C scanner and leaves every error to
``json.JSONDecoder`` (issue 17: the commit hook must not import ``json``, ``re`` and
``enum`` to read a staged record). Whatever the text, it must answer exactly as
``json.loads``'s decoder (``JSONDecoder().decode``, DeepScientist's reader; issue 35: NaN and
Infinity included, since DeepScientist writes them): the same value, of the same types, or the
same exception with the same message. And ``kernel.finalizing.decision_reason``,
which now tries that strict parse first, must answer as it did with ``json.loads`` alone."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from ds_gate.kernel import jsondoc
from ds_gate.kernel.finalizing import decision_reason

REFERENCE = json.JSONDecoder()

SEEDS = [
    '{"kind": "run", "artifact_id": "run-1", "run_kind": "main_experiment", "status": "running"}\n',
    '{"a": [1, 2.5, -3e4, true, false, null, {"b": "\\u00e9\\n\\"x\\""}], "c": {}}',
    '[1, "two", [3, [4, [5]]], {"six": 6}]',
    '"just a string"',
    "42",
    "-0.0",
    "1e400",
    "true",
    "null",
    '{"kind": "decision", "kind": "run", "run_kind": "x"}',
    '{"text": "\\ud800 lone surrogate", "emoji": "\\ud83d\\ude00", "raw": "\u00e9\u4e2d"}',
]
INSERTS = [
    " ",
    "\t",
    "\n",
    "\r",
    "\f",
    "\v",
    "\u00a0",
    "\ufeff",
    "\x00",
    "x",
    ",",
    ":",
    "}",
    "]",
    '"',
    "\\",
    "NaN",
    "Infinity",
    "-Infinity",
    "9" * 5000,
    "[" * 3000,
]


def outcome(parse: Any, text: str) -> tuple[str, str]:
    try:
        value = parse(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        return type(exc).__name__, str(exc)
    return "value", repr(value)  # repr tells 1 from 1.0 from True, and keeps key order


def texts() -> list[str]:
    """Each seed, then each seed cut at every point, and with each insert at some points."""
    rng = random.Random(17)
    found: list[str] = []
    for seed in SEEDS:
        found.append(seed)
        found.extend(seed[:cut] for cut in range(len(seed)))
        for insert in INSERTS:
            for at in {0, len(seed), *rng.sample(range(len(seed) + 1), min(6, len(seed) + 1))}:
                found.append(seed[:at] + insert + seed[at:])
    found += ["", " ", "\n\n", " \t\n\r{} \t\n\r", "{}\f", "\f{}", "[" * 100_000 + "]" * 100_000, "{} {}", "{}x"]
    return found


def test_every_text_parses_or_fails_as_json_itself_would() -> None:
    for text in texts():
        assert outcome(jsondoc.loads, text) == outcome(REFERENCE.decode, text), text[:80]


@pytest.mark.parametrize("raw", [b'{"a": 1}', b"\xef\xbb\xbf{}", b"\xff{}", '{"a": "\u00e9"}'.encode()])
def test_bytes_are_utf_8(raw: bytes) -> None:
    def reference(data: bytes) -> Any:
        return REFERENCE.decode(data.decode("utf-8"))

    assert outcome(jsondoc.loads, raw) == outcome(reference, raw)  # type: ignore[arg-type]


def old_decision_reason(raw: bytes) -> str | None:
    """``decision_reason`` before issue 17's hook work: ``json.loads`` alone (with issue 24's
    reading: a record in decisions/ whatever its kind, the scope stripped and casefolded)."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    action = data.get("action")
    if isinstance(action, str) and action.strip().casefold() in {"finalize"}:
        return f"decision action '{action.strip()}'"
    scope = data.get("decision_scope")
    if isinstance(scope, str) and scope.strip().casefold() == "quest_completion":
        return "decision_scope: quest_completion"
    return None


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-32"])
def test_a_decision_finalizes_as_json_loads_read_it(encoding: str) -> None:
    decisions = [
        {"kind": "decision", "action": "finalize", "verdict": "good", "reason": "done"},
        {"kind": "decision", "action": " Finalize ", "score": float("nan")},
        {"action": "continue", "decision_scope": "quest_completion"},
        {"kind": "run", "action": "finalize"},
        {"kind": "decision", "action": "write"},
        {"kind": " Decision ", "action": "stop", "decision_scope": " Quest_Completion "},
    ]
    for data in decisions:
        for text in (json.dumps(data), json.dumps(data)[:-1], json.dumps(data).replace("NaN", "Infinity")):
            raw = text.encode(encoding)
            assert decision_reason(raw) == old_decision_reason(raw), (encoding, text)
