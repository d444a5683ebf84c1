"""Issue 35, the adversary's fourth round: two false passes, each a class.

1. An ``artifact_id`` holding ``/`` or ``..``: DeepScientist main writes
   ``<workspace>/artifacts/<dir>/<artifact_id>.json`` as given, making folders
   (``sub/run-a`` is ``artifacts/runs/sub/run-a.json``, ``../../experiments/run-b`` is
   ``experiments/run-b.json``). The folder source followed the index line there; the git
   source (a branch no worktree folder has out, a CI clone) called the record missing, a
   warning, and the run went unseen. Every source now follows the line alike.
2. A completed run whose record is ``git rm``-ed (an ordinary checkpoint): its index line
   stays, and the run is counted from the line, pending until a review covers it.

Real git, real worktrees and clones; the hook tests install ds-gate's real hooks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ds_gate.demo.example_quest import ExampleQuest

NESTED = ("sub/run-a", "deep/er/run-c", "../../experiments/run-b")


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def nested_quest(make_quest: Any) -> tuple[ExampleQuest, Path]:
    """Completed runs with nested ids, committed on branch run/x in its worktree folder."""
    quest = make_quest()
    wt = quest.worktree("run-x", "run/x")
    for n, artifact_id in enumerate(NESTED):
        quest.run(wt, f"main-00{n}", artifact_id=artifact_id)
    quest.checkpoint(wt, "artifact: runs with nested ids")
    assert (wt / "artifacts" / "runs" / "sub" / "run-a.json").is_file()
    assert (wt / "experiments" / "run-b.json").is_file()  # where main writes it
    return quest, wt


def seen_from_records(data: dict[str, Any]) -> None:
    """Each nested run is pending, read from its record (its run_kind), never missing."""
    assert set(data["pending_run_ids"]) == set(NESTED)
    runs = {run["artifact_id"]: run for run in data["completed_runs"]}
    assert all(runs[aid]["run_kind"] == "main_experiment" for aid in NESTED)
    rules = {f["rule"] for f in data["findings"]}
    assert "index.missing-record" not in rules
    assert "artifact.id-mismatch" not in rules  # the file is named as main named it


def test_nested_ids_are_seen_by_every_source(make_quest, gate_json, tmp_path) -> None:
    quest, wt = nested_quest(make_quest)
    code, data = gate_json("closure", str(quest.root))  # the worktree folder
    assert code == 1
    seen_from_records(data)
    assert all(not run["path"].startswith("refs/") for run in data["completed_runs"])

    code, data = gate_json("closure", "--from-git", str(quest.root))  # branch tips, the folder still there
    assert code == 1
    seen_from_records(data)

    git(quest.root, "worktree", "remove", "--force", str(wt))  # run/x now lies in git objects only
    code, data = gate_json("closure", str(quest.root))
    assert code == 1, data["findings"]
    seen_from_records(data)
    paths = {run["artifact_id"]: run["path"] for run in data["completed_runs"]}
    assert paths["sub/run-a"] == "refs/heads/run/x:artifacts/runs/sub/run-a.json"
    assert paths["../../experiments/run-b"] == "refs/heads/run/x:experiments/run-b.json"

    clone = tmp_path / "clone"  # CI: a full clone, the branches remote-tracking
    git(tmp_path, "clone", "-q", "--no-local", str(quest.root), str(clone))
    code, data = gate_json("closure", str(clone))
    assert code == 1, data["findings"]
    seen_from_records(data)
    assert {run["path"] for run in data["completed_runs"]} >= {
        "refs/remotes/origin/run/x:artifacts/runs/deep/er/run-c.json"
    }


def test_a_nested_id_leading_out_of_the_tree_is_never_followed(make_quest, gate_json) -> None:
    quest = make_quest()
    wt = quest.worktree("run-x", "run/x")
    quest.run(wt, "main-001", artifact_id="run-in")
    line = {
        "artifact_id": "../../../../../../../../etc/run-out",
        "kind": "run",
        "status": "completed",
        "path": "/etc/run-out.json",
    }
    with (wt / "artifacts" / "_index.jsonl").open("a") as out:
        out.write(json.dumps(line) + "\n")
    quest.checkpoint(wt, "artifact: runs")
    git(quest.root, "worktree", "remove", "--force", str(wt))
    code, data = gate_json("closure", str(quest.root))
    assert code == 1
    # nothing outside is read: the line counts (pending), its record said missing
    assert set(data["pending_run_ids"]) == {"run-in", line["artifact_id"]}
    assert any(line["artifact_id"] in f["message"] for f in data["findings"] if f["rule"] == "index.missing-record")


def test_a_link_where_a_nested_record_lies_on_a_branch_fails_closed(make_quest, gate_json) -> None:
    quest = make_quest()
    wt = quest.worktree("run-x", "run/x")
    quest.run(wt, "main-001", artifact_id="sub/run-a")
    record = wt / "artifacts" / "runs" / "sub" / "run-a.json"
    (wt / "kept.json").write_text(record.read_text())
    record.unlink()
    record.symlink_to("../../../kept.json")
    quest.checkpoint(wt, "artifact: a linked record")
    git(quest.root, "worktree", "remove", "--force", str(wt))
    code, data = gate_json("closure", str(quest.root))
    assert code == 2  # cannot see: the gate stops, naming the link and the fix
    assert "[git.symlink-in-tree] refs/heads/run/x:artifacts/runs/sub/run-a.json" in data["error"]
    assert "commit the record itself" in data["error"]


def delete_record(quest: ExampleQuest) -> str:
    """A committed, completed, unreviewed run whose record is then ``git rm``-ed (a checkpoint)."""
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "artifact: run")
    git(quest.root, "rm", "-q", f"artifacts/runs/{run}.json")
    quest.checkpoint(quest.root, "checkpoint")
    return run


def test_a_deleted_run_record_is_counted_from_its_index_line(make_quest, gate_json, tmp_path) -> None:
    quest = make_quest()
    run = delete_record(quest)
    code, data = gate_json("closure", str(quest.root))
    assert code == 1
    assert data["pending_run_ids"] == [run]
    missing = [f for f in data["findings"] if f["rule"] == "index.missing-record"]
    assert len(missing) == 1 and "counted from this line" in missing[0]["message"]
    assert "git log --all -- <path>" in missing[0]["hint"] and "git checkout <rev> -- <path>" in missing[0]["hint"]
    pending = next(f for f in data["findings"] if f["rule"] == "coverage.pending-run")
    assert "its record file is found nowhere" in pending["message"]

    clone = tmp_path / "clone"  # CI reads the same from git
    git(tmp_path, "clone", "-q", "--no-local", str(quest.root), str(clone))
    code, data = gate_json("closure", "--from-git", str(clone))
    assert code == 1 and data["pending_run_ids"] == [run]

    quest.review(quest.root, [run])  # a review covering it ends it, as for any run
    quest.checkpoint(quest.root, "artifact: review")
    code, data = gate_json("closure", str(quest.root))
    assert code == 0, data["findings"]
    assert data["pending_run_ids"] == []


def test_a_restored_record_wins_over_its_line(make_quest, gate_json) -> None:
    quest = make_quest()
    run = delete_record(quest)
    rev = git(quest.root, "log", "--all", "--format=%H", "--", f"artifacts/runs/{run}.json").stdout.split()[0]
    git(quest.root, "checkout", f"{rev}^", "--", f"artifacts/runs/{run}.json")  # the fix the finding names
    code, data = gate_json("closure", str(quest.root))
    assert code == 1
    assert [r["run_kind"] for r in data["completed_runs"]] == ["main_experiment"]
    assert not any(f["rule"] == "index.missing-record" for f in data["findings"])


def test_a_line_only_run_counts_by_status_and_the_record_wins_where_found(make_quest, gate_json) -> None:
    quest = make_quest()
    index = quest.root / "artifacts" / "_index.jsonl"
    lines = [
        {"artifact_id": "run-line-done", "kind": "run", "status": "Done "},  # completed-like, no run_kind
        {"artifact_id": "run-line-running", "kind": "run", "status": "running"},
        {"artifact_id": "run-line-twice", "kind": "run", "status": "running"},
        {"artifact_id": "run-line-twice", "kind": "run", "status": "completed"},
    ]
    recorded = quest.run(quest.root, "main-009", status="running")  # its record says running
    lines.append({"artifact_id": recorded, "kind": "run", "status": "completed"})  # a line says completed
    with index.open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in lines)
    quest.checkpoint(quest.root, "index")
    code, data = gate_json("closure", str(quest.root))
    assert code == 1
    assert set(data["pending_run_ids"]) == {"run-line-done", "run-line-twice"}  # the record wins for `recorded`


def test_moved_home_and_inherited_lines_still_read_their_records(make_quest, gate_json) -> None:
    """Absolute paths of another machine: the record where main writes it is read, at any
    depth; a worktree's inherited lines find their records in the folders the gate reads."""
    quest = make_quest()
    quest.run(quest.root, "main-001", artifact_id="sub/run-moved")
    quest.checkpoint(quest.root, "artifact: run")
    index = quest.root / "artifacts" / "_index.jsonl"
    index.write_text(index.read_text().replace(str(quest.root), "/home/elsewhere/DeepScientist/quests/001"))
    quest.checkpoint(quest.root, "moved")
    wt = quest.worktree("idea-x", "idea/x")  # inherits the line and the record
    quest.run(wt, "main-002")
    quest.checkpoint(wt, "artifact: run")
    code, data = gate_json("closure", str(quest.root))
    assert code == 1
    assert (
        set(data["pending_run_ids"]) == {"sub/run-moved", data["pending_run_ids"][0]}
        and len(data["pending_run_ids"]) == 2
    )
    assert all(r["run_kind"] == "main_experiment" for r in data["completed_runs"])
    assert not any(f["rule"] == "index.missing-record" for f in data["findings"])


