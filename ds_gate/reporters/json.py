"""``--format json``: one object per command, with ``schema_version`` (see model.Report).

Compact on one line: with ``indent`` the json module falls back to its pure-Python
encoder, which costs more than reading the quest on large quests. Pipe through
``python -m json.tool`` or ``jq`` to read it.
"""

from __future__ import annotations

import json

from ds_gate.model.reports import Report
from ds_gate.reporters.escape import json_safe


class JsonReporter:
    encoding = "utf-8"  # JSON is UTF-8 (RFC 8259), whatever the locale: ``emit`` writes it so

    def render(self, report: Report) -> str:
        """Control characters are JSON's to escape; a byte of a file name that is not UTF-8
        (a lone surrogate) becomes the visible ``\\xff``, so the output always encodes."""
        return json_safe(json.dumps(report.as_dict(), ensure_ascii=False)) + "\n"
