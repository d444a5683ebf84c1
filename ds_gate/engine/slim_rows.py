"""Slim records as rows of plain values and back, for the gate's cache (``engine.record_store``).

A row is a tuple of ``str``, ``int``, ``bytes``, ``None``, tuples and JSON values, which
``marshal`` stores; its first value says which record it is. The rows are sealed, so only
ds-gate of the same version wrote them; still, ``from_row`` makes a row of another shape
``None`` (the folder is read again), never an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from ds_gate.engine.slim import (
    SKIPPED,
    Bad,
    Refused,
    Slim,
    SlimDecision,
    SlimRun,
    Unplaced,
)
from ds_gate.model.findings import Finding

Row = tuple[Any, ...]
BAD, REFUSED, SKIP, RUN, DECISION = range(5)


_FIELDS = ("rule", "severity", "message", "hint", "pointer", "line", "subject", "waived", "level")
_FINDING_FIELDS = attrgetter(*_FIELDS)  # a Finding but its path, in the row's order


def finding_row(finding: Unplaced) -> Row:
    return tuple(_FINDING_FIELDS(finding))


def finding_of(row: Row) -> Unplaced:
    """A finding read back (``Finding(**...)``, as the pytest plugin's workers read theirs)."""
    if not (isinstance(row[0], str) and isinstance(row[1], str) and isinstance(row[2], str)):
        raise TypeError("not a finding")
    return Finding(**{"path": None, **dict(zip(_FIELDS, row, strict=True))})


def _findings(rows: Row) -> tuple[Unplaced, ...]:
    if rows == ():  # most records: no findings
        return ()
    if type(rows) is not tuple:
        raise TypeError("not findings")
    return tuple(map(finding_of, rows))


def to_row(slim: Slim) -> Row:
    """``slim`` as plain values."""
    if isinstance(slim, SlimRun):
        return (
            RUN,
            slim.artifact_id,
            tuple(map(finding_row, slim.notes)),
            slim.home_rel,
            slim.run_id,
            slim.run_kind,
            slim.status,
            slim.updated_at,
            slim.created_at,
            tuple(map(finding_row, slim.found)),
            slim.done,
        )
    if isinstance(slim, SlimDecision):
        return (
            DECISION,
            slim.artifact_id,
            tuple(map(finding_row, slim.notes)),
            slim.home_rel,
            slim.action,
            slim.updated_at,
            slim.created_at,
            slim.is_review,
            tuple(map(finding_row, slim.found)),
            slim.reviewed_run_ids,
            slim.raw,
            slim.cards_written,
            slim.neighbor_decisions,
            slim.encoding,
        )
    if isinstance(slim, Bad):
        return (BAD, finding_row(slim.finding))
    if isinstance(slim, Refused):
        return (REFUSED, finding_row(slim.finding))
    return (SKIP,)


_TEXT = (str, type(None))


def _text(value: object) -> str | None:
    if isinstance(value, _TEXT):
        return value
    raise TypeError("not text")


def _run(row: Row) -> SlimRun:
    """Read back as written: marshal keeps which strings were interned (the id, the kind, the
    status, the workspace) and that ``updated_at`` and ``created_at`` were one string."""
    _, artifact_id, notes, home_rel, run_id, run_kind, status, updated, created, found, done = row
    if not (
        type(artifact_id) is str
        and isinstance(home_rel, _TEXT)
        and isinstance(run_id, _TEXT)
        and isinstance(run_kind, _TEXT)
        and isinstance(status, _TEXT)
        and isinstance(updated, _TEXT)
        and isinstance(created, _TEXT)
        and type(done) is bool
    ):
        raise TypeError("not a run")
    return SlimRun(
        artifact_id, _findings(notes), home_rel, run_id, run_kind, status, updated, created, _findings(found), done
    )


def _decision(row: Row) -> SlimDecision:
    (
        _,
        artifact_id,
        notes,
        home_rel,
        action,
        updated,
        created,
        is_review,
        found,
        reviewed,
        raw,
        cards,
        neighbours,
        encoding,
    ) = row
    if not (
        isinstance(artifact_id, str)
        and isinstance(encoding, str)
        and type(is_review) is bool
        and type(reviewed) is tuple
        and all(type(r) is str for r in reviewed)
        and type(cards) is tuple
        and type(neighbours) is tuple
        and all(type(n) is tuple and len(n) == 3 and all(isinstance(v, _TEXT) for v in n) for n in neighbours)
        and (raw is None or type(raw) is bytes)
    ):
        raise TypeError("not a decision")
    return SlimDecision(
        artifact_id,
        _findings(notes),
        _text(home_rel),
        _text(action),
        _text(updated),
        _text(created),
        is_review,
        _findings(found),
        reviewed,
        raw,
        cards,
        neighbours,
        encoding,
    )


_READERS: dict[object, Callable[[Row], Slim]] = {
    RUN: _run,
    DECISION: _decision,
    BAD: lambda row: Bad(finding_of(row[1])),
    REFUSED: lambda row: Refused(finding_of(row[1])),
}


def from_row(row: object) -> Slim | None:
    """The slim a row holds, or None for a row of another shape."""
    if type(row) is not tuple or not row:
        return None
    if row == (SKIP,):
        return SKIPPED
    try:
        read = _READERS.get(row[0])
        return None if read is None else read(row)
    except (TypeError, ValueError):  # a wrong length unpacks as ValueError
        return None
