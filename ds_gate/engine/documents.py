"""Validate given documents: artifact records and memory cards named on the command line,
or staged blobs.

Each document is checked on its own (schema, in-document rules); a distill_review is also
checked against the runs of the quest it belongs to, which is read only when a review
is among the documents and only once per quest.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ds_gate.engine.loader import load_quest
from ds_gate.kernel import fs
from ds_gate.kernel.counting import counted
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.layout import GATE_KINDS, pre_commit_files_pattern, record_kind
from ds_gate.model.findings import ERROR, Finding
from ds_gate.model.records import Card, Document, Quest, review_encoding, review_fields
from ds_gate.model.reports import DocumentsReport
from ds_gate.plugins.manager import card_checker, record_checker
from ds_gate.rules.coverage import RunIndex
from ds_gate.rules.policy import CHECKPOINT, apply_policy, demoted_note
from ds_gate.rules.records import REVIEW_RUNS_NOT_CHECKED
from ds_gate.rules.vocabulary import kind_finding
from ds_gate.sources.location import Location, locate
from ds_gate.sources.memory import parse_card
from ds_gate.sources.problems import INPUT_UNREADABLE, too_large
from ds_gate.sources.records import parse_json_object


@dataclass(frozen=True, slots=True)
class GivenFile:
    """A record file as given (named on the command line, or staged), not yet parsed."""

    display: str  # how findings name it
    raw: bytes
    folder: str  # the folder it sits in (decisions, runs, ...), to route a record with no kind


def check_documents(
    documents: Iterable[GivenFile], quest_for: Callable[[GivenFile], Quest | None], root: Path | None = None
) -> tuple[list[Finding], int]:
    """Findings for the documents, and how many were run or decision records. ``root``: the
    quest whose ``.ds-gate.yaml`` says which extra decision actions its DeepScientist accepts."""
    check = record_checker(root)
    findings: list[Finding] = []
    reviews: list[tuple[GivenFile, tuple[str, ...], str | None]] = []
    checked = 0
    for doc in documents:
        data, problem = parse_json_object(doc.raw, doc.display)
        if problem is not None:
            findings.append(problem)
            checked += 1
            continue
        assert data is not None
        unknown = kind_finding(data.get("kind"), doc.raw, doc.display)
        if unknown is not None:
            findings.append(unknown)
            checked += 1
            continue
        kind = record_kind(data, doc.folder)
        if kind not in GATE_KINDS or (kind == "report" and review_encoding(data, kind) is None):
            continue  # a report that is no review: main requires nothing of it
        findings.extend(check(Document(kind, data, doc.raw, doc.display)))
        review = review_fields(data, kind)
        if review.is_review and review.reviewed_run_ids:
            reviews.append((doc, review.reviewed_run_ids, review_encoding(data, kind)))
        checked += 1

    if not reviews:
        return findings, checked

    indexes: dict[Path, RunIndex] = {}
    for doc, reviewed, encoding in reviews:
        try:
            quest = quest_for(doc)
        except QuestError as exc:
            quest, reason = None, str(exc)
        else:
            reason = "it is not inside a quest"
        if quest is None:
            findings.append(
                REVIEW_RUNS_NOT_CHECKED.at(
                    doc.display,
                    f"reviewed_run_ids were not checked against runs: {reason}",
                    hint="validate the review inside its quest to check that every reviewed id is a run",
                )
            )
            continue
        index = indexes.get(quest.root) or indexes.setdefault(quest.root, RunIndex(quest))
        findings.extend(index.unknown(reviewed, doc.display, doc.raw, encoding))
    return findings, checked


def _card(raw: bytes, path: Path, display: str, check: Callable[[Card], list[Finding]]) -> list[Finding] | None:
    """A memory card's findings, or None for Markdown with no frontmatter (not a card)."""
    parent = path.resolve().parent
    kind = parent.parent.name if parent.parent.name == "ideas" else parent.name
    card = parse_card(raw, path=path, display=display, scope="", kind=kind)
    return None if card is None else check(card)


def walk_documents(folder: Path) -> list[str]:
    """The record and card files under ``folder``, sorted: the paths the pre-commit hook's
    ``files`` pattern accepts (``artifacts/<records>/*.json``, ``memory/<kind>/*.md``),
    below any folder (worktrees included). ``.git`` is skipped; symbolic links, to folders
    or files, are not followed (a link may lead out of the folder the user named)."""
    wanted = re.compile(pre_commit_files_pattern())
    found: list[str] = []
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != ".git" and not os.path.islink(os.path.join(top, d)))
        for name in files:
            path = os.path.join(top, name)
            if wanted.search(Path(path).as_posix()) and not os.path.islink(path):
                found.append(path)
    return sorted(found)


