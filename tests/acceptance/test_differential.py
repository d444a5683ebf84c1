"""Issue 24, "how to know the class is closed": a differential property test.

An independent reference reader (``tests/reference_reader.py``, written from the reference
document and DeepScientist's own code, importing nothing of ds-gate's) says which runs a
quest holds pending. Hypothesis builds quests with hostile variations
(``hostile_quests.py``, one flag each) and runs the four surfaces on each. The invariant:
where the reference counts a pending run, each surface either rejects (exit 1) naming every
such run, or stops (exit 2); never a pass, never a crash.

A few examples run in the suite (drawn, fixed by ``derandomize``, plus one explicit example
per class of violation found so far, ``KNOWN``); ``DS_GATE_HYPOTHESIS_EXAMPLES=500``
(or ``python bench/differential.py --examples 500``) runs many more (docs/testing.md).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the reference reader

import reference_reader
from hostile_quests import Builder, QuestSpec, RunSpec, after_build, after_reading, must_stop, quest_specs
from surfaces import Verdict, all_four

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

EXAMPLES = int(os.environ.get("DS_GATE_HYPOTHESIS_EXAMPLES", "10"))
PENDING = RunSpec(0, "completed", reviewed=False)


def one(*runs: RunSpec, flag: str, worktrees: int = 0, **variation: object) -> QuestSpec:
    """The smallest quest of a class ``bench/differential.py --each`` found on the way (each one fixed since)."""
    return QuestSpec(worktrees, list(runs), flags=frozenset({flag}), **variation)  # type: ignore[arg-type]


# one explicit example per class of violation found, besides the drawn ones: each runs every time
KNOWN = [
    one(PENDING, flag="waivers", waivers=True),
    one(RunSpec(0, "completed", False, link="out"), flag="link_out"),
    one(RunSpec(0, "completed", False, link="in"), flag="link_in"),
    one(RunSpec(1, "completed", False), flag="toggle", worktrees=1, toggle="dropped"),
    one(RunSpec(1, "completed", False), flag="settings", worktrees=1, settings="refs-main"),
    one(RunSpec(0, "completed", False, copy=(1, "failed", True)), flag="copies", worktrees=1),
    one(RunSpec(1, "running", False), flag="uncommitted", worktrees=1, uncommitted=True),
    # issue 35, root B
    one(PENDING, flag="runner_home", runner="kimi"),
    one(PENDING, flag="runner_home", runner="opencode"),
    one(PENDING, flag="grafts"),
    one(PENDING, flag="home_links"),
    # issue 35, root C
    one(RunSpec(1, "completed", False), RunSpec(2, "completed", True), flag="gone_worktree", worktrees=2),
    one(PENDING, flag="merges"),
    one(RunSpec(1, "completed", False), flag="not_a_quest", worktrees=1),
    one(RunSpec(1, "completed", False), RunSpec(2, "completed", True), flag="stray_worktree", worktrees=2),
]


def violations(spec: QuestSpec, base: Path) -> list[str]:
    """What each surface got wrong on the quest ``spec`` describes, built under ``base``."""
    builder = Builder(base, spec)
    uncommitted = builder.build()
    after_build(builder)  # issue 35, root C
    truth = reference_reader.read(builder.root)
    after_reading(builder)  # issue 35, root C
    committed = truth.pending - uncommitted  # what a clone holds
    with mock.patch.dict(os.environ, builder.env):  # root B: the runner's HOME, the user's configuration
        verdicts = all_four(builder.root, base / "surfaces", truth.runs | uncommitted, by_merge="merges" in spec.flags)
    out = []
    for verdict in verdicts:
        expected = committed if "clone" in verdict.surface else truth.pending
        problem = judge(verdict, expected)
        if must_stop(spec, verdict.surface) and verdict.exit != 2:  # issue 35, root C
            problem = f"exit {verdict.exit} on a repository with no quest.yaml (not a quest: exit 2)"
        if problem:
            out.append(
                f"{verdict.surface}: {problem}\n    reference pending: {sorted(expected)}; flags: "
                f"{sorted(spec.flags)}\n    output: {verdict.output[-1500:]}"
            )
    return out


def judge(verdict: Verdict, pending: set[str]) -> str | None:
    if verdict.exit == 3 or verdict.exit not in (0, 1, 2):
        return f"crashed (exit {verdict.exit})"
    if not pending or verdict.exit == 2:
        return None
    if verdict.exit == 0:
        return f"passed while {sorted(pending)} are pending"
    if not verdict.names(pending):
        return f"rejected without naming {sorted(pending - verdict.named)}"
    return None


def known(test):  # type: ignore[no-untyped-def]
    for spec in reversed(KNOWN):
        test = example(spec=spec)(test)
    return test


# no shrinking in the suite: an example is a few real git repositories, and shrinking one takes
# minutes; the failure prints the quest, and `bench/differential.py --each` finds the smallest
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@known
@given(spec=quest_specs())
def test_no_surface_passes_while_the_reference_counts_a_pending_run(spec: QuestSpec) -> None:
    base = Path(tempfile.mkdtemp(prefix="ds-gate-differential-"))
    try:
        found = violations(spec, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert not found, "\n".join(found)
