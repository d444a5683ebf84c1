"""Every copy of a baselined run must be one its commit held (issue 37.3; breaks s5 item 2).

The gate reads one winning copy per run, ranked by ``updated_at`` and ``created_at``: a new
experiment recorded over a baselined id in a worktree (or on a side branch a CI clone reads from
git objects), back-dated so the committed copy still wins the ranking, kept the run baselined
behind the held copy. Each such copy now keeps the run pending, with a ``baseline.changed-since``
warning naming the copy; a worktree's inherited copy of the held record changes nothing.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from ds_gate.engine.gate import evaluate

from helpers import baseline

OLD = "2000-01-01T00:00:00+00:00"


def before_adoption(quest: Any) -> tuple[str, str, str]:
    """Two runs recorded and committed with the gate off, then the gate turned on: (the commit, the runs)."""
    old, kept = quest.run(quest.root, "main-001"), quest.run(quest.root, "main-002")
    quest.checkpoint(quest.root, "experiment: runs before the gate")
    head = quest.git(quest.root, "rev-parse", "HEAD")
    quest.write_quest_yaml(startup_contract={"schema_version": 3, "experience_distill": {"mode": "on"}})
    quest.checkpoint(quest.root, "quest: turn experience_distill on")
    return head, old, kept


def backdated_copy(quest: Any, workspace: Path, run: str, name: str | None = None) -> Path:
    """A NEW completed experiment written over ``run``'s id in ``workspace``, its dates back-dated
    so the committed copy still wins the ranking (the adversary's reproducer), with its index line."""
    record = json.loads((quest.root / "artifacts" / "runs" / f"{run}.json").read_text())
    new = dict(record, run_id="main-NEW", summary="a NEW experiment", metrics_summary={"acc": 0.99})
    new.update(updated_at=OLD, created_at=OLD)
    for key in ("path", "workspace_root", "worktree_root", "source_root"):
        if isinstance(new.get(key), str):
            new[key] = new[key].replace(str(quest.root), str(workspace))
    path = workspace / "artifacts" / "runs" / f"{name or run}.json"
    path.write_text(json.dumps(new, indent=2))
    line = {"artifact_id": run, "kind": "run", "status": "completed", "path": str(path), "updated_at": OLD}
    with (workspace / "artifacts" / "_index.jsonl").open("a") as index:
        index.write(json.dumps(line) + "\n")
    return path


def changed(report: Any) -> dict[str, str]:
    return {f.subject: f.message for f in report.findings if f.rule == "baseline.changed-since"}


def ids(runs: list[Any]) -> list[str]:
    return sorted(r.artifact_id for r in runs)


def test_a_backdated_worktree_copy_keeps_the_run_pending(make_quest, trusted) -> None:
    quest = make_quest(experience_distill=None)
    head, old, kept = before_adoption(quest)
    baseline(trusted, quest.root, f"commit: {head}")
    worktree = quest.worktree("exp2", "exp2")
    assert evaluate(quest.root, "closure").ok  # the worktree's inherited copies are the held records

    backdated_copy(quest, worktree, old)
    quest.checkpoint(worktree, "experiment: a new run over an old id, back-dated")
    report = evaluate(quest.root, "closure")
    assert ids(report.pending) == [old] and ids(report.baselined) == [kept] and not report.ok
    [run] = report.pending
    assert run.path == f"artifacts/runs/{old}.json"  # the held copy still wins the ranking
    assert (
        f"its copy .ds/worktrees/exp2/artifacts/runs/{old}.json is not a record that commit held"
        in (changed(report)[old])
    )


def test_a_copy_under_another_file_name_claiming_the_id_keeps_it_pending(make_quest, trusted) -> None:
    quest = make_quest(experience_distill=None)
    head, old, kept = before_adoption(quest)
    baseline(trusted, quest.root, f"commit: {head}")
    worktree = quest.worktree("exp2", "exp2")
    backdated_copy(quest, worktree, old, name="run-elsewhere")
    quest.checkpoint(worktree, "experiment: a new run claiming an old id from another file")

    report = evaluate(quest.root, "closure")
    assert ids(report.pending) == [old] and ids(report.baselined) == [kept]
    assert "exp2/artifacts/runs/run-elsewhere.json is not a record that commit held" in changed(report)[old]


def test_a_backdated_copy_on_a_side_branch_tip_keeps_it_pending_in_a_ci_clone(make_quest, trusted, tmp_path) -> None:
    """A CI clone: the side branch has no folder, its records are read from git objects."""
    quest = make_quest(experience_distill=None)
    head, old, kept = before_adoption(quest)
    side = quest.worktree("idea-idea-aaaa0001", "idea/001-idea-aaaa0001")
    backdated_copy(quest, side, old)
    quest.checkpoint(side, "experiment: a new run over an old id, back-dated")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-local", str(quest.root), str(clone)], check=True)
    baseline(trusted, clone, f"commit: {head}")

    report = evaluate(clone, "closure")
    assert ids(report.pending) == [old] and ids(report.baselined) == [kept] and not report.ok
    assert (
        f"its copy refs/remotes/origin/idea/001-idea-aaaa0001:artifacts/runs/{old}.json is not a record that "
        "commit held"
    ) in changed(report)[old]
