"""``--format json``: one object per command, with ``schema_version`` (see model.Report).

Compact on one line: with ``indent`` the json module falls back to its pure-Python
encoder, which costs more than reading the quest on large quests. Pipe through
``python -m json.tool`` or ``jq`` to read it.

The command line writes the report in parts (``render_parts``): its long lists a chunk of
items at a time, so a 100,000-run report is never held whole, as dicts or as text. The
parts join to exactly ``render``'s text: nested values are written by the same encoder with
the same separators, which is all a compact JSON text depends on.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

from ds_gate.kernel.jsonout import dumps
from ds_gate.model.reports import Lazy, Report
from ds_gate.reporters.escape import json_safe

CHUNK = 2048  # items of a long list encoded at once


def _dumps(value: Any) -> str:
    return json_safe(dumps(value, ensure_ascii=False))


def _lazy_parts(items: Lazy) -> Iterator[str]:
    yield "["
    rows, first = iter(items), True
    while chunk := list(islice(rows, CHUNK)):
        yield ("" if first else ", ") + _dumps(chunk)[1:-1]  # the items, without the list's brackets
        first = False
    yield "]"


class JsonReporter:
    encoding = "utf-8"  # JSON is UTF-8 (RFC 8259), whatever the locale: ``emit`` writes it so

    def render(self, report: Report) -> str:
        """Control characters are JSON's to escape; a byte of a file name that is not UTF-8
        (a lone surrogate) becomes the visible ``\\xff``, so the output always encodes."""
        return _dumps(report.as_dict()) + "\n"

    def render_parts(self, report: Report) -> Iterator[str]:
        """``render``'s text in parts, the long lists a chunk at a time."""
        yield "{"
        for n, (key, value) in enumerate(report.as_dict(lazy=True).items()):
            yield ("" if n == 0 else ", ") + _dumps(key) + ": "
            if isinstance(value, Lazy):
                yield from _lazy_parts(value)
            else:
                yield _dumps(value)
        yield "}\n"
