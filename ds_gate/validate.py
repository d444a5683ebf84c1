"""Validate given documents: artifact records and memory cards named on the command line,
or staged blobs.

Each document is checked on its own (schema, in-document rules); a distill_review is also
checked against the runs of the quest it belongs to, which is read only when a review
is among the documents and only once per quest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ds_gate.checks.documents import inspect_decision, inspect_run
from ds_gate.model import ERROR, INFO, Finding, Quest, QuestError, Report
from ds_gate.sources.artifacts import parse_json_object, record_kind

if TYPE_CHECKING:
    from ds_gate.checks.coverage import RunIndex


@dataclass(frozen=True, slots=True)
class Document:
    display: str  # how findings name it
    raw: bytes
    folder: str  # the folder it sits in (decisions, runs, ...), to route a record with no kind


def check_documents(
    documents: Iterable[Document], quest_for: Callable[[Document], Quest | None]
) -> tuple[list[Finding], int]:
    """Findings for the documents, and how many were run or decision records."""
    findings: list[Finding] = []
    reviews: list[tuple[Document, tuple[str, ...]]] = []
    checked = 0
    for doc in documents:
        data, problem = parse_json_object(doc.raw, doc.display)
        if problem is not None:
            findings.append(problem)
            checked += 1
            continue
        assert data is not None
        kind = record_kind(data, doc.folder)
        if kind == "run":
            findings.extend(inspect_run(data, doc.raw, doc.display))
        elif kind == "decision":
            check = inspect_decision(data, doc.raw, doc.display)
            findings.extend(check.findings)
            if check.is_review and check.reviewed_run_ids:
                reviews.append((doc, check.reviewed_run_ids))
        else:
            continue
        checked += 1

    if not reviews:
        return findings, checked
    from ds_gate.checks.coverage import RunIndex  # only a review needs the quest's runs

    indexes: dict[Path, RunIndex] = {}
    for doc, reviewed in reviews:
        try:
            quest = quest_for(doc)
        except QuestError as exc:
            quest, reason = None, str(exc)
        else:
            reason = "it is not inside a quest"
        if quest is None:
            findings.append(
                Finding(
                    rule="review.runs-not-checked",
                    severity=INFO,
                    path=doc.display,
                    message=f"reviewed_run_ids were not checked against runs: {reason}",
                    hint="validate the review inside its quest to check that every reviewed id is a run",
                )
            )
            continue
        index = indexes.get(quest.root) or indexes.setdefault(quest.root, RunIndex(quest))
        findings.extend(index.unknown(reviewed, doc.display, doc.raw))
    return findings, checked


def _card(raw: bytes, path: Path, display: str) -> list[Finding] | None:
    """A memory card's findings, or None for Markdown with no frontmatter (not a card)."""
    from ds_gate.checks.cards import card_findings
    from ds_gate.sources.memory import parse_card

    parent = path.resolve().parent
    kind = parent.parent.name if parent.parent.name == "ideas" else parent.name
    card = parse_card(raw, path=path, display=display, scope="", kind=kind)
    return None if card is None else card_findings(card)


def validate_files(paths: Iterable[str | Path]) -> tuple[Report, bool]:
    """The ``ds-gate validate`` core: (report, every file could be read)."""
    paths_list = list(paths)
    from ds_gate.loader import load_quest
    from ds_gate.sources.quest import locate

    documents: list[Document] = []
    findings: list[Finding] = []
    readable = True
    cards = 0
    for given in paths_list:
        path = Path(given)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            readable = False
            findings.append(
                Finding(
                    rule="input.unreadable",
                    severity=ERROR,
                    path=str(given),
                    message=f"cannot read {given}: {exc.strerror or exc}",
                    hint="check the path and its permissions",
                )
            )
            continue
        if path.suffix == ".md":
            card_problems = _card(raw, path, str(given))
            if card_problems is not None:
                cards += 1
                findings.extend(card_problems)
            continue
        documents.append(Document(str(given), raw, path.resolve().parent.name))

    quests: dict[Path, Quest] = {}
    roots: dict[Path, Path | QuestError] = {}  # folder -> quest root: one git call per folder, not per file

    def quest_for(doc: Document) -> Quest:
        folder = Path(doc.display).resolve().parent
        if folder not in roots:
            try:
                roots[folder] = locate(folder).root
            except QuestError as exc:
                roots[folder] = exc
        root = roots[folder]
        if isinstance(root, QuestError):
            raise root
        if root not in quests:
            quests[root] = load_quest(root)
        return quests[root]

    doc_findings, checked = check_documents(documents, quest_for)
    findings.extend(doc_findings)
    findings.sort(key=Finding.sort_key)
    notes = [f"{checked} run or decision records and {cards} memory cards of {len(paths_list)} files were validated"]
    report = Report(command="validate", ok=not any(f.severity == ERROR for f in findings), findings=findings, notes=notes)
    return report, readable
