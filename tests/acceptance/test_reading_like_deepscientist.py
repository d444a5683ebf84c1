"""Issue 24, root 2: the gate reads a quest as DeepScientist does, and where it differs it is
only stricter (docs/reading-the-quest.md). Each case is a real git quest on which the old
reading passed while a completed run was uncovered; each is judged by ``closure`` over the
folders and over git objects, and the finalization cases by the real commit and pre-push hooks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate import evaluate
from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest

from helpers import add_remote, commit, git, head_subject

RUNS = "artifacts/runs"


def pending(quest: ExampleQuest) -> tuple[list[str], list[str]]:
    """The pending runs ``closure`` finds over the folders and over git objects, every
    workspace committed; and the other two surfaces agree (``hooks_refuse``)."""
    for line in git(quest.root, "worktree", "list", "--porcelain").stdout.splitlines():
        if line.startswith("worktree "):
            workspace = Path(line.removeprefix("worktree "))
            git(workspace, "add", "-A")
            git(workspace, "commit", "-q", "--no-verify", "-m", "records", check=False)
    folders = evaluate(quest.root, "closure", cache=False)
    tips = evaluate(quest.root, "closure", source="git", cache=False)
    assert not folders.ok and not tips.ok
    hooks_refuse(quest, folders.pending_run_ids)
    return folders.pending_run_ids, tips.pending_run_ids


def hooks_refuse(quest: ExampleQuest, runs: list[str]) -> None:
    """``closure --from-git`` in a fresh clone, the commit hook on a finalization commit and
    the pre-push hook on its push all refuse, naming the runs ``closure`` names."""
    clone = quest.root.parent / f"{quest.root.name}-clone"
    git(quest.root.parent, "clone", "-q", "--no-local", str(quest.root), str(clone))
    fresh = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", "--from-git", str(clone)], capture_output=True, text=True
    )
    assert fresh.returncode == 1 and all(run in fresh.stdout for run in runs), fresh.stdout + fresh.stderr
    assert main(["install", str(quest.root)]) == 0
    decision = quest.root / "artifacts" / "decisions" / "decision-0000f1a1.json"
    decision.parent.mkdir(parents=True, exist_ok=True)
    decision.write_text(
        json.dumps(
            {
                "kind": "decision",
                "artifact_id": "decision-0000f1a1",
                "action": "finalize",
                "verdict": "good",
                "reason": "done",
            }
        )
    )
    hook = commit(quest.root, "artifact: decision finalize")
    assert hook.returncode != 0 and all(run in hook.stdout + hook.stderr for run in runs), hook.stdout + hook.stderr
    add_remote(quest.root, quest.root.parent / f"{quest.root.name}-remote.git")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "artifact: decision finalize")
    pushed = git(quest.root, "push", "-q", "origin", "--all", check=False)
    assert pushed.returncode != 0 and all(run in pushed.stdout + pushed.stderr for run in runs)


def write_record(workspace: Path, folder: str, record: dict[str, object]) -> None:
    path = workspace / "artifacts" / folder / f"{record['artifact_id']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2))


@pytest.mark.slow
@pytest.mark.parametrize("run_kind", [" main_experiment", "analysis.slice\n", "\texperiment "])
def test_a_run_kind_with_the_whitespace_deepscientist_strips_is_a_completed_run(make_quest, run_kind: str) -> None:
    """Main reads ``str(run_kind).strip()`` (``_collect_run_artifacts_raw``); the old reading
    compared it as written and passed."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001", run_kind=run_kind)
    assert pending(quest) == ([run], [run])


@pytest.mark.slow
def test_conflicting_copies_count_the_completed_one_deepscientist_ranks_first(make_quest) -> None:
    """DeepScientist ranks copies by ``updated_at`` *as text*: ``03:00+02:00`` beats
    ``02:00+00:00`` there, though it is the earlier moment. The old reading parsed the times,
    kept the failed copy and passed."""
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    base = {
        "kind": "run",
        "artifact_id": "run-0000c0de",
        "run_id": "main-001",
        "run_kind": "main_experiment",
        "created_at": "2026-11-22T00:00:00+00:00",
    }
    write_record(quest.root, "runs", {**base, "status": "completed", "updated_at": "2026-11-22T03:00:00+02:00"})
    write_record(wt, "runs", {**base, "status": "failed", "updated_at": "2026-11-22T02:00:00+00:00"})
    assert pending(quest) == (["run-0000c0de"], ["run-0000c0de"])


