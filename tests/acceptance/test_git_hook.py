"""The plain git hook from ``ds-gate install``: real commits, from the root and from worktrees."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import ds_gate
from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.setup.install import CHAIN_SUFFIX, install, reinstall_command

from helpers import add_remote, commit, git, head_subject, imported_modules

MANIFEST = "paper/paper_bundle_manifest.json"


@pytest.fixture
def gated(tmp_path):
    """A quest (in a folder with a space) with the hook installed, two worktrees and one pending run."""
    quest = ExampleQuest(tmp_path / "Deep Scientist" / "quests" / "001").create()
    assert main(["install", str(quest.root)]) == 0
    idea = quest.worktree("idea-idea-aaaa0001", "idea/001-idea-aaaa0001")
    paper = quest.worktree("paper-main-001", "paper/main-001", "idea/001-idea-aaaa0001")
    run = quest.run(idea, "main-001")
    done = commit(idea, "experiment: record main main-001")
    assert done.returncode == 0, done.stderr
    return quest, idea, paper, run


def write_manifest(workspace: Path) -> None:
    (workspace / "paper").mkdir(exist_ok=True)
    (workspace / MANIFEST).write_text(json.dumps({"package_type": "paper_draft_checkpoint"}) + "\n")


def test_ordinary_checkpoints_pass_silently_while_runs_are_pending(gated) -> None:
    quest, idea, paper, run = gated
    quest.run(paper, "main-002")
    quest.decision(paper, "continue")
    (paper / "notes.md").write_text("progress\n")
    done = commit(paper, "experiment: record main main-002")
    assert done.returncode == 0 and head_subject(paper) == "experiment: record main main-002"
    assert done.stdout == "" and done.stderr == ""  # nothing to say on an ordinary checkpoint
    (quest.root / "status.md").write_text("# status\nworking\n")
    assert commit(quest.root, "status").returncode == 0


@pytest.mark.slow
def test_a_paper_bundle_commit_from_a_worktree_is_rejected_until_its_review_is_staged(gated) -> None:
    quest, idea, paper, run = gated
    write_manifest(paper)
    rejected = commit(paper, "paper: bundle")
    assert rejected.returncode != 0
    assert head_subject(paper) != "paper: bundle"
    output = rejected.stdout + rejected.stderr
    assert run in output and "main-001" in output and ".ds/worktrees/idea-idea-aaaa0001" in output
    assert MANIFEST in output and "distill_review" in output

    quest.review(paper, [run])  # staged in the same commit
    accepted = commit(paper, "paper: bundle")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert head_subject(paper) == "paper: bundle"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["quest.yaml completed", "finalize decision", "quest_completion decision"])
def test_every_kind_of_finalization_commit_is_gated(gated, kind) -> None:
    quest, idea, paper, run = gated
    where = quest.root
    if kind == "quest.yaml completed":
        quest.write_quest_yaml(status="completed")
    elif kind == "finalize decision":
        quest.decision(where, "finalize")
    else:  # what complete_quest records
        quest.decision(where, "stop", status="completed", decision_scope="quest_completion")
    rejected = commit(where, "finalize")
    assert rejected.returncode != 0 and run in rejected.stdout + rejected.stderr

    quest.review(paper, [run])  # committed in another worktree: visible to the gate
    assert commit(paper, "artifact: decision review").returncode == 0
    accepted = commit(where, "finalize")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


@pytest.mark.slow
def test_a_write_decision_is_routing_not_closure_and_never_blocks_a_checkpoint(gated) -> None:
    """Issue 16.2: an agent records ``write`` long before any paper; DeepScientist re-stages
    the uncommitted record at every checkpoint, so gating it blocked them all. As in PR #60,
    ``write`` is routing guidance: checkpoints pass while the run is pending."""
    quest, idea, _paper, run = gated
    quest.decision(idea, "write")
    first = commit(idea, "artifact: decision write")
    assert first.returncode == 0, first.stdout + first.stderr
    quest.run(idea, "main-002")
    later = commit(idea, "experiment: record main main-002")
    assert later.returncode == 0, later.stdout + later.stderr
    assert head_subject(idea) == "experiment: record main main-002"
    closure = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", str(quest.root)], capture_output=True, text=True
    )
    assert closure.returncode == 1 and run in closure.stdout  # still pending: only finalization is gated


@pytest.mark.slow
def test_a_finalize_action_deepscientist_refuses_blocks_even_an_ordinary_checkpoint(gated) -> None:
    """``Finalize`` is no action of DeepScientist's (it compares exactly): a hand-written record it
    would refuse, so the checkpoint is blocked for that, whatever the runs (issue 13)."""
    quest, idea, paper, run = gated
    quest.review(paper, [run])
    assert commit(paper, "artifact: decision review").returncode == 0
    quest.decision(quest.root, "Finalize")
    rejected = commit(quest.root, "finalize")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and "[decision.unknown-action]" in output and "did you mean finalize?" in output
    # issue 16.2: git hands a hook's output to DeepScientist as stderr; its first line is the verdict
    first = rejected.stderr.strip().splitlines()[0]
    assert first.startswith("ds-gate commit-check: REJECTED - ") and first.endswith("1 error, 0 warnings"), first
    assert "no-verify" not in output


@pytest.mark.slow
def test_a_review_left_unstaged_does_not_cover_the_commit_that_finalizes(gated) -> None:
    quest, idea, paper, run = gated
    write_manifest(paper)
    review = quest.review(paper, [run])
    rejected = commit(paper, "paper: bundle", MANIFEST)  # only the manifest is staged
    assert rejected.returncode != 0 and run in rejected.stdout + rejected.stderr
    # with its index line, as DeepScientist's `git add -A` stages it (PR #60 reads reviews through the index)
    accepted = commit(paper, "paper: bundle", MANIFEST, f"artifacts/decisions/{review}.json", "artifacts/_index.jsonl")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


@pytest.mark.slow
def test_quest_yaml_that_was_already_completed_is_not_finalized_again(gated) -> None:
    quest, idea, paper, run = gated
    quest.write_quest_yaml(status="completed")
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "completed before ds-gate")
    quest.write_quest_yaml(active_anchor="finalize")
    assert commit(quest.root, "touch quest.yaml").returncode == 0


@pytest.mark.slow
def test_an_invalid_staged_artifact_blocks_an_ordinary_checkpoint_and_says_where(gated) -> None:
    """A record DeepScientist main itself refuses (a decision without ``reason``, a run
    without ``run_kind``): the first line an agent reads in ``checkpoint.stderr`` is the
    verdict (issue 16.2), and each record is named once, in main's words (issue 35)."""
    quest, idea, paper, run = gated
    bad = quest.record(paper, "decision", {"action": "launch_experiment", "verdict": "good"})
    rejected = commit(paper, "artifact: decision")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0
    assert f".ds/worktrees/paper-main-001/artifacts/decisions/{bad['artifact_id']}.json:1" in output
    assert (
        "[artifact.refused-by-main] DeepScientist refuses this decision record: Decision artifact requires `reason`."
        in output
        and "hint:" in output
    )
    assert rejected.stderr.strip().splitlines()[0] == "ds-gate commit-check: FAILED - 1 error, 0 warnings"
    (paper / "artifacts" / "decisions" / f"{bad['artifact_id']}.json").unlink()
    no_kind = quest.record(paper, "run", {"run_id": "main-009"}, index=False)
    rejected = commit(paper, "artifact: run")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and f"artifacts/runs/{no_kind['artifact_id']}.json:1" in output, output
    assert (
        "[artifact.refused-by-main] DeepScientist refuses this run record: Run artifact requires `run_kind`." in output
    )
    assert rejected.stderr.strip().splitlines()[0] == "ds-gate commit-check: FAILED - 1 error, 0 warnings"


