"""The public API as type checkers see it (``__init__.py`` imports each name on first use).

Only public types in the signatures: the model's (``ds_gate.model``), the standard library's.
``tests/unit/test_api.py`` keeps these in step with the functions they stand for.
"""

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ds_gate.kernel.errors import QuestError as QuestError
from ds_gate.model.context import CheckContext as CheckContext
from ds_gate.model.findings import Finding as Finding
from ds_gate.model.findings import Rule as Rule
from ds_gate.model.records import Card as Card
from ds_gate.model.records import Document as Document
from ds_gate.model.records import Quest as Quest
from ds_gate.model.records import Run as Run
from ds_gate.model.reports import DocumentsReport as DocumentsReport
from ds_gate.model.reports import GateReport as GateReport
from ds_gate.model.reports import LineageReport as LineageReport
from ds_gate.model.reports import Report as Report
from ds_gate.plugins.hookspecs import hookimpl as hookimpl

__version__: str
__all__: list[str]

def evaluate(
    quest: Quest | Path | str,
    command: str = "check",
    *,
    require: bool = False,
    home: Path | str | None = None,
    source: str = "auto",
    refs: Sequence[str] | None = None,
    finalization: Sequence[str] = (),
    staged_findings: Iterable[Finding] = (),
    cache: bool = True,
    no_require: bool = False,
    accept_quest_waivers: bool = False,
) -> GateReport: ...
def load_quest(
    path: Path | str,
    *,
    cache: bool = True,
    staged: bool = False,
    runs_only: bool = False,
    source: str = "auto",
    refs: Sequence[str] | None = None,
) -> Quest: ...
def list_distill_candidates(root: Path | str) -> dict[str, Any]: ...
def list_knowledge_summaries(
    domain_tags: Iterable[str] | str | None = (),
    kind: str | None = None,
    limit: int = 20,
    *,
    home: Path | str | None = None,
    quest: Path | str | None = None,
    scope: str = "visible",
    query: str | None = None,
    jsonl: Sequence[Path | str] = (),
    refresh: bool = False,
    cache: bool = True,
    max_chars: int | None = None,
    support: bool = False,
    order: str = "rfc",
    visibility: str = "follow",
) -> list[dict[str, Any]]: ...
def list_recent(
    quest: Path | str,
    kind: str | None = None,
    limit: int = 20,
    *,
    source: str = "auto",
    refs: Sequence[str] | None = None,
) -> list[dict[str, Any]]: ...
def commit_check(cwd: Path | str = ".", *, validate: bool = True, require: bool = False) -> Report | None: ...
def validate_files(paths: Iterable[str | Path], *, checkpoint: bool = False) -> tuple[DocumentsReport, bool]: ...
def validate_cross_quest_patch(
    before: Mapping[str, Any] | Card | None,
    after: Mapping[str, Any] | Card,
    patching_quest: str | None,
    *,
    path: str | None = None,
    validate_after: bool = True,
) -> list[Finding]: ...
def evaluate_lineage(
    home_dir: Path | str | None = None,
    paths: list[Path | str] | tuple[Path | str, ...] = (),
    *,
    since: str | None = None,
    patching_quest: str | None = None,
) -> LineageReport: ...
