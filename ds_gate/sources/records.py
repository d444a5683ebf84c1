"""Records and index lines as parsed documents, from any reader: the loader's input.

Records are yielded one at a time so a quest with tens of thousands of runs never holds
more than one parsed document. The parse is the kernel's (``kernel.triage.parse_record``, the
hook's too); a record it refused is read again here only to word the problem with its place.
"""

from __future__ import annotations

import io
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from json import JSONDecodeError
from sys import intern
from typing import Any

from ds_gate.kernel.fs import TooLarge
from ds_gate.kernel.jsondoc import loads
from ds_gate.kernel.layout import ARTIFACT_DIRS, INDEX_NAME
from ds_gate.kernel.triage import parse_record
from ds_gate.model.findings import Finding
from ds_gate.sources.folders import Reader
from ds_gate.sources.problems import (
    ARTIFACT_INVALID_JSON,
    ARTIFACT_NOT_OBJECT,
    ARTIFACT_TOO_DEEP,
    INDEX_INVALID_LINE,
    INDEX_PARTIAL_LINE,
    unreadable,
)

__all__ = ["IndexEntry", "RecordFile", "folders_for", "index_lines", "parse_json_object", "read_index", "read_records"]


@dataclass(slots=True)
class RecordFile:
    """One parsed record file, alive only while the loader looks at it."""

    name: str  # below artifacts/, e.g. "runs/run-51c9ad07.json"
    display: str  # quest-relative path, for findings
    data: dict[str, Any] | None
    raw: bytes
    problem: Finding | None


def folders_for(kinds: Collection[str]) -> frozenset[str]:
    """The folders to skip when only ``kinds`` matter: those DeepScientist reserves for other
    kinds. Unknown folders (a fork's, an older layout's) are read, so no run hides there."""
    return frozenset(folder for kind, folder in ARTIFACT_DIRS.items() if kind not in kinds) | {"science"}


def read_records(reader: Reader, skip: Collection[str]) -> Iterator[RecordFile]:
    """Every ``artifacts/<folder>/<name>.json`` outside the ``skip`` folders, parsed."""
    names = reader.record_names(skip)
    for name, raw in reader.read_many(names):
        display = reader.workspace.display(f"artifacts/{name}")
        if isinstance(raw, OSError):
            yield RecordFile(name, display, None, b"", unreadable(display, raw))
            continue
        data, problem = parse_json_object(raw, display)
        yield RecordFile(name, display, data, raw, problem)


@dataclass(slots=True)
class IndexEntry:
    artifact_id: str
    kind: str
    path: str | None
    line: int
    status: str | None = None  # the line's own: counts the run when its record is found nowhere


def index_lines(reader: Reader) -> Iterator[bytes | TooLarge]:
    """The index a line at a time (with its newline): a folder's is streamed from the file,
    so a 50 MB index is never held whole; a line longer than the file limit comes as a
    ``TooLarge`` in its place (skipped unread, and line numbers stay right)."""
    stream = getattr(reader, "index_stream", None)
    if stream is not None:
        yield from stream()
        return
    raw = reader.index_bytes()
    if raw:
        yield from io.BytesIO(raw)


_BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark


