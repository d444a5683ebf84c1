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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ds_gate.engine.loader import load_quest
from ds_gate.kernel import fs
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
from ds_gate.sources.location import locate
from ds_gate.sources.memory import parse_card
from ds_gate.sources.problems import INPUT_UNREADABLE, too_large
from ds_gate.sources.records import parse_json_object

if TYPE_CHECKING:
    from ds_gate.rules.coverage import RunIndex


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
        if review is not None and review.is_review and review.reviewed_run_ids:
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


def validate_files(paths: Iterable[str | Path], *, checkpoint: bool = False) -> tuple[DocumentsReport, bool]:
    """The ``ds-gate validate`` core: (report, every file could be read). ``checkpoint``: the
    files are what an ordinary checkpoint stages, judged by the commit policy's table. A
    folder stands for the record and card files under it (``walk_documents``)."""
    paths_list: list[str | Path] = []
    walked: list[str] = []
    for given in paths:
        if Path(given).is_dir():
            inside = walk_documents(Path(given))
            paths_list.extend(inside)
            walked.append(f"{len(inside)} record or card files found under {given}")
        else:
            paths_list.append(given)

    documents: list[GivenFile] = []
    findings: list[Finding] = []
    readable = True
    cards = 0
    check_card: Callable[[Card], list[Finding]] | None = None  # built on the first card, once
    for given in paths_list:
        path = Path(given)
        try:
            raw = fs.read_file(path)
        except fs.TooLarge as exc:  # a finding like any record's, not a usage error: the file is there
            findings.append(too_large(str(given), exc))
            continue
        except OSError as exc:  # missing, unreadable, or not a regular file (a FIFO, /dev/zero): exit 2
            readable = False
            findings.append(
                INPUT_UNREADABLE.at(
                    str(given),
                    f"cannot read {given}: {exc.strerror or exc}",
                    hint="name a regular file (a pipe or device is never read)" if isinstance(exc, fs.NotRegular)
                    else "check the path and its permissions",
                )
            )
            continue
        if path.suffix == ".md":
            if check_card is None:
                check_card = card_checker()
            card_problems = _card(raw, path, str(given), check_card)
            if card_problems is not None:
                cards += 1
                findings.extend(card_problems)
            continue
        documents.append(GivenFile(str(given), raw, path.resolve().parent.name))

    quests: dict[Path, Quest] = {}
    roots: dict[Path, Path | QuestError] = {}  # folder -> quest root: one git call per folder, not per file

    def quest_for(doc: GivenFile) -> Quest:
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

    doc_findings, checked = check_documents(documents, quest_for, Path.cwd())
    findings.extend(doc_findings)
    findings.sort(key=Finding.sort_key)
    notes = [*walked, f"{checked} run or decision records and {cards} memory cards of {len(paths_list)} files were validated"]
    if checkpoint:
        findings, demoted = apply_policy(findings, CHECKPOINT)
        notes.extend([demoted_note(demoted)] if demoted else [])
    report = DocumentsReport(command="validate", ok=not any(f.severity == ERROR for f in findings), findings=findings, notes=notes)
    return report, readable
