"""Issue 35, root A: every record DeepScientist main accepted and wrote passes an ordinary checkpoint.

``data/main-writes.tar.gz`` holds 300 calls an agent might make to main (b366244), with the
exact bytes each call wrote and main's answer (its README, kept beside the corpus in the
shared folder, says how it was made). A checkpoint the hook refuses stays refused at every
later checkpoint of that worktree, because DeepScientist re-stages the record: so each case
main accepted is committed through the real installed hook, as DeepScientist's checkpoint
does it (``git add -A && git commit``), and must pass; closure must then read each quest
without a crash, and count a run whose record holds NaN as a run.

The tarball is unpacked once per session. The non-finalization cases of a template share
one quest made from it, each committed on its own (record ids are unique in the corpus);
the finalization cases each get a quest of their own from the ``idea`` template, which has
no run pending (finalization commits are gated on pending runs by design).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from helpers import git

pytestmark = pytest.mark.slow  # installs the hook and commits through it (conftest.py)

TARBALL = Path(__file__).parent / "data" / "main-writes.tar.gz"
TEMPLATES = ("new", "idea", "run", "slice")
RUN_KINDS = ("main_experiment", "analysis.slice", "experiment")


@dataclass(frozen=True)
class Corpus:
    root: Path
    cases: list[dict[str, Any]]

    def accepted(self, template: str, finalization: bool) -> list[dict[str, Any]]:
        return [
            c
            for c in self.cases
            if c["ok"] and c["written"] and c["template"] == template and c["finalization"] == finalization
        ]


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    where = tmp_path_factory.mktemp("main-writes")
    with tarfile.open(TARBALL) as tar:
        tar.extractall(where, filter="data")
    root = where / "main-writes"
    cases = [json.loads(line) for line in (root / "manifest.jsonl").read_text().splitlines() if line.strip()]
    return Corpus(root, cases)


def make_quest(corpus: Corpus, template: str, where: Path) -> Path:
    """The corpus README's recipe: the template's active workspace, committed before the hook is installed."""
    quest = where / "DeepScientist" / "quests" / "001"
    shutil.copytree(corpus.root / "templates" / template, quest)
    git(quest, "init", "-q")
    git(quest, "add", "-A")
    git(quest, "commit", "-q", "-m", f"template {template}")
    installed = subprocess.run(
        [sys.executable, "-m", "ds_gate", "install", str(quest)], capture_output=True, text=True, check=False, cwd=where
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return quest


def stage(corpus: Corpus, case: dict[str, Any], quest: Path) -> None:
    """Every stored, not ignored file of ``case`` written (or appended) at its path in its workspace."""
    for entry in case["files"]:
        if entry["ignored"] or not entry["stored"]:
            continue
        data, target = (corpus.root / case["id"] / entry["stored"]).read_bytes(), quest / entry["workspace_path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "ab" if entry["mode"] == "append" else "wb") as fh:
            fh.write(data)


def checkpoint(quest: Path, case_id: str) -> subprocess.CompletedProcess[str]:
    git(quest, "add", "-A")
    return git(quest, "commit", "-q", "-m", f"checkpoint {case_id}", check=False)


def refused(corpus: Corpus, cases: list[dict[str, Any]], quest: Path) -> list[str]:
    out = []
    for case in cases:
        stage(corpus, case, quest)
        done = checkpoint(quest, case["id"])
        if done.returncode != 0:
            out.append(f"{case['id']} (exit {done.returncode}):\n{done.stdout[-800:]}{done.stderr[-1500:]}")
            git(quest, "commit", "-q", "--no-verify", "-m", f"forced {case['id']}")  # the next case starts clean
    return out


def closure(quest: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", "--require", "--format", "json", str(quest)],
        capture_output=True,
        text=True,
        check=False,
    )


Committed = Callable[[str], tuple[Path, list[str]]]


@pytest.fixture(scope="session")
def committed(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Committed:
    """A template's quest with every accepted ordinary case committed on it, and the refusals
    (built once per session, when a test first asks for that template)."""
    made: dict[str, tuple[Path, list[str]]] = {}

    def get(template: str) -> tuple[Path, list[str]]:
        if template not in made:
            quest = make_quest(corpus, template, tmp_path_factory.mktemp(f"quest-{template}"))
            made[template] = (quest, refused(corpus, corpus.accepted(template, False), quest))
        return made[template]

    return get


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_record_main_accepted_passes_an_ordinary_checkpoint(committed: Committed, template: str) -> None:
    quest, failures = committed(template)
    assert not failures, f"{len(failures)} checkpoints refused:\n" + "\n".join(failures)
    assert git(quest, "status", "--porcelain").stdout == ""


def test_every_finalization_main_accepted_passes_on_a_quest_with_no_run_pending(
    corpus: Corpus, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cases = corpus.accepted("idea", True)
    assert cases and all(c["template"] == "idea" for c in corpus.cases if c["finalization"] and c["ok"])
    failures = []
    for case in cases:
        quest = make_quest(corpus, "idea", tmp_path_factory.mktemp(f"final-{case['id'][:4]}"))
        failures += refused(corpus, [case], quest)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("template", TEMPLATES)
def test_closure_reads_every_quest_main_wrote(committed: Committed, template: str) -> None:
    quest, _ = committed(template)
    done = closure(quest)
    assert done.returncode in (0, 1, 2), done.stdout[-2000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert isinstance(strict_json(done.stdout), dict)


def strict_json(text: str) -> Any:
    """``text`` as strict JSON: a bare NaN or Infinity token, which ``json.loads`` would read, fails."""

    def refuse(token: str) -> None:
        raise AssertionError(f"{token} in JSON output")

    return json.loads(text, parse_constant=refuse)


def nan_runs(quest: Path) -> set[str]:
    """The completed run records on disk that hold a bare NaN or Infinity token (main's json.dumps writes them),
    of a kind the gate counts (the RFC's: a run_kind NaN is no experiment, as ``run_kind: "notes"`` is none)."""
    out = set()
    for path in quest.glob("artifacts/runs/*.json"):
        found: list[str] = []
        data = json.loads(path.read_text(), parse_constant=lambda token: found.append(token) or float(token))  # noqa: B023 (called here)
        if found and data.get("status") == "completed" and data.get("run_kind") in RUN_KINDS:
            out.add(path.stem)
    return out


def test_closure_counts_a_run_whose_record_holds_nan(committed: Committed) -> None:
    quest, _ = committed("run")
    nans = nan_runs(quest)
    assert nans, "the corpus records NaN runs on the run template"
    done = closure(quest)
    report = strict_json(done.stdout)
    assert done.returncode == 1, done.stdout[-2000:]  # runs are pending: none of them is reviewed
    completed = {Path(run["path"]).stem for run in report["completed_runs"]}
    assert nans <= completed, sorted(nans - completed)
    assert nans <= set(report["pending_run_ids"]), sorted(nans - set(report["pending_run_ids"]))


def test_what_a_refused_call_left_behind_does_not_stop_the_next_checkpoint(
    corpus: Corpus, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Two calls main refused still wrote files (a 0-byte ``<id>.json.<hex>.tmp`` from a lone
    surrogate; ``confirm_baseline`` with a non-ASCII id, after writing the baseline). DeepScientist's
    next checkpoint stages them, so the hook lets them through: neither is a record the gate judges
    (a ``.tmp`` is no ``*.json`` record, a baseline is no run or decision), and refusing would stop
    every later checkpoint for a file the agent cannot take back through main."""
    left = [c for c in corpus.cases if not c["ok"] and c["written"]]
    assert len(left) == 2
    failures = []
    for case in left:
        quest = make_quest(corpus, case["template"], tmp_path_factory.mktemp(f"refused-{case['id'][:4]}"))
        failures += refused(corpus, [case], quest)
    assert not failures, "\n".join(failures)