@pytest.mark.slow
def test_a_record_main_accepts_but_ds_gate_finds_odd_passes_a_checkpoint_with_a_warning(gated) -> None:
    """Issue 35: a diverged run (NaN, Infinity, as main's ``write_json`` writes a ``"nan"``
    metric) and a decision whose ``reason`` is a list are written by DeepScientist main, so an
    ordinary checkpoint commits them; the list is a warning there, and a finalization
    commit refuses it."""
    quest, idea, paper, run = gated
    diverged = quest.run(paper, "main-002", metrics_summary={"loss": float("nan"), "acc": float("inf")})
    odd = quest.record(paper, "decision", {"action": "continue", "verdict": "good", "reason": ["faster", "cheaper"]})
    assert "NaN" in (paper / "artifacts" / "runs" / f"{diverged}.json").read_text()
    done = commit(paper, "artifact: decision")
    output = done.stdout + done.stderr
    assert done.returncode == 0 and head_subject(paper) == "artifact: decision", output
    assert f"artifacts/decisions/{odd['artifact_id']}.json" in output and "warning [decision.schema]" in output
    assert diverged not in output and "invalid-json" not in output  # NaN is no finding at all
    quest.review(paper, [run, diverged])  # the diverged run is a run: reviewed like any other
    write_manifest(paper)
    rejected = commit(paper, "paper: bundle")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and head_subject(paper) == "artifact: decision", output
    assert "0 of 2 completed runs pending distill review, 1 error" in output, output
    assert f"artifacts/decisions/{odd['artifact_id']}.json:" in output and "error [decision.schema]" in output