@pytest.mark.slow
def test_a_completed_copy_counts_whichever_copy_is_newer(make_quest) -> None:
    """PR #60 reads every copy an index line leads to: a completed one makes the run a
    candidate even where a newer copy elsewhere says otherwise. The gate takes that reading."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    wt = quest.worktree("idea-a", "idea/001-a")
    quest.record(
        wt, "run", {"artifact_id": run, "run_id": "main-001", "run_kind": "main_experiment", "status": "failed"}
    )
    assert pending(quest) == ([run], [run])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["decision", "report", "Run"])
def test_a_record_in_runs_is_a_run_whatever_its_kind_says(make_quest, kind: str) -> None:
    """DeepScientist's collector names a record by its folder (``<folder>:artifact:<id>``): a
    completed run filed in runs/ with another ``kind`` is a run there. The old reading took
    the ``kind`` (and skipped a report, or refused an unknown kind) and passed."""
    quest = make_quest()
    write_record(
        quest.root,
        "runs",
        {
            "kind": kind,
            "artifact_id": "run-0000beef",
            "run_id": "main-001",
            "run_kind": "main_experiment",
            "status": "completed",
            "verdict": "good",
            "action": "continue",
            "reason": "r",
        },
    )
    assert pending(quest) == (["run-0000beef"], ["run-0000beef"])


# ---------------------------------------------------------------- finalization, by what the file means

ESCAPED = {
    "a YAML hex escape": 'status: "\\x63ompleted"\n',
    "a YAML unicode escape": 'status: "\\u0043OMPLETED"\n',
    "an escaped line break": 'status: "comp\\\n  leted"\n',
    "a tag": "status: !!str Completed\n",
    "flow style": "{status: ' completed '}\n",
    "an alias": "word: &done completed\nstatus: *done\n",
}


@pytest.fixture
def hooked(tmp_path: Path) -> tuple[ExampleQuest, str]:
    """A quest with the hooks installed and one pending run, committed."""
    quest = ExampleQuest(tmp_path / "DeepScientist" / "quests" / "001").create()
    assert main(["install", str(quest.root)]) == 0
    run = quest.run(quest.root, "main-001")
    assert commit(quest.root, "experiment: record main main-001").returncode == 0
    return quest, run


def completing(quest: ExampleQuest, status_text: str) -> None:
    """``quest.yaml`` as it is, with its ``status`` line written as ``status_text``."""
    path = quest.root / "quest.yaml"
    lines = [line for line in path.read_text().splitlines(keepends=True) if not line.startswith("status:")]
    if status_text.startswith("{"):  # flow style: the whole mapping in one
        import yaml

        meta = yaml.safe_load("".join(lines))
        inner = status_text.strip()[1:-1]
        path.write_text("{" + json.dumps(meta)[1:-1] + ", " + inner + "}\n")
        return
    path.write_text("".join(lines) + status_text)


@pytest.mark.slow
@pytest.mark.parametrize("how", list(ESCAPED), ids=list(ESCAPED))
def test_a_completion_written_in_other_bytes_is_a_finalization_commit(hooked, how: str) -> None:
    quest, run = hooked
    completing(quest, ESCAPED[how])
    import yaml

    assert str(yaml.safe_load((quest.root / "quest.yaml").read_text())["status"]).strip().lower() == "completed"
    rejected = commit(quest.root, "quest: completed")
    assert rejected.returncode != 0 and run in rejected.stdout + rejected.stderr
    assert head_subject(quest.root) != "quest: completed"


@pytest.mark.slow
@pytest.mark.parametrize("how", ["a YAML hex escape", "an escaped line break"])
def test_a_completion_written_in_other_bytes_is_a_finalization_push(hooked, tmp_path: Path, how: str) -> None:
    quest, run = hooked
    add_remote(quest.root, tmp_path / "remote.git")
    assert git(quest.root, "push", "-q", "origin", "main", check=False).returncode == 0  # nothing finalizes yet
    completing(quest, ESCAPED[how])
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "quest: completed")
    pushed = git(quest.root, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode != 0 and run in pushed.stdout + pushed.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "fields",
    [
        {"action": "\\u0066inalize"},
        {"action": " Finalize "},
        {"action": "stop", "decision_scope": " Quest_Completion "},
        {"action": "stop", "decision_scope": "quest_completion", "kind": " decision "},
    ],
    ids=["an escaped action", "an action with space and case", "a scope with space and case", "a kind with space"],
)
def test_a_finalizing_decision_written_loosely_is_a_finalization_commit(hooked, fields: dict[str, str]) -> None:
    """PR #60 reads ``kind``/``action`` with ``.strip().lower()``; JSON escapes mean their letters."""
    quest, run = hooked
    record = {"kind": "decision", "artifact_id": "decision-0000f1a1", "verdict": "good", "reason": "done", **fields}
    text = json.dumps(record, indent=2).replace("\\\\u0066", "\\u0066")
    path = quest.root / "artifacts" / "decisions" / "decision-0000f1a1.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    rejected = commit(quest.root, "artifact: decision")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and run in output and "finaliz" in output


