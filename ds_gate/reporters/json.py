"""``--format json``: one object per command, with ``schema_version`` (see model.Report).

Compact on one line: with ``indent`` the json module falls back to its pure-Python
encoder, which costs more than reading the quest on large quests. Pipe through
``python -m json.tool`` or ``jq`` to read it.
"""

from __future__ import annotations

import json

from ds_gate.model.reports import Report


class JsonReporter:
    def render(self, report: Report) -> str:
        return json.dumps(report.as_dict(), ensure_ascii=False) + "\n"