@pytest.mark.slow
def test_a_staged_review_of_an_experiment_run_id_is_rejected_with_did_you_mean(gated) -> None:
    quest, idea, paper, run = gated
    quest.review(paper, ["main-001"], cards=[], reason_if_empty="nothing new")
    rejected = commit(paper, "artifact: decision review")
    assert rejected.returncode != 0
    assert f"did you mean {run}?" in rejected.stdout + rejected.stderr


def test_with_the_gate_off_finalization_passes_with_a_note(tmp_path) -> None:
    quest = ExampleQuest(tmp_path / "q", experience_distill=None).create()
    install(quest.root)
    quest.run(quest.root, "main-001")
    write_manifest(quest.root)
    done = commit(quest.root, "paper: bundle")
    assert done.returncode == 0 and "experience_distill is off" in done.stdout + done.stderr


def test_install_keeps_and_chains_an_existing_hook_and_reinstalls_cleanly(make_quest, tmp_path, capsys) -> None:
    quest = make_quest()
    hooks = quest.root / ".git" / "hooks"
    marker = tmp_path / "chained-ran"
    existing = hooks / "pre-commit"
    existing.write_text(f"#!/bin/sh\necho ran >> '{marker}'\nexit \"${{FAIL:-0}}\"\n")
    existing.chmod(existing.stat().st_mode | stat.S_IXUSR)

    assert main(["install", str(quest.root)]) == 0
    assert "the previous hook is kept as pre-commit.ds-gate-chained" in capsys.readouterr().out
    assert main(["install", str(quest.root)]) == 0  # again: ours is current, the chain is not doubled
    assert "unchanged (already current)" in capsys.readouterr().out
    assert sorted(
        p.name for p in hooks.iterdir() if p.name.startswith("pre-commit") and not p.name.endswith(".sample")
    ) == ["pre-commit", "pre-commit" + CHAIN_SUFFIX]

    quest.run(quest.root, "main-001")
    assert commit(quest.root, "checkpoint").returncode == 0
    assert marker.read_text() == "ran\n"  # the kept hook ran first

    quest.run(quest.root, "main-002")
    git(quest.root, "add", "-A")
    blocked = subprocess.run(
        ["git", "commit", "-q", "-m", "blocked"],
        cwd=quest.root,
        env=dict(os.environ, FAIL="1"),
        capture_output=True,
        text=True,
    )
    assert blocked.returncode != 0 and head_subject(quest.root) == "checkpoint"  # its failure blocks the commit


def test_an_identical_reinstall_writes_nothing_and_a_changed_hook_is_updated(make_quest, capsys) -> None:
    """Issue 39: installing again over the same hooks said ``updated``."""
    quest = make_quest()
    hook = quest.root / ".git" / "hooks" / "pre-commit"
    assert main(["install", str(quest.root)]) == 0
    assert f"installed {hook}" in capsys.readouterr().out
    written = hook.stat().st_ino, hook.read_bytes()
    assert main(["install", str(quest.root)]) == 0
    out = capsys.readouterr().out
    assert f"unchanged (already current) {hook}" in out and "updated" not in out
    assert (hook.stat().st_ino, hook.read_bytes()) == written  # not written again
    hook.write_text(hook.read_text() + "\n# edited\n")
    assert main(["install", str(quest.root)]) == 0
    assert f"updated {hook}" in capsys.readouterr().out and hook.read_bytes() == written[1]


