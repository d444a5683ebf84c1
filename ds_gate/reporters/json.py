"""``--format json``: one object per command, with ``schema_version`` (see model.Report).

Compact: with ``indent`` the json module falls back to its slow pure-Python encoder.
``render_parts`` writes the long lists a chunk at a time, so a 100,000-run report is never
held whole; the parts join to exactly ``render``'s text (same encoder, same separators).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

from ds_gate.model.reports import Lazy, Report
from ds_gate.reporters.escape import json_text

CHUNK = 2048  # items of a long list encoded at once


def _lazy_parts(items: Lazy) -> Iterator[str]:
    yield "["
    rows, first = iter(items), True
    while chunk := list(islice(rows, CHUNK)):
        yield ("" if first else ", ") + json_text(chunk)[1:-1]  # the items, without the list's brackets
        first = False
    yield "]"


class JsonReporter:
    encoding = "utf-8"  # JSON is UTF-8 (RFC 8259), whatever the locale: ``emit`` writes it so

    def render(self, report: Report) -> str:
        return json_text(report.as_dict()) + "\n"

    def render_parts(self, report: Report) -> Iterator[str]:
        yield "{"
        for n, (key, value) in enumerate(report.as_dict(lazy=True).items()):
            yield ("" if n == 0 else ", ") + json_text(key) + ": "
            if isinstance(value, Lazy):
                yield from _lazy_parts(value)
            else:
                yield json_text(value)
        yield "}\n"
