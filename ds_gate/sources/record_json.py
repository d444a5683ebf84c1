"""A record file's bytes as a JSON object: the one parse every reader of records uses.

Kept apart from ``sources.records`` (the loader's reader, with its dataclasses) because the
commit hook parses each staged record here on every commit that stages one: a record that
parses imports nothing beyond ``json``'s C scanner (``io.jsondoc.loads``); ``json`` itself
and the rules that word a problem load only for a record that has one.
"""

from __future__ import annotations

from json import JSONDecodeError
from typing import TYPE_CHECKING

from ds_gate.kernel.jsondoc import loads
from ds_gate.sources.problems import ARTIFACT_INVALID_JSON, ARTIFACT_NOT_OBJECT

if TYPE_CHECKING:
    from typing import Any

    from ds_gate.model.findings import Finding


def parse_json_object(raw: bytes, display: str) -> tuple[dict[str, Any] | None, Finding | None]:
    """A record file as a dict, or a finding that says where it stops being JSON."""
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
        return None, ARTIFACT_INVALID_JSON.at(  # NaN / Infinity
            display,
            f"invalid JSON: {exc}",
            hint="write null (or a number) instead; DeepScientist's records are strict JSON",
        )
    if not isinstance(data, dict):
        return None, ARTIFACT_NOT_OBJECT.at(
            display,
            f"an artifact record must be a JSON object, this is a {type(data).__name__}",
            hint="restore the record from git or re-record the artifact",
            line=1,
        )
    return data, None