def test_install_undo_takes_the_hooks_out_and_puts_a_chained_hook_back(make_quest, capsys) -> None:
    """Issue 39: there was no uninstall for the plain hooks; the hook they chained comes back as it was."""
    quest = make_quest()
    hooks = quest.root / ".git" / "hooks"
    own = b"#!/bin/sh\necho mine\n"
    (hooks / "pre-commit").write_bytes(own)
    (hooks / "pre-commit").chmod(0o755)
    assert main(["install", str(quest.root)]) == 0
    capsys.readouterr()
    assert main(["install", "--undo", str(quest.root)]) == 0
    out = capsys.readouterr().out
    assert f"restored {hooks / 'pre-commit'}" in out and f"removed {hooks / 'pre-push'}" in out
    assert (hooks / "pre-commit").read_bytes() == own and os.access(hooks / "pre-commit", os.X_OK)
    assert not (hooks / ("pre-commit" + CHAIN_SUFFIX)).exists()
    assert not (hooks / "pre-push").exists() and not (hooks / "pre-merge-commit").exists()
    assert main(["install", "--undo", str(quest.root)]) == 0  # again: the user's hook is left
    assert f"left {hooks / 'pre-commit'}: it is not ds-gate's" in capsys.readouterr().out
    assert (hooks / "pre-commit").read_bytes() == own


