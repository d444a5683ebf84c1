"""Where each rule's finding lands, one row per built-in rule that in-memory data (or a
scratch folder) can produce; the rules that need a real repository are in
``test_repository_rules``.

A finding is only useful if a reader can fix it without searching: the right rule, the
severity the rules table promises, the file, the JSON pointer and line of what is wrong,
and ``subject`` (what waivers match on). So each row's broken input must give exactly one
finding of its rule, placed as the row says, and a nearly identical whole input must give
none: a rule that fires on everything, fires twice, or points at the wrong line fails here.
Rows are table data; the other unit modules test each rule's behaviour in depth.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from test_repository_rules import FAILS as REPOSITORY_RULES

from ds_gate.config.baselines import quest_baselines, trusted_baselines
from ds_gate.config.quest import Defaults, QuestConfig
from ds_gate.config.settings import Trusted
from ds_gate.config.waiver_file import WAIVER_INVALID, parse_waivers
from ds_gate.config.waivers import apply_waivers
from ds_gate.engine.baseline import apply_baselines
from ds_gate.engine.collector import Collector
from ds_gate.engine.documents import GivenFile, check_documents, validate_files
from ds_gate.engine.quest_memory import quest_memory
from ds_gate.kernel.fs import max_file_bytes
from ds_gate.model.findings import ERROR, INFO, WARNING, Finding
from ds_gate.model.records import Card, Quest, Workspace
from ds_gate.model.reports import SCOPES
from ds_gate.rules.cards import (
    CardIndex,
    card_findings,
    quest_scope_findings,
    review_findings,
)
from ds_gate.rules.coverage import COVERAGE_PENDING_RUN, coverage, pending_finding
from ds_gate.rules.lineage import QuestRuns, chain_findings
from ds_gate.rules.neighbours import TagIndex, neighbour_findings
from ds_gate.rules.patch import validate_cross_quest_patch
from ds_gate.rules.records import check_record
from ds_gate.rules.registry import builtin_rules
from ds_gate.sources.folders import FolderReader
from ds_gate.sources.location import Location
from ds_gate.sources.memory import parse_card, read_cards
from ds_gate.sources.problems import GIT_SYMLINK_IN_TREE
from ds_gate.sources.quest_yaml import read_quest_yaml, toggle_finding
from ds_gate.sources.records import parse_json_object, read_index, read_records
from ds_gate.sources.registered import GONE, Registration
from ds_gate.sources.shared_memory import Neighbourhood
from ds_gate.sources.workspaces import discover_workspaces

from rulecases import (
    ROOT,
    RUN_ID,
    MemoryReader,
    decision,
    document,
    quest,
    raw_of,
    review_data,
    run,
)

Findings = Callable[[Path], list[Finding]]  # given a fresh empty folder of its own


@dataclass(frozen=True, slots=True)
class Where:
    """Where a finding must land. ``{tmp}`` in ``path`` is the row's folder; a ``range`` of
    lines accepts any line of it (a span the reader is led to)."""

    path: str | None
    pointer: str = ""
    line: int | range | None = None
    severity: str = ERROR
    subject: str | None = None


@dataclass(frozen=True, slots=True)
class Case:
    rule: str
    name: str
    fires: Findings
    passes: Findings
    where: Where
    keeps: tuple[str, ...] = ()  # the findings the whole input still has (a waived one, say)


def line_in(text: str | bytes, needle: str) -> int:
    """The 1-based line of the only line holding ``needle``: lines are read off the input."""
    lines = (text.decode() if isinstance(text, bytes) else text).splitlines()
    hits = [number for number, line in enumerate(lines, start=1) if needle in line]
    assert len(hits) == 1, f"{needle!r} is on lines {hits}"
    return hits[0]


# ---------------------------------------------------------------- records

RUN = {
    "kind": "run",
    "artifact_id": "run-1",
    "run_id": "main-001",
    "run_kind": "main_experiment",
    "status": "completed",
}
DECISION = {
    "kind": "decision",
    "artifact_id": "decision-2",
    "verdict": "good",
    "action": "launch_experiment",
    "reason": "go",
}
RUN_FILE, DECISION_FILE, REVIEW_FILE = (
    "artifacts/runs/run-1.json",
    "artifacts/decisions/decision-2.json",
    "artifacts/decisions/decision-1.json",
)


def record(data: dict[str, Any], display: str) -> Findings:
    return lambda _: check_record(document(data, display=display))


def entry(**changes: str) -> list[dict[str, str]]:
    """A one-card ``cards_written``, as a review writes it."""
    return [{"card_id": "knowledge-1", "scope": "global", "action": "new", "target_run_id": RUN_ID, **changes}]


NO_CARD = review_data(cards_written=[], reason_if_empty="")
NUMBER_REASON = review_data(cards_written=[], reason_if_empty=3)
OFF_TARGET = review_data(cards_written=entry(target_run_id="run-00000000"))
NO_CARD_ID = review_data(cards_written=entry(card_id=""))
PLACEHOLDER = review_data(cards_written=[], reason_if_empty="<FILL: why no lesson is worth a card>")
MISSPELT_ACTION = dict(DECISION, action="launch_experiments")
KIND_NUMBER = dict(RUN, run_kind=3)
VERDICT_NUMBER = dict(DECISION, verdict=3)
EMPTY_REASON = dict(DECISION, reason=[])  # main refuses a falsy reason; a list of words would pass there

RECORDS = [
    Case(
        "run.schema",
        "a run_kind that is a number",
        record(KIND_NUMBER, RUN_FILE),
        record(RUN, RUN_FILE),
        Where(RUN_FILE, "/run_kind", line_in(raw_of(KIND_NUMBER), '"run_kind"')),
    ),
    Case(
        "decision.schema",
        "a verdict that is a number",
        record(VERDICT_NUMBER, DECISION_FILE),
        record(DECISION, DECISION_FILE),
        Where(DECISION_FILE, "/verdict", line_in(raw_of(VERDICT_NUMBER), '"verdict"')),
    ),
    Case(
        "review.schema",
        "an empty reason_if_empty",
        record(NO_CARD, REVIEW_FILE),
        record(dict(NO_CARD, reason_if_empty="nothing reusable"), REVIEW_FILE),
        Where(REVIEW_FILE, "/reason_if_empty", line_in(raw_of(NO_CARD), '"reason_if_empty"')),
    ),
    Case(
        "review.target-not-reviewed",
        "a card for a run not reviewed",
        record(OFF_TARGET, REVIEW_FILE),
        record(review_data(), REVIEW_FILE),
        Where(REVIEW_FILE, "/cards_written/0/target_run_id", line_in(raw_of(OFF_TARGET), '"run-00000000"')),
    ),
    Case(
        "review.card-id-missing",
        "an empty card_id",
        record(NO_CARD_ID, REVIEW_FILE),
        record(review_data(), REVIEW_FILE),
        Where(REVIEW_FILE, "/cards_written/0/card_id", line_in(raw_of(NO_CARD_ID), '"card_id"')),
    ),
    Case(
        "review.placeholder",
        "a draft's placeholder left in",
        record(PLACEHOLDER, REVIEW_FILE),
        record(dict(PLACEHOLDER, reason_if_empty="a smoke run"), REVIEW_FILE),
        Where(REVIEW_FILE, "/reason_if_empty", line_in(raw_of(PLACEHOLDER), '"reason_if_empty"')),
    ),
    Case(
        "review.reason-not-text",
        "a reason_if_empty that is a number",
        record(NUMBER_REASON, REVIEW_FILE),
        record(dict(NUMBER_REASON, reason_if_empty="3"), REVIEW_FILE),
        Where(REVIEW_FILE, "/reason_if_empty", line_in(raw_of(NUMBER_REASON), '"reason_if_empty"'), WARNING),
    ),
    Case(
        "artifact.refused-by-main",
        "a reason that is an empty list",
        record(EMPTY_REASON, DECISION_FILE),
        record(DECISION, DECISION_FILE),
        Where(DECISION_FILE, "/reason", line_in(raw_of(EMPTY_REASON), '"reason"')),
    ),
    Case(
        "decision.unknown-action",
        "a misspelt action",
        record(MISSPELT_ACTION, DECISION_FILE),
        record(DECISION, DECISION_FILE),
        Where(DECISION_FILE, "/action", line_in(raw_of(MISSPELT_ACTION), '"action"')),
    ),
]

# ---------------------------------------------------------------- reading


TIP = "refs/heads/idea:artifacts/"


def loaded(records: dict[str, bytes | OSError], index: bytes | None = None) -> Findings:
    """What the loader's collector reports after reading one reader and its index."""

    def run_it(_: Path) -> list[Finding]:
        collector = Collector(ROOT, [Workspace(ROOT, ".")])
        collector.read(MemoryReader(records, index, branch="idea"))
        collector.resolve_index()
        return collector.findings

    return run_it