def read_index(reader: Reader, kinds: Collection[str] | None) -> Iterator[IndexEntry | Finding]:
    """Index lines of the wanted kinds. A malformed line is a warning, never a stop: the index
    only adds what the record files cannot say (a record indexed but gone), and they are still read."""
    display = reader.workspace.display(f"artifacts/{INDEX_NAME}")
    for number, line in enumerate(index_lines(reader), start=1):
        if isinstance(line, TooLarge):
            yield INDEX_INVALID_LINE.at(
                display,
                f"line is {line.strerror}; skipped",
                hint="an index line describes one artifact in a few hundred bytes; this one is not DeepScientist's",
                line=number,
            )
            continue
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if not line.strip():
            continue
        try:
            entry = loads(line)
        except (ValueError, RecursionError) as exc:
            partial = not line.endswith(b"\n")  # the last line, unfinished: a writer may be mid-append
            yield (INDEX_PARTIAL_LINE if partial else INDEX_INVALID_LINE).at(
                display,
                (
                    "the last line has no newline and is not complete JSON (a write in progress?); skipped"
                    if partial
                    else f"line is not valid JSON ({exc}); skipped"
                ),
                hint="the record files are still read; rewrite or delete the broken index line",
                line=number,
            )
            continue
        if not isinstance(entry, dict):
            yield INDEX_INVALID_LINE.at(
                display,
                f"line is a JSON {type(entry).__name__}, not an object; skipped",
                hint="each index line is one JSON object describing one artifact",
                line=number,
            )
            continue
        kind, artifact_id = entry.get("kind"), entry.get("artifact_id")
        if not isinstance(kind, str) or not isinstance(artifact_id, str):
            continue
        if kinds is not None and kind not in kinds:
            continue
        path, status = entry.get("path"), entry.get("status")
        # interned: each id is also its record's, and the kinds and statuses are a handful (memory at 100,000 runs)
        yield IndexEntry(
            intern(artifact_id),
            intern(kind),
            path if isinstance(path, str) else None,
            number,
            intern(status) if isinstance(status, str) else None,
        )


def index_rows(lines: list[bytes]) -> list[bytes]:
    """An index's lines as ``read_index`` reads them: the first one's BOM dropped, each stripped,
    the blank ones left out (what a baseline compares, ``engine.baseline_match``)."""
    if lines and lines[0].startswith(_BOM):
        lines = [lines[0][len(_BOM) :], *lines[1:]]
    return [line.strip() for line in lines if line.strip()]


def _is_review(data: dict[str, Any]) -> bool:
    """A review in either encoding (a report or a decision): the one kind a BOM may not pass, since
    a review main cannot read would cover runs main still sees pending. Other records with a BOM are
    read (a run main cannot read is still counted: stricter)."""
    return data.get("report_type") == "distill_review" or data.get("action") == "distill_review"


def parse_json_object(raw: bytes, display: str) -> tuple[dict[str, Any] | None, Finding | None]:
    """A record file as a dict, or the finding that says where it stops being JSON."""
    data = parse_record(raw)
    if data is not None:
        if raw.startswith(_BOM) and _is_review(data):
            return None, ARTIFACT_INVALID_JSON.at(
                display,
                "a distill review saved with a UTF-8 byte order mark: DeepScientist main's read_json cannot read it "
                "(json: Unexpected UTF-8 BOM), so main holds no review here and it covers nothing",
                hint="save the file as UTF-8 without a byte order mark (or record the review with artifact.record)",
                line=1,
            )
        return data, None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, ARTIFACT_INVALID_JSON.at(
            display,
            f"not UTF-8 text (byte {exc.start})",
            hint="artifact records are UTF-8 JSON; rewrite the file with DeepScientist or fix its encoding",
            line=raw.count(b"\n", 0, exc.start) + 1,
        )
    try:
        data = loads(text)
    except RecursionError:
        return None, ARTIFACT_TOO_DEEP.at(
            display,
            "JSON nested too deeply for ds-gate to read (DeepScientist's json may still read it)",
            hint="an artifact record is a flat JSON object: re-record the artifact with flat values",
        )
    except ValueError as exc:
        if isinstance(exc, JSONDecodeError):
            return None, ARTIFACT_INVALID_JSON.at(
                display,
                f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                hint="the file may be truncated by an interrupted write; restore it from git or re-record the artifact",
                line=exc.lineno,
            )
        return None, ARTIFACT_INVALID_JSON.at(  # what json refuses past its grammar (an integer over 4300 digits)
            display,
            f"invalid JSON: {exc}",
            hint="DeepScientist's json cannot read this record either; restore it from git or re-record the artifact",
        )
    if not isinstance(data, dict):
        return None, ARTIFACT_NOT_OBJECT.at(
            display,
            f"an artifact record must be a JSON object, this is a {type(data).__name__}",
            hint="restore the record from git or re-record the artifact",
            line=1,
        )
    return data, None
