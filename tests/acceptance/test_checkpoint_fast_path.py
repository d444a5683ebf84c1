"""Issue 17: the commit hook passes a checkpoint that stages only fine records without its
full command line (``kernel.checkpoint``), and says "pass silently" only where the full path
(``ds-gate commit-check``, in process: argparse, ``commit_check``, the reporter) passes with
no output at all.

Differential, over a corpus of staged files: each case is staged in a real worktree of a
real quest, judged by the full path in process, then committed through the real installed
hook with ``PYTHONPROFILEIMPORTTIME`` set, whose import trace tells whether the hook took
the fast path (``ds_gate.cli.main`` never imported). The hook's verdict and words must be the
full path's in every case; the fast path must pass where the full path is silent and the
records are plainly fine (else it is never taken and proves nothing), and never elsewhere.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_schemas import VALID, mutations

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.engine.documents import GivenFile, check_documents
from ds_gate.kernel.checkpoint import checkpoint_passes
from ds_gate.kernel.triage import staged_record_is_fine

from helpers import git, imported_modules

pytestmark = pytest.mark.slow  # commits through the real hook (conftest.py)

R, D, P = "artifacts/runs/", "artifacts/decisions/", "artifacts/reports/"
RUN = {"kind": "run", "artifact_id": "run-bench", "run_kind": "main_experiment", "status": "running"}
DECISION = {"kind": "decision", "artifact_id": "decision-1", "verdict": "good", "action": "continue", "reason": "go on"}


def j(data: Any) -> bytes:
    return json.dumps(data, indent=2, ensure_ascii=False).encode() + b"\n"


# ---------------------------------------------------------------- the predicate against the rules, in process


@pytest.mark.parametrize("schema", ["run", "decision", "distill_review", "distill_review_report"])
def test_a_record_is_clean_only_where_the_full_rules_find_nothing(schema: str) -> None:
    """Every single-point mutation of a valid record, in each record folder: ``kernel.triage``
    says "no finding" only where ``check_documents`` finds none (``check_record`` asks the
    triage first, so the two agree by construction there)."""
    clean = 0
    for data in (VALID[schema], *mutations(VALID[schema])):
        raw = j(data)
        for folder in ("runs", "decisions", "reports"):
            found, _ = check_documents([GivenFile(f"artifacts/{folder}/x.json", raw, folder)], lambda _doc: None)
            if staged_record_is_fine(raw, folder):
                assert found == [], (folder, data)
                clean += 1
    assert clean > 0  # a mutation of a review may be a fine decision or report that is no review
    assert not staged_record_is_fine(j(VALID[schema]), "decisions") or schema in (
        "run",
        "decision",
    )  # a review never is


# ---------------------------------------------------------------- the real hook against the full path


@dataclass(frozen=True)
class Case:
    id: str
    files: dict[str, bytes] = field(default_factory=dict)  # written below the worktree, then `git add -A`
    fast: bool | None = None  # the hook must (True) or must not (False) take the fast path
    setup: Callable[[ExampleQuest, Path], object] | None = None  # writes more, as DeepScientist does
    then: Callable[[Path], None] | None = None  # after `git add`: the work tree changes, the index does not


def rewrite(name: str, data: bytes) -> Callable[[Path], None]:
    def write(ws: Path) -> None:
        (ws / name).write_bytes(data)

    return write


def link(ws: Path) -> None:
    (ws / "outside.json").write_bytes(j(RUN))
    (ws / R).mkdir(parents=True, exist_ok=True)
    os.symlink("../../outside.json", ws / R / "run-link.json")


def linked_quest_yaml(status: str) -> Callable[[ExampleQuest, Path], None]:
    """``quest.yaml`` committed as a link to ``state/quest.yaml``; then that file (only) changes."""

    def setup(quest: ExampleQuest, ws: Path) -> None:
        (ws / "state").mkdir()
        (ws / "state" / "quest.yaml").write_text((ws / "quest.yaml").read_text())
        (ws / "quest.yaml").unlink()
        os.symlink("state/quest.yaml", ws / "quest.yaml")
        git(ws, "add", "-A")
        git(ws, "commit", "-q", "--no-verify", "-m", "link")
        (ws / "state" / "quest.yaml").write_text(f"quest_id: '001'\nstatus: {status}\n")

    return setup


CASES = [
    # fine: the fast path passes
    Case("a new run record", {R + "run-bench.json": j(RUN)}, True),
    Case("a run record as DeepScientist writes it", fast=True, setup=lambda q, ws: q.run(ws, "main-002")),
    Case(
        "a run record and a continue decision",
        fast=True,
        setup=lambda q, ws: (q.run(ws, "main-002", status="running"), q.decision(ws, "continue")),
    ),
    Case("a write decision (routing, not closure)", fast=True, setup=lambda q, ws: q.decision(ws, "write")),
    Case("a decision with every required field", {D + "decision-1.json": j(DECISION)}, True),
    Case(
        "a report that mentions distill_review but is none",
        {P + "report-1.json": j({"kind": "report", "report_type": "summary", "summary": "next: distill_review"})},
        True,
    ),
    Case(
        "a progress record in runs/",
        {R + "progress-1.json": j({"kind": "progress", "artifact_id": "progress-1"})},
        True,
    ),
    Case("a science record in runs/", {R + "claim-1.json": j({"kind": "science.claim", "claim": "x"})}, True),
    Case("a run record with a byte order mark", {R + "run-bench.json": b"\xef\xbb\xbf" + j(RUN)}, True),
    Case(
        "a run record with text beyond ASCII",
        {R + "run-bench.json": j({**RUN, "summary": "\u03c4 = 0.5 \u2713"})},
        True,
    ),
    Case("a run whose id is not its file name", {R + "run-other.json": j(RUN)}, True),
    Case("a run whose name holds a newline", {R + "run\nodd.json": j(RUN)}, True),
    Case("a run whose name is not UTF-8", {R + os.fsdecode(b"run-\xff.json"): j(RUN)}, True),
    Case(
        "duplicate keys, the last one a run",
        {R + "run-dup.json": b'{"kind": "decision", "kind": "run", "run_kind": "x"}'},
        True,
    ),
    Case(
        "a fine record staged, its work-tree copy broken since",
        {R + "run-bench.json": j(RUN)},
        True,
        then=rewrite(R + "run-bench.json", b"{broken"),
    ),
    # a finding, a doubt or a review: the full path decides and reports
    Case("a run without run_kind", {R + "run-bench.json": j({"kind": "run", "artifact_id": "run-bench"})}, False),
    Case("a blank run_kind", {R + "run-bench.json": j({**RUN, "run_kind": "  "})}, False),
    Case("a misspelt kind", {R + "run-bench.json": j({**RUN, "kind": "runs"})}, False),
    Case("a kind that is a number", {R + "run-bench.json": j({**RUN, "kind": 7})}, False),
    Case("truncated JSON", {R + "run-bench.json": j(RUN)[:30]}, False),
    Case("an array", {R + "run-bench.json": b"[1, 2]"}, False),
    Case("bytes that are not UTF-8", {R + "run-bench.json": b'{"kind": "run", "run_kind": "\xff"}'}, False),
    Case("nested 10000 deep", {R + "run-bench.json": b'{"a": ' + b"[" * 10000 + b"]" * 10000 + b"}"}, False),
    Case(
        "a 5000-digit integer",
        {R + "run-bench.json": b'{"kind": "run", "run_kind": "x", "n": ' + b"9" * 5000 + b"}"},
        False,
    ),
    Case("a decision without a reason", {D + "decision-1.json": j({**DECISION, "reason": None})}, False),
    Case("an action DeepScientist refuses", {D + "decision-1.json": j({**DECISION, "action": "finalise"})}, False),
    Case("a finalize decision", fast=False, setup=lambda q, ws: q.decision(ws, "finalize")),
    Case(
        "a quest_completion decision",
        fast=False,
        setup=lambda q, ws: q.decision(ws, "continue", decision_scope="quest_completion"),
    ),
    Case("a distill_review decision", {D + "review-1.json": j(VALID["distill_review"])}, False),
    Case(
        "a distill_review with a card lacking card_id",
        {
            D + "review-1.json": j(
                {
                    **VALID["distill_review"],
                    "cards_written": [{"scope": "global", "action": "new", "target_run_id": "run-e79fde93"}],
                }
            )
        },
        False,
    ),
    Case("a review recorded as a report", {P + "report-1.json": j(VALID["distill_review_report"])}, False),
    Case("a report naming distill_review that is not JSON", {P + "report-1.json": b"{distill_review"}, False),
    Case(
        "a broken record staged, its work-tree copy fixed since",
        {R + "run-bench.json": b"{broken"},
        False,
        then=rewrite(R + "run-bench.json", j(RUN)),
    ),
    Case("a symbolic link staged as a record", fast=False, setup=lambda q, ws: link(ws)),
    # issue 24: read by what the file means, and by its folder as DeepScientist's collector does
    Case(
        "a finalize action written as a JSON escape",
        {D + "decision-1.json": j({**DECISION, "action": "finalize"}).replace(b'"finalize"', b'"\\u0066inalize"')},
        False,
    ),
    Case(
        "a quest_completion scope with space and case",
        {D + "decision-1.json": j({**DECISION, "action": "stop", "decision_scope": " Quest_Completion "})},
        False,
    ),
    Case(
        "a finalize decision whose kind is spaced",
        {D + "decision-1.json": j({**DECISION, "kind": " decision ", "action": "finalize"})},
        False,
    ),
    Case(
        "a finalizing record in decisions/ whose kind says run",
        {D + "decision-1.json": j({**RUN, "action": "stop", "decision_scope": "quest_completion"})},
        False,
    ),
    Case(
        "a review report whose report_type is escaped",
        {
            P + "report-1.json": j(VALID["distill_review_report"]).replace(
                b'"distill_review"', b'"\\u0064istill_review"'
            )
        },
        False,
    ),
    Case("a decision filed in runs/", {R + "decision-1.json": j(DECISION)}, True),
    Case(
        "a completed run filed as a report in runs/",
        {R + "run-bench.json": j({**RUN, "kind": "report", "status": "completed"})},
        True,
    ),
    # issue 35: main's write_json writes a diverged metric as NaN / Infinity, and its reader reads them
    Case("NaN", {R + "run-bench.json": b'{"kind": "run", "run_kind": "x", "acc": NaN}'}, True),
    Case(
        "a diverged run as DeepScientist writes it",
        fast=True,
        setup=lambda q, ws: q.run(ws, "main-002", metrics_summary={"loss": float("nan"), "acc": float("-inf")}),
    ),
    Case(
        "a run_kind with surrounding whitespace",
        {R + "run-bench.json": j({**RUN, "run_kind": " main_experiment "})},
        True,
    ),
    Case(
        "quest.yaml completed through a YAML escape",
        {"quest.yaml": b'quest_id: "001"\nstatus: "\\x63ompleted"\n'},
        False,
    ),
    Case("the file a quest.yaml link leads to, completed", fast=False, setup=linked_quest_yaml("completed")),
    Case("the file a quest.yaml link leads to, still active", fast=False, setup=linked_quest_yaml("active")),
    Case(
        "a fine run beside a memory card",
        {R + "run-bench.json": j(RUN), "memory/knowledge/k.md": b"---\nid: k\n---\n"},
        False,
    ),
]


@pytest.fixture
def hooked(tmp_path: Path) -> tuple[ExampleQuest, Path]:
    """A quest (in a folder with a space) with the hook installed and one run worktree."""
    quest = ExampleQuest(tmp_path / "Deep Scientist" / "quests" / "001").create()
    assert main(["install", str(quest.root)]) == 0
    return quest, quest.worktree("run-main-001", "run/main-001")


def judged(ws: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> bool:
    """Commit what is staged in ``ws`` through the real hook; assert that its verdict and
    words are the full path's, and that a fast pass is a silent full pass. Whether the hook
    took the fast path."""
    monkeypatch.chdir(ws)
    direct = checkpoint_passes(".")
    code = main(["commit-check"])  # the full path, as `ds-gate commit-check` runs it
    full = capsys.readouterr()
    said = sorted((full.out + full.err).splitlines())
    hook = subprocess.run(
        ["git", "commit", "-q", "-m", "case"],
        cwd=ws,
        capture_output=True,
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
    )
    lines = (hook.stdout + hook.stderr).decode("utf-8", "surrogateescape").splitlines()
    imported = imported_modules("\n".join(lines))
    assert "ds_gate.kernel.checkpoint" in imported  # the hook ran, and asked the fast path
    fast = "ds_gate.cli.main" not in imported
    assert fast == direct
    assert sorted(line for line in lines if not line.startswith("import time:")) == said
    assert (hook.returncode == 0) == (code == 0), said
    if fast:
        assert code == 0 and said == []
    return fast


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_hook_passes_fast_only_what_the_full_path_passes_silently(hooked, case: Case, monkeypatch, capsys) -> None:
    quest, ws = hooked
    for name, data in case.files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_bytes(data)
    if case.setup is not None:
        case.setup(quest, ws)
    git(ws, "add", "-A")
    if case.then is not None:
        case.then(ws)
    fast = judged(ws, monkeypatch, capsys)
    if case.fast is not None:
        assert fast == case.fast


def test_a_record_over_the_size_limit_takes_the_full_path(hooked, monkeypatch, capsys) -> None:
    quest, ws = hooked
    monkeypatch.setenv("DS_GATE_MAX_FILE_MB", "0.001")  # git passes it on to the hook
    (ws / R).mkdir(parents=True, exist_ok=True)
    (ws / R / "run-bench.json").write_bytes(j({**RUN, "summary": "x" * 2000}))
    (ws / R / "run-small.json").write_bytes(j(RUN))
    git(ws, "add", "-A")
    assert not judged(ws, monkeypatch, capsys)


def test_a_commit_in_the_quest_root_is_judged_alike(hooked, monkeypatch, capsys) -> None:
    quest, ws = hooked
    quest.run(quest.root, "main-002")
    git(quest.root, "add", "-A")
    assert judged(quest.root, monkeypatch, capsys)


@pytest.mark.parametrize("config", [".ds-gate.yaml", "pyproject.toml"])
def test_a_quest_that_configures_ds_gate_takes_the_full_path(hooked, config: str, monkeypatch, capsys) -> None:
    """Its waivers and decision actions are the full path's to read: a fork's own action
    passes there, and only there."""
    quest, ws = hooked
    text = (
        "decision_actions: [controller_backoff_pending]\n"
        if config == ".ds-gate.yaml"
        else '[tool.ds-gate]\ndecision_actions = ["controller_backoff_pending"]\n'
    )
    (quest.root / config).write_text(text)
    git(quest.root, "add", config)
    git(quest.root, "commit", "-q", "--no-verify", "-m", "config")
    (ws / R).mkdir(parents=True, exist_ok=True)
    (ws / R / "run-bench.json").write_bytes(j(RUN))
    git(ws, "add", "-A")
    assert not judged(ws, monkeypatch, capsys)
    (ws / D).mkdir(parents=True, exist_ok=True)
    (ws / D / "decision-1.json").write_bytes(j({**DECISION, "action": "controller_backoff_pending"}))
    git(ws, "add", "-A")
    assert not judged(ws, monkeypatch, capsys)
    assert git(ws, "log", "-2", "--format=%s").stdout.split() == ["case", "case"]  # the fork's action is accepted


def test_a_worktree_outside_the_quest_is_refused_as_before(hooked, tmp_path, monkeypatch, capsys) -> None:
    """``locate`` refuses a workspace its quest does not hold (exit 2): the fast path must not
    let its fine records through."""
    quest, _ = hooked
    outside = tmp_path / "elsewhere"
    git(quest.root, "worktree", "add", "-q", "-b", "run/outside", str(outside))
    (outside / R).mkdir(parents=True, exist_ok=True)
    (outside / R / "run-bench.json").write_bytes(j(RUN))
    git(outside, "add", "-A")
    assert not judged(outside, monkeypatch, capsys)
    assert git(outside, "log", "-1", "--format=%s").stdout.strip() != "case"


def test_an_installed_plugin_takes_the_full_path(hooked, tmp_path) -> None:
    """A plugin's record rule may find what the built-in rules do not: with one installed, a
    fine run is the full path's, which reports the plugin's finding."""
    quest, ws = hooked
    site = tmp_path / "site"
    info = site / "lab_rule-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lab-rule\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ds_gate]\nlab_rule = lab_rule\n")
    (site / "lab_rule.py").write_text(
        "from ds_gate import Rule, hookimpl\nfrom ds_gate.model import DISCIPLINE, ERROR\n\n"
        "NOTES = Rule('lab.run-needs-notes', ERROR, DISCIPLINE, 'a run without notes')\n\n\n"
        "@hookimpl\ndef ds_gate_check_record(record):\n"
        "    return [NOTES.at(record.display, 'no notes')] if record.kind == 'run' and 'notes' not in record.data else []\n"
    )
    (ws / R / "run-bench.json").parent.mkdir(parents=True, exist_ok=True)
    (ws / R / "run-bench.json").write_bytes(j(RUN))
    git(ws, "add", "-A")
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONPROFILEIMPORTTIME": "1"}
    hook = subprocess.run(["git", "commit", "-q", "-m", "case"], cwd=ws, capture_output=True, text=True, env=env)
    imported = imported_modules(hook.stderr)
    assert "ds_gate.cli.main" in imported and "lab.run-needs-notes" in hook.stderr


def test_the_corpus_holds_both_answers() -> None:
    assert {case.fast for case in CASES} == {True, False}
    assert len({case.id for case in CASES}) == len(CASES)


# ---------------------------------------------------------------- never through a link out of the quest

_OPENED: list[str] = []
_WATCH = [False]


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _WATCH[0] and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.fsdecode(args[0]))


def test_a_staged_record_whose_copy_became_a_link_out_of_the_quest_is_read_from_git(
    make_quest: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The work-tree copy saves two git processes only when it is the file itself: a link (to a
    file outside holding the very bytes staged) is never followed; git's copy is read."""
    import sys

    from ds_gate.kernel.checkpoint import _staged_blobs
    from ds_gate.kernel.gitpaths import staged_changes

    quest: ExampleQuest = make_quest()
    record = quest.root / R / "run-bench.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_bytes(j(RUN))
    git(quest.root, "add", "-A")
    outside = tmp_path / "outside.json"
    outside.write_bytes(j(RUN))
    record.unlink()
    record.symlink_to(outside)
    monkeypatch.chdir(quest.root)
    changes = staged_changes(".")
    sys.addaudithook(_audit)
    _OPENED.clear()
    _WATCH[0] = True
    try:
        blobs = _staged_blobs(".", changes, [R + "run-bench.json"])
    finally:
        _WATCH[0] = False
    assert blobs[R + "run-bench.json"] == j(RUN)  # git's copy, read by blob id
    assert not any(path.endswith("run-bench.json") or path == str(outside) for path in _OPENED), _OPENED
    assert checkpoint_passes(".")  # and the fast path still answers, from git's copy