def test_install_home_covers_every_quest_and_skips_other_folders(home, make_quest, capsys) -> None:
    first, second = make_quest("001"), make_quest("002")
    (home / "quests" / "notes").mkdir()
    assert main(["install", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    for quest in (first, second):
        hook = quest.root / ".git" / "hooks" / "pre-commit"
        assert hook.is_file() and "ds-gate-managed-hook" in hook.read_text() and str(hook) in out
    assert "skipped" in out and "notes" in out


def test_install_home_does_not_follow_a_quest_link_out_of_the_home(home, tmp_path, capsys) -> None:
    """Issue 15.15: ``quests/<link>`` to a repository elsewhere is skipped, its hooks untouched."""
    from ds_gate.demo.example_quest import ExampleQuest

    elsewhere = ExampleQuest(tmp_path / "elsewhere" / "009", "009").create()
    (home / "quests" / "009").symlink_to(elsewhere.root)
    hooks_before = sorted(p.name for p in (elsewhere.root / ".git" / "hooks").iterdir())
    assert main(["install", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert "outside the home (not followed)" in out
    assert sorted(p.name for p in (elsewhere.root / ".git" / "hooks").iterdir()) == hooks_before


def test_install_refuses_a_hooks_path_outside_the_quest(make_quest, tmp_path, capsys) -> None:
    quest = make_quest()
    git(quest.root, "config", "core.hooksPath", str(tmp_path / "shared-hooks"))
    assert main(["install", str(quest.root)]) == 2
    assert "outside this quest" in capsys.readouterr().err
    assert not (tmp_path / "shared-hooks").exists()


@pytest.mark.slow
def test_a_partial_commit_is_judged_by_the_index_git_commits_not_the_staged_one(gated) -> None:
    """``git commit <paths>`` commits from a temporary index (GIT_INDEX_FILE): a review that is
    staged but not among the paths is not in the commit, so it covers nothing."""
    quest, idea, paper, run = gated
    write_manifest(paper)
    git(paper, "add", MANIFEST)
    review = quest.review(paper, [run])
    git(paper, "add", f"artifacts/decisions/{review}.json", "artifacts/_index.jsonl")
    partial = git(paper, "commit", "-q", "-m", "paper: bundle", "--", MANIFEST, check=False)
    assert partial.returncode != 0 and run in partial.stdout + partial.stderr
    whole = git(paper, "commit", "-q", "-m", "paper: bundle", check=False)
    assert whole.returncode == 0, whole.stdout + whole.stderr


@pytest.mark.slow
def test_fifos_in_place_of_quest_files_are_not_read(make_quest) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    (quest.root / "artifacts" / "_index.jsonl").unlink()
    os.mkfifo(quest.root / "artifacts" / "_index.jsonl")
    (quest.root / ".ds" / "research_state.json").unlink(missing_ok=True)
    os.mkfifo(quest.root / ".ds" / "research_state.json")
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", str(quest.root), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert done.returncode == 1 and json.loads(done.stdout)["pending_run_ids"] == [run]


@pytest.mark.slow
@pytest.mark.parametrize("stage_a_run", [False, True], ids=["nothing relevant staged", "a new run record staged"])
@pytest.mark.parametrize("stage_a_report", [False, True], ids=["", "and one of DeepScientist's own reports"])
def test_the_checkpoint_fast_path_loads_no_heavy_module(gated, stage_a_run, stage_a_report) -> None:
    """Not a timing test: the hook's common case must not import jsonschema, yaml, GitPython or pluggy.
    A report that is no review (DeepScientist records many) stays on the fast path too."""
    quest, idea, paper, run = gated
    (paper / "notes.md").write_text("progress\n")
    if stage_a_run:
        quest.run(paper, "main-002")
    if stage_a_report:
        quest.record(paper, "report", {"report_type": "git_operation", "summary": "checkpointed"})
    git(paper, "add", "-A")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ds_gate", "commit-check"], cwd=paper, capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout == ""
    imported = imported_modules(done.stderr)
    assert "ds_gate.kernel.checkpoint" in imported
    assert {"jsonschema", "yaml", "git", "pluggy"} & imported == set()
    assert ("ds_gate.kernel.triage" in imported) == stage_a_run  # the staged run really was validated
    # issue 17: a checkpoint builds no command line (python -m ds_gate's fast path), nor does
    # one staging a valid run record (kernel.checkpoint); issue 26: the kernel alone answers
    assert {"argparse", "ds_gate.cli.main", "dataclasses", "ds_gate.engine.commit"} & imported == set()
    assert {m for m in imported if m.startswith("ds_gate.")} <= {f"ds_gate.{m}" for m in KERNEL}


KERNEL = {"kernel", *(f"kernel.{p.stem}" for p in (Path(ds_gate.__file__).parent / "kernel").glob("*.py"))}
HEAVY = {
    "argparse",
    "dataclasses",
    "inspect",
    "typing",
    "pathlib",
    "subprocess",
    "hashlib",
    "json",
    "re",
    "enum",
    "jsonschema",
    "yaml",
    "git",
    "pluggy",
    "ds_gate.cli.main",
    "ds_gate.model",
    "ds_gate.model.findings",
    "ds_gate.model.records",
    "ds_gate.sources.location",
    "ds_gate.engine.documents",
    "ds_gate.rules.records",
    "ds_gate.config.waivers",
    "ds_gate.config.quest",
}


@pytest.mark.slow
@pytest.mark.parametrize("staged", ["a run record", "a run record and a continue decision"])
def test_a_checkpoint_staging_fine_records_loads_no_heavy_module(gated, staged) -> None:
    """Not a timing test. Issue 17: the installed hook, committing new records that are fine
    (DeepScientist's most common checkpoint after the ordinary one), validates them without
    the command line, the model's dataclasses, ``locate`` (pathlib), ``subprocess``, or ``json``
    with ``re`` and ``enum`` (``json``'s C scanner parses them)."""
    quest, idea, paper, run = gated
    quest.run(paper, "main-002", status="running")
    if "decision" in staged:
        quest.decision(paper, "continue")
    git(paper, "add", "-A")
    done = subprocess.run(
        ["git", "commit", "-q", "-m", "experiment: main-002"],
        cwd=paper,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
    )
    assert done.returncode == 0 and head_subject(paper) == "experiment: main-002"
    lines = done.stderr.splitlines()
    assert [line for line in lines if not line.startswith("import time:")] == [] and done.stdout == ""
    imported = imported_modules("\n".join(lines))
    assert {
        "ds_gate.kernel.checkpoint",
        "ds_gate.kernel.triage",
        "ds_gate.kernel.schema_fast",
    } <= imported  # judged, here
    assert HEAVY & imported == set()


@pytest.mark.slow
def test_a_review_deepscientist_accepts_never_blocks_a_checkpoint_but_cannot_finalize(gated) -> None:
    """Issue 13: a review with a card entry lacking card_id is accepted by DeepScientist (PR #60
    does not check card_id) and is only ds-gate's discipline: the checkpoint commits with a
    warning, so do later ones; the finalization that relies on it is rejected, naming both."""
    quest, idea, paper, run = gated
    review = quest.review(paper, [run], cards=[{"scope": "global", "action": "new", "target_run_id": run}])
    done = commit(paper, "artifact: decision review")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert f"artifacts/decisions/{review}.json" in output and "warning [review.card-id-missing]" in output
    (paper / "notes.md").write_text("progress\n")
    later = commit(paper, "notes")  # DeepScientist's next `git add -A` checkpoint is not stuck behind it
    assert later.returncode == 0, later.stdout + later.stderr
    write_manifest(paper)
    rejected = commit(paper, "paper: bundle")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and head_subject(paper) == "notes"
    assert "error [review.card-id-missing]" in output and f"artifacts/decisions/{review}.json" in output
    assert run in output and "pending distill review" in output


def test_a_hook_whose_python_is_gone_blocks_only_finalization(gated, monkeypatch) -> None:
    """Issue 14: the virtual environment that ran `ds-gate install` was deleted and no ds-gate
    is on PATH. Ordinary checkpoints commit with one warning; a finalization commit is blocked."""
    quest, idea, paper, run = gated
    hook = quest.root / ".git" / "hooks" / "pre-commit"
    text = hook.read_text()
    hook.write_text(text.replace(text.split("DS_GATE_PYTHON=", 1)[1].split("\n", 1)[0], "'/gone/venv/bin/python'", 1))
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")  # git, sh and grep; no ds-gate
    quest.run(paper, "main-002")
    quest.decision(paper, "continue")
    done = commit(paper, "experiment: record main main-002")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert output.count("ds-gate: warning:") == 1 and "ds-gate install" in output
    quest.decision(paper, "finalize")
    rejected = commit(paper, "artifact: decision finalize")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and "may finalize the quest: artifacts/decisions/" in output
    assert reinstall_command(sys.executable) in output and "pip install ds-gate" not in output  # issue 39
    git(paper, "reset", "-q")
    write_manifest(paper)
    rejected = commit(paper, "paper: bundle", MANIFEST)
    assert rejected.returncode != 0 and f"may finalize the quest: {MANIFEST}" in rejected.stdout + rejected.stderr


@pytest.mark.slow
def test_the_hooks_never_import_python_the_quest_holds(gated, tmp_path) -> None:
    """git runs a hook in the worktree. ``python -m ds_gate`` there would put the quest first on
    sys.path: a ``ds_gate/`` package or a ``json.py`` the agent wrote would run in the hook, with
    CI's secrets. The installed hooks drop that entry before ds-gate is imported."""
    quest, idea, paper, run = gated
    marker = tmp_path / "quest-code-ran"
    code = f"open({str(marker)!r}, 'w').write('x')\n"
    for workspace in (quest.root, paper):
        (workspace / "ds_gate").mkdir()
        for name in ("ds_gate/__init__.py", "ds_gate/__main__.py", "json.py", "argparse.py", "select.py"):
            (workspace / name).write_text(code)
    assert commit(paper, "checkpoint with python files").returncode == 0  # the fast path
    quest.run(paper, "main-002")
    assert commit(paper, "artifact: run").returncode == 0  # the full path: validation imports json
    write_manifest(paper)
    rejected = commit(paper, "paper: bundle")  # a finalization: the closure gate runs
    assert rejected.returncode != 0 and "REJECTED" in rejected.stderr
    add_remote(paper, tmp_path / "remote.git")
    git(paper, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    pushed = git(paper, "push", "-q", "origin", "paper/main-001", check=False)
    assert pushed.returncode != 0  # the pre-push gate ran and refused the finalization push
    assert not marker.exists()
    subprocess.run([sys.executable, "-m", "ds_gate", "--version"], cwd=paper, capture_output=True, check=False)
    assert marker.exists()  # the control: -m in the worktree runs the quest's package


@pytest.mark.slow
def test_a_chained_pre_push_hook_and_the_gate_both_read_the_pushed_refs(make_quest, tmp_path) -> None:
    """git gives the pushed refs on stdin once: the hook that was there before ds-gate gets them,
    and so does the gate after it (here it refuses the finalization push it can only see there)."""
    quest = make_quest()
    hooks = quest.root / ".git" / "hooks"
    seen = tmp_path / "chained-input"
    existing = hooks / "pre-push"
    existing.write_text(f"#!/bin/sh\ncat >> '{seen}'\n")
    existing.chmod(existing.stat().st_mode | stat.S_IXUSR)
    assert main(["install", str(quest.root)]) == 0
    add_remote(quest.root, tmp_path / "remote.git")
    branch = git(quest.root, "branch", "--show-current").stdout.strip()
    assert git(quest.root, "push", "-q", "origin", branch, check=False).returncode == 0  # an ordinary push
    head = git(quest.root, "rev-parse", "HEAD").stdout.strip()
    assert f"refs/heads/{branch} {head} refs/heads/{branch} " in seen.read_text()
    quest.run(quest.root, "main-001")  # completed, no review
    write_manifest(quest.root)
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    pushed = git(quest.root, "push", "-q", "origin", branch, check=False)
    assert pushed.returncode != 0 and "REJECTED" in pushed.stdout + pushed.stderr  # the gate read the refs too
    assert len(seen.read_text().splitlines()) == 2  # one line a push
