"""A record file's bytes reduced to what the gate keeps of it, independent of where the copy lies.

Worktrees hold byte-identical copies of their parent branch's records, and a repeated run
sees the same files again. So the expensive part (parse, record rules, schema) is done
once per content and kept as a *slim* record (``SlimRun``, ``SlimDecision``, or what
became of a file the gate reads nothing of) whose findings have no path. The collector's
``place`` turns a slim into a ``Run`` or ``Decision`` and findings on the copy's own path,
exactly as reading that copy would have made them; ``engine.slim_rows`` stores slims in
the gate's cache (``engine.record_store``).

Only valid when every finding the record check makes lies on the record's own path and
depends on nothing but the bytes, the file name and the kind: true of the built-in rules,
not promised by a plugin's (``NotShareable``; the loader shares only under a keyed checker).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from sys import intern
from typing import Any

from ds_gate.kernel.errors import shown
from ds_gate.kernel.jsondoc import place
from ds_gate.kernel.layout import ARTIFACT_DIRS, record_kind
from ds_gate.model.findings import Finding
from ds_gate.model.records import (
    DECISION_ENCODING,
    REVIEW_ACTION,
    Document,
    Neighbour,
    review_encoding,
    review_fields,
    text_of,
)
from ds_gate.rules.coverage import completed_state
from ds_gate.rules.records import ARTIFACT_ID_MISMATCH
from ds_gate.rules.vocabulary import kind_finding
from ds_gate.sources.records import parse_json_object

RecordCheck = Callable[[Document], list[Finding]]
Unplaced = Finding  # a finding whose ``path`` is None: the copy's path is put in by ``at``


def unplaced(finding: Finding) -> Unplaced:
    """A finding without its path: the path is the copy's, put back by ``at``."""
    return replace(finding, path=None)


def at(finding: Unplaced, display: str) -> Finding:
    return replace(finding, path=display)


@dataclass(frozen=True, slots=True)
class Bad:
    """A record that does not parse: its finding on every copy."""

    finding: Unplaced


@dataclass(frozen=True, slots=True)
class Refused:
    """A record of a kind DeepScientist refuses: the gate reads nothing of it, reported once per path."""

    finding: Unplaced


@dataclass(frozen=True, slots=True)
class Skipped:
    """A record the gate does not read (a report that is no review): DeepScientist's own business."""


SKIPPED = Skipped()


@dataclass(frozen=True, slots=True)
class SlimRun:
    """What the gate keeps of a run record, wherever its copy lies (``Run`` without the copy's place)."""

    artifact_id: str
    notes: tuple[
        Unplaced, ...
    ]  # on every copy: an unknown kind read by its folder, an id that differs from the file name
    home_rel: str | None  # the workspace the record says it was written in
    run_id: str | None
    run_kind: str | None
    status: str | None
    updated_at: str | None
    created_at: str | None
    found: tuple[Unplaced, ...]  # the record check's findings
    done: bool  # ``rules.coverage.completed_state``: asked once per record, kept with it


@dataclass(frozen=True, slots=True)
class SlimDecision:
    """What the gate keeps of a decision, or of a review recorded as a report (``Decision`` without its place)."""

    artifact_id: str
    notes: tuple[Unplaced, ...]
    home_rel: str | None
    action: str | None
    updated_at: str | None
    created_at: str | None
    is_review: bool
    found: tuple[Unplaced, ...]
    reviewed_run_ids: tuple[str, ...]
    raw: bytes | None  # a review's bytes, to place later cross-record findings on a line
    cards_written: tuple[dict[str, Any], ...]
    neighbor_decisions: tuple[Neighbour, ...]
    encoding: str


Slim = Bad | Refused | Skipped | SlimRun | SlimDecision


def _placeable(found: list[Finding], display: str) -> tuple[Unplaced, ...] | None:
    """The findings without their path, or None when one lies elsewhere (then not shareable)."""
    if any(f.path != display for f in found):
        return None
    return tuple(unplaced(f) for f in found)


class NotShareable(Exception):
    """A record whose findings do not lie on its own path: read each copy on its own."""