# ---------------------------------------------------------------- a later card and an earlier review


def test_a_duplicate_card_written_later_by_another_quest_does_not_fail_a_closed_review(make_quest) -> None:
    """The review was fine when it was recorded; another quest writing the same lesson
    afterwards does not reopen it. A duplicate that was already there still fails it."""
    first = make_quest("001")
    run = first.run(first.root, "main-001")
    first.review(first.root, [run])
    assert evaluate(first.root, "closure", cache=False).ok

    second = make_quest("002")
    second._counter = 10_000  # its cards are written hours after the first quest's review
    body = f"Context: {run}.\n\nObservation: ..."
    second.card(
        "global", "The same lesson, retold", claim="Retold.", lineage=[{"quest": "002", "run": "run-x"}], body=body
    )
    report = evaluate(first.root, "closure", cache=False)
    assert report.ok, [(f.rule, f.message) for f in report.findings]

    third = make_quest("003")
    third.card("global", "The same lesson, told first", created_at="2026-11-22T01:00:00+00:00", body=body)
    report = evaluate(first.root, "closure", cache=False)
    assert "review.duplicate-card" in [f.rule for f in report.findings] and not report.ok


# ---------------------------------------------------------------- quest.yaml through a link inside the quest


def linked(quest: ExampleQuest, through_folder: bool = False) -> Path:
    """``quest.yaml`` made a link to a file inside the quest (through a linked folder, or
    not), committed while the quest is active; the file the link leads to."""
    state = quest.root / "state"
    state.mkdir()
    (state / "quest.yaml").write_text((quest.root / "quest.yaml").read_text())
    (quest.root / "quest.yaml").unlink()
    if through_folder:
        os.symlink("state", quest.root / "config")
        os.symlink("config/quest.yaml", quest.root / "quest.yaml")
    else:
        os.symlink("state/quest.yaml", quest.root / "quest.yaml")
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "quest.yaml in state/")
    assert evaluate(quest.root, "closure", cache=False).quest.experience_distill  # type: ignore[union-attr]
    return state / "quest.yaml"


@pytest.mark.slow
@pytest.mark.parametrize("through_folder", [False, True], ids=["a link", "a link through a linked folder"])
def test_completing_the_file_quest_yaml_links_to_is_a_finalization_commit(hooked, through_folder: bool) -> None:
    """DeepScientist reads ``quest.yaml`` through the link; the hook read the link's text (or
    nothing, as the commit stages only the file it leads to) and passed."""
    quest, run = hooked
    target = linked(quest, through_folder)
    target.write_text(target.read_text().replace("status: active", "status: completed"))
    rejected = commit(quest.root, "quest: completed")
    assert rejected.returncode != 0 and run in rejected.stdout + rejected.stderr
    assert "quest.yaml with status: completed" in rejected.stdout + rejected.stderr


@pytest.mark.slow
def test_completing_the_file_quest_yaml_links_to_is_a_finalization_push(hooked, tmp_path: Path) -> None:
    quest, run = hooked
    target = linked(quest)
    add_remote(quest.root, tmp_path / "remote.git")
    assert git(quest.root, "push", "-q", "origin", "main", check=False).returncode == 0
    target.write_text(target.read_text().replace("status: active", "status: completed"))
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "quest: completed")
    pushed = git(quest.root, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode != 0 and run in pushed.stdout + pushed.stderr


def test_a_link_that_changes_nothing_is_an_ordinary_checkpoint(hooked) -> None:
    """The link is followed only to read what it leads to: a checkpoint staging other files,
    or the linked file still active, passes silently."""
    quest, _run = hooked
    target = linked(quest)
    target.write_text(target.read_text() + "# a comment\n")
    (quest.root / "notes.md").write_text("notes\n")
    done = commit(quest.root, "checkpoint")
    assert done.returncode == 0 and done.stdout + done.stderr == "" and head_subject(quest.root) == "checkpoint"
