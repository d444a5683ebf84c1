"""The "certainly fine" triage of a record: the first question every record rule asks.

The commit hook must pass a fine new record silently, without loading the findings, the model or
jsonschema. So the record rules are built on this triage, not beside it:
``rules.records.check_record`` asks ``record_is_fine`` first and words findings only when it
answers False, ``sources.records`` words a parse problem only where ``parse_record`` refused, and
the hook asks the same two functions: one answer, not two kept equal by a test.
True means "the full rules find nothing here"; False means only "ask the full rules".
"""

from __future__ import annotations

from ds_gate.kernel.jsondoc import loads
from ds_gate.kernel.layout import GATE_KINDS, record_kind
from ds_gate.kernel.schema_fast import accepts
from ds_gate.kernel.words import (
    DECISION_ACTIONS,
    REVIEW_ACTION,
    unknown_action,
    unknown_kind,
)

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Any


def parse_record(raw: bytes) -> dict[str, Any] | None:
    """A record file's bytes as the JSON object DeepScientist wrote (UTF-8, a BOM allowed, read as
    ``json`` reads it, NaN included), or None; ``sources.records`` says why."""
    try:
        data = loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return data if isinstance(data, dict) else None


def record_is_fine(kind: str | None, data: dict[str, Any], actions: Collection[str] = DECISION_ACTIONS) -> bool:
    """True when ``rules.records.check_record`` has nothing to say of this record, by kind as
    it dispatches: a run's schema; a decision's schema and action (a review is never fine
    here: its rules are more than a schema, and it is judged against the quest's runs); a
    report only when it is no review (main asks nothing else of a report); other kinds have
    no record rule."""
    if kind == "run":
        return accepts("run", data)
    if kind == "decision":
        action = data.get("action")
        return action != REVIEW_ACTION and not unknown_action(action, actions) and accepts("decision", data)
    if kind == "report":
        return data.get("report_type") != REVIEW_ACTION
    return True


def staged_record_is_fine(raw: bytes, folder: str) -> bool:
    """True when the record file ``raw`` in ``artifacts/<folder>/`` gets no finding from the
    full path (``engine.documents.check_documents``) with the built-in rules and DeepScientist
    main's decision actions: the same steps in the same order (parse, kind, what the gate
    does not read, the record's rules)."""
    data = parse_record(raw)
    if data is None or unknown_kind(data.get("kind")):
        return False
    kind = record_kind(data, folder)
    return kind not in GATE_KINDS or record_is_fine(kind, data)