@dataclass(slots=True)
class QuestsByFolder:
    """The quest each given record lies in: located once per folder (one git call per folder,
    not per file) and read once per quest, from the ``Location`` found (never located again)."""

    locations: dict[Path, Location | QuestError] = field(default_factory=dict)
    quests: dict[Path, Quest] = field(default_factory=dict)

    def quest_for(self, doc: GivenFile) -> Quest:
        folder = Path(doc.display).resolve().parent
        if folder not in self.locations:
            try:
                self.locations[folder] = locate(folder)
            except QuestError as exc:
                self.locations[folder] = exc
        found = self.locations[folder]
        if isinstance(found, QuestError):
            raise found
        if found.root not in self.quests:
            self.quests[found.root] = load_quest(found)
        return self.quests[found.root]


@dataclass(slots=True)
class Validation:
    """One ``ds-gate validate`` run, step by step (``run``): the folders named stand for the
    files under them, each file is read once (a card is checked as it is read), the records
    are checked together (a review against its quest's runs), and the report is made.
    ``checkpoint``: the files are what an ordinary checkpoint stages, judged by the commit
    policy's table."""

    given: tuple[str | Path, ...]
    checkpoint: bool = False
    paths: list[str | Path] = field(default_factory=list)
    walked: list[str] = field(default_factory=list)  # a note for each folder named
    documents: list[GivenFile] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    readable: bool = True  # every file could be read
    cards: int = 0
    check_card: Callable[[Card], list[Finding]] | None = None  # built on the first card, once

    def run(self) -> tuple[DocumentsReport, bool]:
        """(report, every file could be read)."""
        self.expand()
        for given in self.paths:
            self.read(given)
        doc_findings, checked = check_documents(self.documents, QuestsByFolder().quest_for, Path.cwd())
        self.findings.extend(doc_findings)
        return self.report(checked), self.readable

    def expand(self) -> None:
        """A folder stands for the record and card files under it (``walk_documents``)."""
        for given in self.given:
            if fs.is_dir(given):  # never raises: a path too long or holding a NUL byte is read, and reported, below
                inside = walk_documents(Path(given))
                self.paths.extend(inside)
                self.walked.append(f"{counted(len(inside), 'record or card file')} found under {given}")
            else:
                self.paths.append(given)

    def read(self, given: str | Path) -> None:
        """One file: a card is checked at once, a record is kept for ``check_documents``."""
        path = Path(given)
        try:
            raw = fs.read_file(path)
        except fs.TooLarge as exc:  # a finding like any record's, not a usage error: the file is there
            self.findings.append(too_large(str(given), exc))
            return
        except (OSError, ValueError) as exc:  # missing, unreadable, not a regular file (a FIFO), a NUL byte: exit 2
            self.readable = False
            self.findings.append(
                INPUT_UNREADABLE.at(
                    str(given),
                    f"cannot read {given}: {getattr(exc, 'strerror', None) or exc}",
                    hint="name a regular file (a pipe or device is never read)"
                    if isinstance(exc, fs.NotRegular)
                    else "check the path and its permissions",
                )
            )
            return
        if path.suffix == ".md":
            if self.check_card is None:
                self.check_card = card_checker()
            card_problems = _card(raw, path, str(given), self.check_card)
            if card_problems is not None:
                self.cards += 1
                self.findings.extend(card_problems)
            return
        self.documents.append(GivenFile(str(given), raw, path.resolve().parent.name))

    def report(self, checked: int) -> DocumentsReport:
        """Sorted findings, the notes, and the checkpoint policy when asked for."""
        findings = sorted(self.findings, key=Finding.sort_key)
        notes = [
            *self.walked,
            f"{counted(checked, 'run or decision record')} and {counted(self.cards, 'memory card')} "
            f"of {counted(len(self.paths), 'file')} were validated",
        ]
        if self.checkpoint:
            findings, demoted = apply_policy(findings, CHECKPOINT)
            notes.extend([demoted_note(demoted)] if demoted else [])
        return DocumentsReport(
            command="validate", ok=not any(f.severity == ERROR for f in findings), findings=findings, notes=notes
        )


def validate_files(paths: Iterable[str | Path], *, checkpoint: bool = False) -> tuple[DocumentsReport, bool]:
    """The ``ds-gate validate`` core: (report, every file could be read). ``checkpoint``: the
    files are what an ordinary checkpoint stages, judged by the commit policy's table. A
    folder stands for the record and card files under it (``walk_documents``)."""
    return Validation(tuple(paths), checkpoint=checkpoint).run()