def parsed(raw: bytes) -> Findings:
    def run_it(_: Path) -> list[Finding]:
        problem = parse_json_object(raw, RUN_FILE)[1]
        return [problem] if problem else []

    return run_it


def read(records: dict[str, bytes | OSError]) -> Findings:
    return lambda _: [f.problem for f in read_records(MemoryReader(records, branch="idea"), ()) if f.problem]


def indexed(index: bytes) -> Findings:
    return lambda _: [
        item for item in read_index(MemoryReader({}, index, branch="idea"), None) if isinstance(item, Finding)
    ]


def index_of(*ids: str) -> bytes:
    return b"".join(json.dumps({"artifact_id": i, "kind": "run"}).encode() + b"\n" for i in ids)


def quest_yaml(text: str | None) -> Findings:
    def run_it(folder: Path) -> list[Finding]:
        if text is not None:
            (folder / "quest.yaml").write_text(text)
        return read_quest_yaml(folder)[1]

    return run_it


def workspaces(registered: Callable[[Path], list[Path]], made: Callable[[Path], list[Path]]) -> Findings:
    """``discover_workspaces`` of a quest at ``<folder>/quest`` whose git registers the
    ``registered`` worktrees, of which the ``made`` folders exist."""

    def run_it(folder: Path) -> list[Finding]:
        root = (folder / "quest").resolve()
        for path in [root, *made(root)]:
            path.mkdir(parents=True, exist_ok=True)
        loc = Location(
            root=root,
            top=root,
            is_git=True,
            registered=[  # as ``sources.registered`` finds a folder that is gone
                Registration(p, "idea/a", "1" * 40, unlike=None if p.is_dir() else GONE, ref="refs/heads/idea/a")
                for p in registered(root)
            ],
        )
        return discover_workspaces(loc)[1]

    return run_it