def install(root: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "ds_gate", "install", str(root)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def finalize(root: Path) -> subprocess.CompletedProcess[str]:
    (root / "paper").mkdir(exist_ok=True)
    (root / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    git(root, "add", "-A")
    return git(root, "commit", "-q", "-m", "paper bundle", check=False)


@pytest.mark.slow
def test_the_commit_hook_refuses_the_bundle_over_a_nested_run_on_a_branch(make_quest) -> None:
    quest = make_quest()
    install(quest.root)
    git(quest.root, "checkout", "-q", "-b", "run/x")  # no worktree folder: the branch is git objects only
    quest.run(quest.root, "main-001", artifact_id="sub/run-a")
    quest.checkpoint(quest.root, "artifact: run sub/run-a")  # an ordinary checkpoint passes
    git(quest.root, "checkout", "-q", "main")
    done = finalize(quest.root)
    assert done.returncode != 0
    assert "sub/run-a" in done.stdout + done.stderr


@pytest.mark.slow
def test_the_commit_hook_refuses_the_bundle_over_a_deleted_run_record(make_quest) -> None:
    quest = make_quest()
    install(quest.root)
    run = delete_record(quest)  # both checkpoints pass the installed hook
    done = finalize(quest.root)
    assert done.returncode != 0
    assert run in done.stdout + done.stderr


@pytest.mark.slow
def test_a_finalizing_decision_with_a_nested_id_is_a_finalization(make_quest) -> None:
    """The commit hook knew records only directly in their folder: a `finalize` decision main
    wrote at artifacts/decisions/sub/d.json went through as an ordinary checkpoint."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "artifact: run")
    install(quest.root)
    quest.decision(quest.root, "finalize", artifact_id="sub/decision-final")
    git(quest.root, "add", "-A")
    done = git(quest.root, "commit", "-q", "-m", "artifact: decision", check=False)
    assert done.returncode != 0
    assert run in done.stdout + done.stderr
