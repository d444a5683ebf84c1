"""A record file's bytes as a JSON object, or the finding that says why it is not one.

The parse itself is the kernel's (``kernel.triage.parse_record``, which the commit hook uses
on every staged record); a record it refused is read again here only to word the problem
with its place.
"""

from __future__ import annotations

from json import JSONDecodeError
from typing import TYPE_CHECKING

from ds_gate.kernel.jsondoc import loads
from ds_gate.kernel.triage import parse_record
from ds_gate.sources.problems import ARTIFACT_INVALID_JSON, ARTIFACT_NOT_OBJECT

if TYPE_CHECKING:
    from typing import Any

    from ds_gate.model.findings import Finding


def parse_json_object(raw: bytes, display: str) -> tuple[dict[str, Any] | None, Finding | None]:
    """A record file as a dict, or a finding that says where it stops being JSON: the
    kernel's ``parse_record`` reads it (the one parse the hook uses too, Python's ``json``'s), and only a
    record it refused is read again here, to word why."""
    data = parse_record(raw)
    if data is not None:
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
        return None, ARTIFACT_INVALID_JSON.at(
            display,
            "JSON nested too deeply to read",
            hint="an artifact record is a flat JSON object; this file is not one",
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