def research_state(text: str) -> Findings:
    def run_it(folder: Path) -> list[Finding]:
        (folder / ".ds" / "worktrees" / "idea-a").mkdir(parents=True)
        (folder / ".ds" / "research_state.json").write_text(text)
        return discover_workspaces(Location(root=folder, top=folder, is_git=False))[1]

    return run_it


def linked_artifacts(inside: bool) -> Findings:
    """A quest whose ``artifacts`` is a symbolic link, into the quest or out of it."""

    def run_it(folder: Path) -> list[Finding]:
        root = folder / "quest"
        target = root / ".ds" / "shared" if inside else folder / "elsewhere"
        (target / "runs").mkdir(parents=True)
        (target / "runs" / "run-1.json").write_bytes(raw_of(RUN))
        root.mkdir(exist_ok=True)
        os.symlink(target, root / "artifacts")
        reader = FolderReader(Workspace(root, "."), root)
        assert reader.record_names(()) == (["runs/run-1.json"] if inside else [])  # followed only inside
        return reader.findings

    return run_it


def linked_card(inside: bool) -> Findings:
    """A quest card that is a symbolic link to a card file in its memory folder or out of it (into the
    quest's own notes: a card is read only from its memory folder)."""

    def run_it(folder: Path) -> list[Finding]:
        root = folder / "quest"
        (root / "memory" / "knowledge").mkdir(parents=True)
        target = root / "memory" / "archive" / "lesson.md" if inside else root / "notes" / "lesson.md"
        target.parent.mkdir(parents=True)
        target.write_text("---\nid: knowledge-1\ntitle: t\n---\nbody\n")
        os.symlink(target, root / "memory" / "knowledge" / "lesson.md")
        return read_cards(root / "memory", scope="quest", base=root)[1]

    return run_it


def validated(write: bool) -> Findings:
    def run_it(folder: Path) -> list[Finding]:
        if write:
            (folder / "run-1.json").write_bytes(raw_of(RUN))
        return validate_files([folder / "run-1.json"])[0].findings

    return run_it


def oversized(big: bool) -> Findings:
    """A record one byte over the size limit (sparse: it costs no disk, and is never read)."""

    def run_it(folder: Path) -> list[Finding]:
        path = folder / "run-1.json"
        path.write_bytes(raw_of(RUN))
        if big:
            with path.open("r+b") as out:
                out.truncate(max_file_bytes() + 1)
        return validate_files([path])[0].findings

    return run_it


REVIEW = review_data(cards_written=[], reason_if_empty="nothing")


def given_review(quest_of: Quest | None) -> Findings:
    return lambda _: check_documents([GivenFile("review.json", raw_of(REVIEW), "decisions")], lambda doc: quest_of)[0]


INDEX_LINE = b'{"artifact_id": "run-1", "kind": "run"}\n'
UNFINISHED = INDEX_LINE + b'{"artifact_id": "run-2", "kind": "ru'
MISNAMED = raw_of(RUN)
UNKNOWN_KIND = raw_of(dict(RUN, kind="runs"))

