"""A record file's bytes reduced to what the gate keeps of it, independent of where the copy lies.

Worktrees hold byte-identical copies of their parent branch's records, and a repeated run
sees the same files again. So the expensive part (parse, record rules, schema) is done
once per content and kept as a *slim*: a tuple of plain values (``marshal`` can store it)
whose findings have no path. ``place`` turns a slim back into a ``Run`` or ``Decision``
and findings on the copy's own path, exactly as reading that copy would have made them.

Only valid when every finding the record check makes lies on the record's own path and
depends on nothing but the bytes, the file name and the kind: true of the built-in rules,
not promised by a plugin's, so the loader uses slims only when no plugin is installed
(``Slimmer.pure``).
"""

from __future__ import annotations

from collections.abc import Callable
from sys import intern
from typing import Any

from ds_gate.kernel.jsondoc import place
from ds_gate.kernel.layout import ARTIFACT_DIRS, record_kind
from ds_gate.model.findings import Finding
from ds_gate.model.records import (
    DECISION_ENCODING,
    REVIEW_ACTION,
    Document,
    review_encoding,
    review_fields,
    text_of,
)
from ds_gate.rules.records import ARTIFACT_ID_MISMATCH
from ds_gate.rules.vocabulary import kind_finding
from ds_gate.sources.records import IndexEntry, parse_json_object

Slim = tuple[Any, ...]
RecordCheck = Callable[[Document], list[Finding]]

# Tags of a slim's first field.
BAD, REFUSED, SKIP, RUN, DECISION = "bad", "refused", "skip", "run", "decision"


def fields(finding: Finding) -> tuple[Any, ...]:
    """A finding without its path: the path is the copy's, put back by ``unfields``."""
    return (finding.rule, finding.severity, finding.message, finding.hint, finding.pointer, finding.line,
            finding.subject, finding.waived, finding.level)


_FIELDS = ("rule", "severity", "message", "hint", "pointer", "line", "subject", "waived", "level")


def unfields(values: tuple[Any, ...] | list[Any], display: str) -> Finding:
    return Finding(**{"path": display, **dict(zip(_FIELDS, values, strict=True))})


def _placeable(found: list[Finding], display: str) -> tuple[tuple[Any, ...], ...] | None:
    """The findings as path-less tuples, or None when one lies elsewhere (then not shareable)."""
    if any(f.path != display for f in found):
        return None
    return tuple(fields(f) for f in found)


class NotShareable(Exception):
    """A record whose findings do not lie on its own path: read each copy on its own."""


def make_slim(name: str, raw: bytes, display: str, kinds: tuple[str, ...], check: RecordCheck | None) -> Slim:
    """What the gate keeps of the record file ``artifacts/<name>`` with bytes ``raw``.

    Raises ``NotShareable`` when a finding lies on another path than ``display``."""
    data, problem = parse_json_object(raw, display)
    if problem is not None:
        return (BAD, _one(problem, display))
    assert data is not None
    folder, _, filename = name.partition("/")
    unknown = kind_finding(data.get("kind"), raw, display)
    # DeepScientist's collector (quest/service.py _collect_artifacts_raw) names every file
    # by its folder, so whatever ``kind`` says, a record in runs/ is a run there; PR #60
    # reads ``kind == "run"`` wherever an index line leads. The gate takes both readings.
    by_folder = folder == ARTIFACT_DIRS["run"] and "run" in kinds
    if unknown is not None and not by_folder:  # DeepScientist refuses such a record: the gate reads nothing of it
        return (REFUSED, _one(unknown, display))
    own_kind = record_kind(data, folder)
    kind = "run" if by_folder else own_kind
    if kind not in kinds or (kind == "report" and review_encoding(data, kind) is None):
        return (SKIP,)  # a report that is no review: DeepScientist's own business
    stem = filename.removesuffix(".json")
    artifact_id = data.get("artifact_id") or data.get("id")
    # findings on every copy's own path, whichever copy wins: an unknown kind read as a run
    # by its folder, and an id that differs from the file name
    notes: tuple[tuple[Any, ...], ...] = () if unknown is None else (_one(unknown, display),)
    if not artifact_id:  # PR #60 never counts a run without one; the gate names it by its file
        artifact_id = stem
    else:  # as PR #60 names it, str(...) as written: a review must list exactly that (whitespace too)
        artifact_id = artifact_id if isinstance(artifact_id, str) else str(artifact_id)
    if artifact_id != stem:
        notes += (_one(ARTIFACT_ID_MISMATCH.at(
            display,
            f"artifact_id {artifact_id!r} differs from the file name '{filename}'; using {artifact_id!r}",
            hint=f"DeepScientist names each record <artifact_id>.json; rename the file to {artifact_id}.json",
            pointer="/artifact_id",
            line=place(raw, ("artifact_id",)),
        ), display),)
    home_rel = data.get("workspace_rel_path")
    home_rel = home_rel if isinstance(home_rel, str) else None
    checked = check(Document(own_kind, data, raw, display)) if check is not None else []
    found = _placeable(checked, display)
    if found is None:
        raise NotShareable(display)
    updated, created = text_of(data.get("updated_at")), text_of(data.get("created_at"))
    if kind == "run":  # interned: the index names the same id, and a quest has few kinds, statuses, workspaces
        return (RUN, intern(artifact_id), notes, _interned(home_rel), text_of(data.get("run_id")),
                _interned(text_of(data.get("run_kind"))), _interned(text_of(data.get("status"))), updated, created, found)
    review = review_fields(data, kind)  # a decision, or a review recorded as a report
    return (DECISION, artifact_id, notes, home_rel,
            text_of(data.get("action")) if kind == "decision" else REVIEW_ACTION, updated, created, review.is_review,
            found, review.reviewed_run_ids, raw if review.is_review else None, review.cards_written,
            tuple(sorted(review.neighbor_cards)), review_encoding(data, kind) or DECISION_ENCODING)


def _interned(text: str | None) -> str | None:
    """One object per distinct value: 100,000 runs hold a handful of kinds and statuses."""
    return None if text is None else intern(text)


def _one(finding: Finding, display: str) -> tuple[Any, ...]:
    if finding.path != display:
        raise NotShareable(display)
    return fields(finding)


TAGS = frozenset((BAD, REFUSED, SKIP, RUN, DECISION, "index"))


def well_formed(slim: object) -> bool:
    """A slim read back from the cache file. The file's version (this code's) and digest
    were checked whole, so its values are what ``make_slim`` or ``pack_index`` wrote; this is
    only the last guard against a file of the right version written by something else."""
    return type(slim) is tuple and len(slim) > 0 and slim[0] in TAGS


def pack_index(items: list[IndexEntry | Finding], display: str) -> Slim | None:
    """An index's entries and warnings as plain values, or None when a warning lies elsewhere."""
    packed: list[tuple[Any, ...]] = []
    for item in items:
        if isinstance(item, Finding):
            if item.path != display:
                return None
            packed.append(fields(item))
        else:
            packed.append((item.artifact_id, item.kind, item.path, item.line))
    return ("index", tuple(packed))


def unpack_index(slim: Slim, display: str) -> list[IndexEntry | Finding] | None:
    if slim[0] != "index":
        return None
    return [IndexEntry(*values) if len(values) == 4 else unfields(values, display) for values in slim[1]]
