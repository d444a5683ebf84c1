"""Plain data shared by every layer: findings and rules, what a quest holds, reports.

The submodules import nothing of ds-gate's but each other; this package re-exports their
names for plugins and users (``from ds_gate.model import Finding, Rule``).
"""

from __future__ import annotations

from ds_gate.kernel.errors import QuestError
from ds_gate.model.findings import (
    CONTRACT,
    DISCIPLINE,
    ERROR,
    INFO,
    SCHEMA_VERSION,
    WARNING,
    Finding,
    Rule,
)
from ds_gate.model.records import (
    Card,
    Decision,
    Quest,
    Review,
    Run,
    Workspace,
    review_encoding,
    same_quest,
    text_of,
    timestamp,
)
from ds_gate.model.reports import (
    SCOPES,
    AgentInstallReport,
    DocumentsReport,
    GateReport,
    LineageReport,
    ListingReport,
    RecallReport,
    RecentReport,
    Report,
    Scope,
)

__all__ = [
    "CONTRACT",
    "DISCIPLINE",
    "ERROR",
    "INFO",
    "SCHEMA_VERSION",
    "SCOPES",
    "WARNING",
    "AgentInstallReport",
    "Card",
    "Decision",
    "DocumentsReport",
    "Finding",
    "GateReport",
    "LineageReport",
    "ListingReport",
    "Quest",
    "QuestError",
    "RecallReport",
    "RecentReport",
    "Report",
    "Review",
    "Rule",
    "Run",
    "Scope",
    "Workspace",
    "review_encoding",
    "same_quest",
    "text_of",
    "timestamp",
]