READING = [
    Case(
        "artifact.invalid-json",
        "an unquoted string",
        parsed(b'{\n  "kind": "run",\n  "status": completed\n}\n'),
        parsed(b'{\n  "kind": "run",\n  "status": "completed"\n}\n'),
        Where(RUN_FILE, line=3),
    ),
    Case(
        "artifact.too-deep",
        "a value nested past any stack",
        parsed(b'{"kind": "run", "run_kind": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        parsed(b'{"kind": "run", "run_kind": [[]]}'),
        Where(RUN_FILE),
    ),
    Case(
        "artifact.not-object",
        "a list around the record",
        parsed(b'[\n  {"kind": "run"}\n]\n'),
        parsed(b'{"kind": "run"}\n'),
        Where(RUN_FILE, line=1),
    ),
    Case(
        "artifact.unreadable",
        "a record that cannot be opened",
        read({"runs/run-1.json": PermissionError(13, "Permission denied")}),
        read({"runs/run-1.json": raw_of(RUN)}),
        Where(TIP + "runs/run-1.json"),
    ),
    Case(
        "artifact.unknown-kind",
        "a kind spelt as its folder",
        loaded({"runs/run-1.json": UNKNOWN_KIND}),
        loaded({"runs/run-1.json": raw_of(RUN)}),
        Where(TIP + "runs/run-1.json", "/kind", line_in(UNKNOWN_KIND, '"kind"')),
    ),
    Case(
        "artifact.id-mismatch",
        "a record under another file name",
        loaded({"runs/run-9.json": MISNAMED}),
        loaded({"runs/run-1.json": MISNAMED}),
        Where(TIP + "runs/run-9.json", "/artifact_id", line_in(MISNAMED, '"artifact_id"'), WARNING),
    ),
    Case(
        "index.invalid-line",
        "an unquoted key",
        indexed(INDEX_LINE + b'{"artifact_id": "run-2", kind: "run"}\n'),
        indexed(INDEX_LINE + b'{"artifact_id": "run-2", "kind": "run"}\n'),
        Where(TIP + "_index.jsonl", line=2, severity=WARNING),
    ),
    Case(
        "index.partial-line",
        "a last line being written",
        indexed(UNFINISHED),
        indexed(UNFINISHED + b'n"}'),  # complete, if still without its newline
        Where(TIP + "_index.jsonl", line=2, severity=WARNING),
    ),
    Case(
        "index.missing-record",
        "an indexed run without its file",
        loaded({"runs/run-1.json": raw_of(RUN)}, index_of("run-1", "run-2")),
        loaded(
            {"runs/run-1.json": raw_of(RUN), "runs/run-2.json": raw_of(dict(RUN, artifact_id="run-2"))},
            index_of("run-1", "run-2"),
        ),
        Where(TIP + "_index.jsonl", line=2, severity=WARNING),
    ),
    Case(
        "quest.no-quest-yaml",
        "no quest.yaml",
        quest_yaml(None),
        quest_yaml("quest_id: '001'\n"),
        Where("quest.yaml", severity=WARNING),
    ),
    Case(
        "quest.yaml-invalid",
        "an unquoted colon",
        quest_yaml("quest_id: '001'\nstatus: active: now\n"),
        quest_yaml("quest_id: '001'\nstatus: 'active: now'\n"),
        Where("quest.yaml", line=2, severity=WARNING),
    ),
    Case(
        "quest.toggle-unrecognised",
        "a mode that means on",
        lambda _: [toggle_finding("recall_priors", {"mode": "enabled"})],
        lambda _: [f for f in [toggle_finding("recall_priors", {"mode": "On"})] if f],
        Where("quest.yaml", "/startup_contract/recall_priors", severity=WARNING),
    ),
    Case(
        "quest.research-state-invalid",
        "an unfinished research_state.json",
        research_state('{"research_head_'),
        research_state('{"research_head_worktree_root": null}'),
        Where(".ds/research_state.json", severity=INFO),
    ),
    Case(
        "workspace.outside-quest",
        "a worktree next to the quest",
        workspaces(lambda root: [root.parent / "idea-a"], lambda root: [root.parent / "idea-a"]),
        workspaces(
            lambda root: [root / ".ds" / "worktrees" / "idea-a"], lambda root: [root / ".ds" / "worktrees" / "idea-a"]
        ),
        Where(None, severity=WARNING),
    ),
    Case(
        "workspace.missing",
        "a registered worktree deleted",
        workspaces(lambda root: [root / ".ds" / "worktrees" / "idea-a"], lambda root: []),
        workspaces(
            lambda root: [root / ".ds" / "worktrees" / "idea-a"], lambda root: [root / ".ds" / "worktrees" / "idea-a"]
        ),
        Where(None, severity=INFO),
    ),
    Case(
        "path.symlink-outside-quest",
        "artifacts linked out of the quest",
        linked_artifacts(False),
        linked_artifacts(True),
        Where("artifacts", severity=WARNING),
    ),
    Case(
        "path.symlink-outside-quest",
        "a card linked out of its memory folder",
        linked_card(False),
        linked_card(True),
        Where("memory/knowledge/lesson.md", severity=WARNING),
    ),
    Case(
        "input.unreadable",
        "a file named that does not exist",
        validated(False),
        validated(True),
        Where("{tmp}/run-1.json"),
    ),
    Case(
        "input.too-large",
        "a record one byte over the limit",
        oversized(True),
        oversized(False),
        Where("{tmp}/run-1.json"),
    ),
    Case(
        "review.runs-not-checked",
        "a review validated outside a quest",
        given_review(None),
        given_review(quest([run()])),
        Where("review.json", severity=INFO),
    ),
]

# ---------------------------------------------------------------- coverage


def gate(reviews: list[dict[str, Any]], indexed: frozenset[str] | None = None) -> Findings:
    """Coverage of a quest with one completed run and the given reviews, as the gate reports it
    (``indexed``: the decisions its index lines name, when known)."""

    def run_it(_: Path) -> list[Finding]:
        cov = coverage(
            dataclasses.replace(quest([run()], [decision(r) for r in reviews]), indexed_decision_ids=indexed)
        )
        return cov.findings + [pending_finding(r, cov.listed_by_invalid.get(r.artifact_id, [])) for r in cov.pending]

    return run_it


TYPO = review_data(reviewed_run_ids=["run-51c9ad0"], cards_written=[], reason_if_empty="nothing")

COVERAGE = [
    Case(
        "coverage.pending-run",
        "a completed run never reviewed",
        gate([]),
        gate([review_data()]),
        Where(f"artifacts/runs/{RUN_ID}.json", subject=RUN_ID),
    ),
    Case(
        "review.unknown-run",
        "a reviewed id one character short",
        gate([TYPO]),
        gate([dict(TYPO, reviewed_run_ids=[RUN_ID])]),
        Where(REVIEW_FILE, "/reviewed_run_ids/0", line_in(raw_of(TYPO), '"run-51c9ad0"')),
    ),
    Case(
        "review.unindexed",
        "an RFC review no index line names",
        gate([review_data()], frozenset()),
        gate([review_data()], frozenset({"decision-1"})),
        Where(REVIEW_FILE, subject="decision-1"),
    ),
]

# ---------------------------------------------------------------- cards, lineage, patches

# A lesson's card, line by line: rows change a line by its number, so the line they expect
# is the line they changed.
LESSON = {
    1: "---",
    2: "id: knowledge-1",
    3: "title: Router temperature",
    4: "quest_id: '001'",
    5: "claim: Lower is steadier.",
    6: "confidence: 0.6",
    7: "lineage:",
    8: "  - quest: '001'",
    9: f"    run: {RUN_ID}",
    10: "  - quest: '001'",
    11: "    run: main-002",
    12: "---",
    13: "Context: the router.",
}
CARD_FILE = "memory/knowledge/lesson.md"


def lesson(scope: str = "global", **lines: str) -> Card:
    """The lesson with some lines replaced (``l6="confidence: 3"``), parsed as a card."""
    text = "\n".join(lines.get(f"l{n}", line) for n, line in LESSON.items()) + "\n"
    card = parse_card(
        text.encode(), path=Path("/nowhere") / CARD_FILE, display=CARD_FILE, scope=scope, kind="knowledge"
    )
    assert card is not None
    return card


def checked(scope: str = "global", **lines: str) -> Findings:
    return lambda _: card_findings(lesson(scope, **lines))


RUNS = QuestRuns(quest([run(), run("run-2", "main-002")]))


def runs_of(quest_id: str) -> QuestRuns | str:
    return RUNS if quest_id in ("001", "1") else f"no quest {quest_id} in <home>/quests"


def chain(**lines: str) -> Findings:
    return lambda _: chain_findings(lesson(**lines), runs_of)


def patch(patcher: str, **lines: str) -> Findings:
    return lambda _: validate_cross_quest_patch(lesson(), lesson(**lines), patcher)


def discipline(review: dict[str, Any], global_cards: list[Card]) -> Findings:
    return lambda _: (
        review_findings([decision(review)], CardIndex([]), CardIndex(global_cards), "<home>/memory").findings
    )


def home_check(with_home: bool) -> Findings:
    """A quest whose valid review names a global card, checked with or without a home."""

    def run_it(folder: Path) -> list[Finding]:
        reviewed = quest([run()], [decision(review_data())])
        reviewed.root = folder / "quest"
        if with_home:
            (folder / "home" / "memory" / "knowledge").mkdir(parents=True)
            (folder / "home" / "memory" / "knowledge" / "k.md").write_text(
                "---\nid: knowledge-1\ntitle: t\n---\nbody\n"
            )
        return quest_memory(reviewed, coverage(reviewed).reviews, folder / "home").findings

    return run_it


TWIN = review_data(
    cards_written=entry(),
    neighbor_decisions=[
        {
            "candidate_card_id": "knowledge-0",
            "decision": "neighbor_but_separate",
            "reason": "another mechanism",
            "target_run_id": RUN_ID,
        }
    ],
)
OLDER = parse_card(
    b"---\nid: knowledge-0\ntitle: router  TEMPERATURE\n---\nOther words.\n",
    path=Path("/nowhere/o.md"),
    display="memory/knowledge/o.md",
    scope="global",
    kind="knowledge",
)
assert OLDER is not None


def neighbourly(review: dict[str, Any], global_cards: list[Card]) -> Findings:
    """The neighbour rules over one review, in a home of no config (independent) holding ``global_cards``."""

    def run_it(folder: Path) -> list[Finding]:
        place = Neighbourhood(folder, True, folder / "quests" / "001", "001", [], global_cards)
        index, tables = CardIndex(global_cards), [TagIndex(global_cards)]
        return neighbour_findings([decision(review)], CardIndex([]), index, place, lambda: tables).findings

    return run_it


def said(candidate: str, decided: str = "neighbor_but_separate", **more: Any) -> dict[str, Any]:
    """A review writing knowledge-1 with one neighbour decision."""
    weighed = {"candidate_card_id": candidate, "decision": decided, "reason": "weighed", "target_run_id": RUN_ID}
    return review_data(neighbor_decisions=[weighed], **more)


CLAIM = "claim: lower router temperature stabilises training of the sparse mixture model on long runs"
NEAR = parse_card(
    f"---\nid: knowledge-0\ntitle: Cooler routers\ntags: ['topic:router']\n{CLAIM.replace('lower', 'smaller')}\n---\nNo.\n".encode(),
    path=Path("/nowhere/n.md"),
    display="memory/knowledge/n.md",
    scope="global",
    kind="knowledge",
)
assert NEAR is not None
TAGGED = {"l5": CLAIM, "l6": "tags: ['Topic: Router']"}
PATCHED = entry() + [{"card_id": "knowledge-0", "scope": "global", "action": "patch", "target_run_id": RUN_ID}]

CARDS = [
    Case(
        "card.frontmatter-invalid",
        "an unquoted colon in the title",
        lambda _: lesson(l3="title: Router: temperature").findings,
        lambda _: lesson(l3="title: 'Router: temperature'").findings,
        Where(CARD_FILE, line=3),
    ),
    Case(
        "card.tags-over-limit",
        "tags nested 100 levels deep",
        lambda _: lesson(l4="tags: '" + "[" * 100 + "]" * 100 + "'").findings,
        lambda _: lesson(l4="tags: '[\"topic:a\"]'").findings,
        Where(CARD_FILE, "/tags", 4, severity=WARNING),
    ),
    Case(
        "card.schema",
        "a confidence above 1",
        checked(l6="confidence: 3"),
        checked(l6="confidence: 1"),
        Where(CARD_FILE, "/confidence", 6, subject="knowledge-1"),
    ),
    Case(
        "card.experience-schema",
        "an empty claim",
        checked(l5="claim: ''"),
        checked(l5="claim: 'Lower.'"),
        Where(CARD_FILE, "/claim", 5, subject="knowledge-1"),
    ),
    Case(
        "card.quest-scope-lesson",
        "a lesson never promoted",
        lambda _: quest_scope_findings([lesson("quest")], set()),
        lambda _: quest_scope_findings([lesson("quest")], {"knowledge-1"}),
        Where(CARD_FILE, severity=WARNING, subject="knowledge-1"),
    ),
    Case(
        "card.home-missing",
        "a global card and no home",
        home_check(False),
        home_check(True),
        Where(None, severity=WARNING),
    ),
    Case(
        "review.missing-card",
        "a global card that is not there",
        discipline(review_data(), []),
        discipline(review_data(), [lesson()]),
        Where(REVIEW_FILE, "/cards_written/0/card_id", line_in(raw_of(review_data()), '"card_id"')),
    ),
    Case(
        "review.duplicate-card",
        "a new card titled as an older one",
        discipline(review_data(), [lesson(), OLDER]),
        discipline(TWIN, [lesson(), OLDER]),
        Where(REVIEW_FILE, "/cards_written/0", line_in(raw_of(review_data()), '"cards_written"') + 1),
    ),
    Case(
        "review.neighbor-missing-card",
        "a neighbour decision naming no card",
        neighbourly(said("knowledge-9"), [lesson(), OLDER]),
        neighbourly(said("knowledge-0"), [lesson(), OLDER]),
        Where(REVIEW_FILE, "/neighbor_decisions/0/candidate_card_id", line_in(raw_of(said("x")), "candidate_card_id")),
    ),
    Case(
        "review.neighbor-patch-unwritten",
        "a patch decision with no patch entry",
        neighbourly(said("knowledge-0", "patch"), [lesson(), OLDER]),
        neighbourly(said("knowledge-0", "patch", cards_written=PATCHED), [lesson(), OLDER]),
        Where(REVIEW_FILE, "/neighbor_decisions/0/decision", line_in(raw_of(said("x", "patch")), '"patch"')),
    ),
    Case(
        "review.near-duplicate-card",
        "a new card with an older card's tags and nearly its claim",
        neighbourly(review_data(), [lesson(**TAGGED), NEAR]),
        neighbourly(said("knowledge-0"), [lesson(**TAGGED), NEAR]),
        Where(REVIEW_FILE, "/cards_written/0", line_in(raw_of(review_data()), '"cards_written"') + 1),
    ),
    Case(
        "lineage.not-origin",
        "a first entry of another quest",
        chain(l4="quest_id: '002'"),
        chain(l4="quest_id: '1'"),
        Where(CARD_FILE, "/lineage/0/quest", 8, subject="knowledge-1"),
    ),
    Case(
        "lineage.origin-unknown",
        "no quest_id",
        chain(l4="tags: [router]"),
        chain(l4="promoted_from: {quest_root: /home/ds/quests/001}"),
        Where(CARD_FILE, "/lineage/0/quest", 8, WARNING, subject="knowledge-1"),
    ),
    Case(
        "lineage.unknown-quest",
        "an entry of a quest not in the home",
        chain(l10="  - quest: '404'"),
        chain(l10="  - quest: '1'"),
        Where(CARD_FILE, "/lineage/1/quest", 10, subject="knowledge-1"),
    ),
    Case(
        "lineage.unknown-run",
        "a run one character short",
        chain(l11="    run: main-02"),
        chain(l11="    run: run-2"),
        Where(CARD_FILE, "/lineage/1/run", 11, subject="knowledge-1"),
    ),
    Case(
        "lineage.repeated-entry",
        "one run under its two names",
        chain(l11="    run: main-001"),
        chain(l11="    run: main-002"),
        Where(CARD_FILE, "/lineage/1", 10, subject="knowledge-1"),
    ),
    Case(
        "patch.claim-changed",
        "another quest's new claim",
        patch("002", l5="claim: Higher is steadier."),
        patch("002", l5="claim: '  Lower is steadier. '"),
        Where(CARD_FILE, "/claim", 5, subject="knowledge-1"),
    ),
    Case(
        "patch.confidence-raised",
        "another quest's higher confidence",
        patch("002", l6="confidence: 0.9"),
        patch("001", l6="confidence: 0.9"),
        Where(CARD_FILE, "/confidence", 6, subject="knowledge-1"),
    ),
    Case(
        "patch.lineage-rewritten",
        "another quest's rewritten entry",
        patch("002", l11="    run: main-003"),
        patch("002", l11="    run: main-002\n  - quest: '002'\n    run: main-003"),
        Where(CARD_FILE, "/lineage/1", 10, subject="knowledge-1"),
    ),
]

# ---------------------------------------------------------------- waivers

WAIVER = "waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: a smoke run\n"
EXPIRING = WAIVER + "    expires: 2026-11-22\n"
SMOKE = COVERAGE_PENDING_RUN.at("artifacts/runs/run-1.json", "completed run run-1 is not covered", subject="run-1")


def waived(
    text: str,
    findings: list[Finding],
    today: date = date(2026, 11, 23),
    accepted_by: str | None = "--accept-quest-waivers",
) -> Findings:
    """The quest's waivers applied, accepted by a trusted setting (``accepted_by=None``: proposals)."""

    def run_it(_: Path) -> list[Finding]:
        waivers, problems = parse_waivers(text, accepted_by=accepted_by)
        return problems + apply_waivers(findings, waivers, today)

    return run_it


LINK_WAIVER = "waivers:\n  - rule: git.symlink-in-tree\n    path: artifacts/runs\n    reason: moved\n"
LINKED = GIT_SYMLINK_IN_TREE.at("refs/heads/main:artifacts/runs", "artifacts/runs is a symbolic link in git")


WAIVERS = [
    Case(
        "waiver.invalid",
        "an empty reason",
        waived(WAIVER.replace("a smoke run", "''"), [SMOKE]),
        waived(WAIVER, [SMOKE]),
        Where(".ds-gate.yaml", "/waivers/0/reason", 4),
        keeps=("coverage.pending-run",),
    ),
    Case(
        "waiver.expired",
        "a day past its expiry",
        waived(EXPIRING, [SMOKE]),
        waived(EXPIRING, [SMOKE], date(2026, 11, 22)),  # it holds through that day
        # somewhere in the waiver (lines 2-5): today its line is the entry's first, not the expires line
        Where(".ds-gate.yaml", "/waivers/0/expires", range(2, 6)),
        keeps=("coverage.pending-run",),
    ),
    Case(
        "waiver.unused",
        "nothing left to waive",
        waived(WAIVER, []),
        waived(WAIVER, [SMOKE]),
        Where(".ds-gate.yaml", "/waivers/0", 2, WARNING),
        keeps=("coverage.pending-run",),
    ),
    Case(
        "waiver.proposed",
        "a quest waiver nobody accepted",
        waived(WAIVER, [SMOKE], accepted_by=None),
        waived(WAIVER, [SMOKE]),
        Where(".ds-gate.yaml", "/waivers/0", 2, WARNING),
        keeps=("coverage.pending-run",),
    ),
    Case(
        "waiver.unwaivable",
        "a waiver of a link in a tree",
        waived(LINK_WAIVER, [LINKED]),
        waived(WAIVER, [SMOKE]),
        Where(".ds-gate.yaml", "/waivers/0/rule", 2, WARNING),
        keeps=("coverage.pending-run",),
    ),
]

# ---------------------------------------------------------------- baselines

OLD_RUN = dataclasses.replace(run(), created_at="2026-01-01T00:00:00+00:00")
BEFORE = {"quest": str(ROOT), "before": "2026-03-01", "reason": "finished before the gate"}
AT_COMMIT = {"quest": str(ROOT), "commit": "c0ffee" * 6 + "c0ff", "reason": "finished before the gate"}
PROPOSAL = "baselines:\n  - before: '2026-03-01'\n    reason: finished before the gate\n"


def baselined(entry: dict[str, str] | None, own: str | None = None, accept: bool = False) -> Findings:
    """The baseline step (``check``) over one pending run: ``entry`` the trusted file's baseline,
    ``own`` the quest's ``.ds-gate.yaml``, ``accept`` the quest's waivers accepted."""

    def run_it(folder: Path) -> list[Finding]:
        config = folder / "trusted.yaml"
        entries = trusted_baselines([entry] if entry else [], str(config), lambda key, text: Path(text))
        mine, problems = quest_baselines(own, WAIVER_INVALID)
        settings = QuestConfig(ROOT, own is not None, Defaults({}, {}, []), (), ([], problems), tuple(mine))
        subject = quest([OLD_RUN])
        trusted = Trusted(config, "--config", baselines=tuple(entries))
        return apply_baselines(subject, coverage(subject), SCOPES["check"], trusted, settings, accept).findings

    return run_it


BASELINES = [
    Case(
        "coverage.baselined",
        "a trusted baseline's date",
        baselined(BEFORE),
        baselined(None),
        Where("{tmp}/trusted.yaml", "/baselines/0", None, INFO),
    ),
    Case(
        "baseline.proposed",
        "a quest baseline nobody accepted",
        baselined(None, PROPOSAL),
        baselined(None, PROPOSAL, accept=True),
        Where(".ds-gate.yaml", "/baselines/0", 2, WARNING),
        keeps=("coverage.baselined",),
    ),
    Case(
        "baseline.commit-unreadable",
        "a commit the quest's git does not hold",
        baselined(AT_COMMIT),
        baselined(BEFORE),
        Where("{tmp}/trusted.yaml", "/baselines/0/commit", None, WARNING),
        keeps=("coverage.baselined",),
    ),
]

CASES = RECORDS + READING + COVERAGE + CARDS + WAIVERS + BASELINES
FAILS = {case.rule for case in CASES}
PASSES = set(FAILS)
NO_HINT = {"quest.research-state-invalid"}  # an info note: nothing to fix, the head worktree is only not known
DECLARED = {rule.id: rule for rule in builtin_rules()}


def _mine(case: Case, findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule == case.rule]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.rule}: {c.name}" for c in CASES])
def test_the_broken_input_gives_one_finding_placed_where_it_is_fixed(case: Case, tmp_path: Path) -> None:
    """The rule, file, pointer, line, severity and subject a reader relies on."""
    folder = tmp_path / "case"
    folder.mkdir()
    found = _mine(case, case.fires(folder))
    assert len(found) == 1, found
    [finding] = found
    where = case.where
    path = where.path.replace("{tmp}", str(folder)) if where.path else None
    assert (finding.path, finding.pointer, finding.severity, finding.subject) == (
        path,
        where.pointer,
        where.severity,
        where.subject,
    )
    assert finding.line in where.line if isinstance(where.line, range) else finding.line == where.line
    assert finding.message and (finding.hint or case.rule in NO_HINT), "a finding says what is wrong and how to fix it"


@pytest.mark.parametrize("case", CASES, ids=[f"{c.rule}: {c.name}" for c in CASES])
def test_the_nearly_identical_whole_input_gives_none(case: Case, tmp_path: Path) -> None:
    """Only what is wrong fires: the same input with the fault mended is quiet (a waived
    finding stays, marked, and no longer fails)."""
    folder = tmp_path / "case"
    folder.mkdir()
    found = case.passes(folder)
    assert sorted(f.rule for f in found) == sorted(case.keeps) and not any(f.fails for f in found)


def test_every_rule_has_a_row_or_needs_a_real_repository() -> None:
    """A new rule must say where its findings land (or be tested on a real repository)."""
    assert set(DECLARED) - FAILS - REPOSITORY_RULES == set()
    assert set() == FAILS & REPOSITORY_RULES and set(DECLARED) >= FAILS | REPOSITORY_RULES


def test_the_rows_expect_each_rules_declared_severity() -> None:
    """These inputs are ordinary, so no finding of them is lowered from the rules table."""
    assert {(c.rule, c.where.severity) for c in CASES if c.where.severity != DECLARED[c.rule].severity} == set()