def make_slim(name: str, raw: bytes, display: str, kinds: tuple[str, ...], check: RecordCheck | None) -> Slim:
    """What the gate keeps of the record file ``artifacts/<name>`` with bytes ``raw``.

    Raises ``NotShareable`` when a finding lies on another path than ``display``."""
    data, problem = parse_json_object(raw, display)
    if problem is not None:
        return Bad(_one(problem, display))
    assert data is not None
    folder, _, filename = name.partition("/")
    unknown = kind_finding(data.get("kind"), raw, display)
    # DeepScientist's collector (quest/service.py _collect_artifacts_raw) names every file
    # by its folder, so whatever ``kind`` says, a record in runs/ is a run there; PR #60
    # reads ``kind == "run"`` wherever an index line leads. The gate takes both readings.
    by_folder = folder == ARTIFACT_DIRS["run"] and "run" in kinds
    if unknown is not None and not by_folder:  # DeepScientist refuses such a record: the gate reads nothing of it
        return Refused(_one(unknown, display))
    own_kind = record_kind(data, folder)
    kind = "run" if by_folder else own_kind
    if kind not in kinds or (kind == "report" and review_encoding(data, kind) is None):
        return SKIPPED  # a report that is no review: DeepScientist's own business
    stem = filename.removesuffix(".json")
    artifact_id = data.get("artifact_id") or data.get("id")
    # findings on every copy's own path, whichever copy wins: an unknown kind read as a run
    # by its folder, and an id that differs from the file name
    notes: tuple[Unplaced, ...] = () if unknown is None else (_one(unknown, display),)
    if not artifact_id:  # PR #60 never counts a run without one; the gate names it by its file
        artifact_id = stem
    else:  # as PR #60 names it, str(...) as written: a review must list exactly that (whitespace too)
        artifact_id = artifact_id if isinstance(artifact_id, str) else str(artifact_id)
    if artifact_id != stem:
        notes += (
            _one(
                ARTIFACT_ID_MISMATCH.at(
                    display,
                    f"artifact_id {shown(artifact_id)} differs from the file name '{filename}'; using {shown(artifact_id)}",
                    hint=f"DeepScientist names each record <artifact_id>.json; rename the file to {artifact_id}.json",
                    pointer="/artifact_id",
                    line=place(raw, ("artifact_id",)),
                ),
                display,
            ),
        )
    home_rel = data.get("workspace_rel_path")
    home_rel = home_rel if isinstance(home_rel, str) else None
    checked = check(Document(own_kind, data, raw, display)) if check is not None else []
    found = _placeable(checked, display)
    if found is None:
        raise NotShareable(display)
    updated, created = text_of(data.get("updated_at")), text_of(data.get("created_at"))
    created = updated if created == updated else created  # a record written once: one string for both
    if kind == "run":  # interned: the index names the same id, and a quest has few kinds, statuses, workspaces
        run_kind, status = _interned(text_of(data.get("run_kind"))), _interned(text_of(data.get("status")))
        return SlimRun(
            intern(artifact_id),
            notes,
            _interned(home_rel),
            text_of(data.get("run_id")),
            run_kind,
            status,
            updated,
            created,
            found,
            completed_state(run_kind, status),
        )
    review = review_fields(data, kind)  # a decision, or a review recorded as a report
    return SlimDecision(
        artifact_id,
        notes,
        home_rel,
        text_of(data.get("action")) if kind == "decision" else REVIEW_ACTION,
        updated,
        created,
        review.is_review,
        found,
        tuple(map(intern, review.reviewed_run_ids)),  # the runs' own ids
        raw if review.is_review else None,
        review.cards_written,
        review.neighbor_decisions,
        review_encoding(data, kind) or DECISION_ENCODING,
    )


def _interned(text: str | None) -> str | None:
    """One object per distinct value: 100,000 runs hold a handful of kinds and statuses."""
    return None if text is None else intern(text)


def _one(finding: Finding, display: str) -> Unplaced:
    if finding.path != display:
        raise NotShareable(display)
    return unplaced(finding)
