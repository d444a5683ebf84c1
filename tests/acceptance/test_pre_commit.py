"""The real pre-commit tool running the hooks of .pre-commit-hooks.yaml in a quest.

Each hook of the manifest becomes a ``repo: local`` hook with ``language: system`` (the
same entry, files, stages and pass_filenames), so pre-commit runs the ds-gate installed
in this environment instead of building a virtualenv from the network.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ds_gate.demo.example_quest import ExampleQuest

from helpers import REPO, add_remote, commit, head_subject

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

MANIFEST = "paper/paper_bundle_manifest.json"


def pre_commit(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    tool = Path(sys.executable).parent / "pre-commit"
    return subprocess.run([str(tool), *args], cwd=cwd, capture_output=True, text=True)


def local_config() -> str:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    return yaml.safe_dump(
        {"repos": [{"repo": "local", "hooks": [dict(h, language="system") for h in hooks]}]}, sort_keys=False
    )


@pytest.fixture
def quest(make_quest) -> ExampleQuest:
    quest = make_quest()
    (quest.root / ".pre-commit-config.yaml").write_text(local_config())
    quest.checkpoint(quest.root, "pre-commit config")
    done = pre_commit(quest.root, "install")
    assert done.returncode == 0, done.stdout + done.stderr
    return quest


def test_the_manifest_and_the_derived_config_are_valid_for_pre_commit(quest) -> None:
    assert pre_commit(REPO, "validate-manifest", str(REPO / ".pre-commit-hooks.yaml")).returncode == 0
    assert pre_commit(quest.root, "validate-config", ".pre-commit-config.yaml").returncode == 0
    ids = [h["id"] for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())]
    assert ids == ["ds-gate-validate", "ds-gate-closure", "ds-gate-closure-full", "ds-gate-pre-push"]


def test_pre_commit_lets_checkpoints_through_and_gates_the_finalization_commit(quest) -> None:
    idea = quest.worktree("idea-a", "idea/001-a")
    paper = quest.worktree("paper-main-001", "paper/main-001", "idea/001-a")
    run = quest.run(idea, "main-001")
    checkpoint = commit(idea, "experiment: record main main-001")
    assert checkpoint.returncode == 0, checkpoint.stdout + checkpoint.stderr
    assert "ds-gate validate" in checkpoint.stdout + checkpoint.stderr  # the hook really ran on the staged run

    (paper / "paper").mkdir()
    (paper / MANIFEST).write_text('{"package_type": "paper_draft_checkpoint"}\n')
    rejected = commit(paper, "paper: bundle")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and head_subject(paper) != "paper: bundle"
    assert "ds-gate-closure" in output and run in output and "main-001" in output

    quest.review(paper, [run])
    accepted = commit(paper, "paper: bundle")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert head_subject(paper) == "paper: bundle"


def test_the_validate_hook_rejects_an_invalid_staged_review(quest) -> None:
    run = quest.run(quest.root, "main-001")
    assert commit(quest.root, "record").returncode == 0
    review = quest.review(
        quest.root, ["main-001"], cards=[{"card_id": "k", "scope": "team", "action": "new", "target_run_id": run}]
    )
    rejected = commit(quest.root, "artifact: decision review")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0
    assert f"artifacts/decisions/{review}.json" in output
    assert "[review.schema]" in output and "[review.unknown-run]" in output and f"did you mean {run}?" in output


def test_the_validate_hook_lets_a_review_deepscientist_accepts_through(quest) -> None:
    """Issue 13: a card entry without card_id is ds-gate's discipline, not DeepScientist's: the
    checkpoint commits; the full gate still fails on it."""
    run = quest.run(quest.root, "main-001")
    assert commit(quest.root, "record").returncode == 0
    quest.review(quest.root, [run], cards=[{"scope": "global", "action": "new", "target_run_id": run}])
    done = commit(quest.root, "artifact: decision review")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[review.card-id-missing]" in done.stdout + done.stderr  # issue 27: verbose, the warning is seen
    failed = pre_commit(quest.root, "run", "ds-gate-closure-full", "--hook-stage", "manual")
    assert failed.returncode != 0 and "[review.card-id-missing]" in failed.stdout


def test_the_manual_stage_runs_the_full_closure_gate(quest) -> None:
    run = quest.run(quest.root, "main-001")
    assert commit(quest.root, "record").returncode == 0
    failed = pre_commit(quest.root, "run", "ds-gate-closure-full", "--hook-stage", "manual")
    assert failed.returncode != 0 and run in failed.stdout
    quest.review(quest.root, [run])
    assert commit(quest.root, "review").returncode == 0
    passed = pre_commit(quest.root, "run", "ds-gate-closure-full", "--hook-stage", "manual")
    assert passed.returncode == 0, passed.stdout


def test_pre_commit_rejects_a_bad_cross_quest_patch_of_a_card_and_accepts_a_good_one(quest) -> None:
    card = quest.root / "memory" / "knowledge" / "sparse-routing.md"
    owned_by_002 = {
        "id": "knowledge-04942297",
        "type": "knowledge",
        "title": "Sparse routing",
        "quest_id": "002",
        "claim": "Load-balancing loss prevents expert collapse.",
        "confidence": 0.6,
        "lineage": [{"quest": "002", "run": "run-aaaa0001"}],
    }

    def write(meta: dict) -> None:
        card.parent.mkdir(parents=True, exist_ok=True)
        card.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\nBody.\n")

    write(owned_by_002)
    first = commit(quest.root, "memory: lesson from 002")
    assert first.returncode == 0, first.stdout + first.stderr
    assert re.search(r"ds-gate validate \(staged artifacts and memory cards\)\.+Passed", first.stderr)  # not "Skipped"

    reworded = dict(owned_by_002, claim="Load-balancing loss always prevents expert collapse.")
    write(reworded)
    quest.write_quest_yaml(status="completed")  # a finalization commit: the patch is an error there
    rejected = commit(quest.root, "quest: completed")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and head_subject(quest.root) == "memory: lesson from 002"
    assert "ds-gate-closure" in output and "error [patch.claim-changed]" in output
    assert "memory/knowledge/sparse-routing.md" in output
    quest.write_quest_yaml(status="active")
    warned = commit(quest.root, "memory: reword")  # issue 35: main's write_card writes it, so a checkpoint warns
    output = warned.stdout + warned.stderr
    assert warned.returncode == 0 and head_subject(quest.root) == "memory: reword", output
    assert "warning [patch.claim-changed]" in output and "memory/knowledge/sparse-routing.md" in output

    write(dict(reworded, lineage=[*owned_by_002["lineage"], {"quest": "001", "run": "run-bbbb0002"}]))
    accepted = commit(quest.root, "memory: confirm in 001")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert head_subject(quest.root) == "memory: confirm in 001"


def test_the_pre_push_stage_gates_a_finalization_push_with_pre_commits_refs(quest, tmp_path) -> None:
    from helpers import git

    assert pre_commit(quest.root, "install", "--hook-type", "pre-push").returncode == 0
    add_remote(quest.root, tmp_path / "remote.git")
    run = quest.run(quest.root, "main-001")
    assert commit(quest.root, "record").returncode == 0
    assert git(quest.root, "push", "-q", "origin", "main", check=False).returncode == 0  # ordinary: passes

    (quest.root / "paper").mkdir()
    (quest.root / MANIFEST).write_text("{}\n")
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    rejected = git(quest.root, "push", "origin", "main", check=False)
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and "ds-gate push gate" in output and run in output
    assert "PRE_COMMIT" not in output and "Traceback" not in output


def paper_bundle(workspace: Path) -> None:
    """The paper bundle committed with no commit hook run (a cherry-pick, a revert, ``--no-verify``):
    the push gate is what stands between it and the remote."""
    from helpers import git

    (workspace / "paper").mkdir(exist_ok=True)
    (workspace / MANIFEST).write_text('{"title": "t"}\n')
    git(workspace, "add", "paper")
    git(workspace, "commit", "-q", "--no-verify", "-m", "paper: bundle")


@pytest.fixture
def pushing(quest, tmp_path) -> tuple[ExampleQuest, str]:
    """Issue 35 (C): the quest of the fixture with pre-commit's pre-push hook, a remote, and a
    worktree branch ``run/w`` holding a completed run without a review (the run's id)."""
    assert pre_commit(quest.root, "install", "--hook-type", "pre-push").returncode == 0
    add_remote(quest.root, tmp_path / "remote.git")
    pending = quest.run(quest.worktree("run-w", "run/w"), "run-w")
    quest.checkpoint(quest.root / ".ds" / "worktrees" / "run-w", "run w completed")  # ordinary: passes
    return quest, pending


def pushed(quest: ExampleQuest, *refs: str) -> tuple[int, str]:
    from helpers import git

    done = git(quest.root, "push", "origin", *refs, check=False)
    return done.returncode, done.stdout + done.stderr


def on_remote(quest: ExampleQuest, tmp_path: Path, branch: str) -> str:
    from helpers import git

    return git(tmp_path / "remote.git", "rev-parse", "--verify", "-q", branch, check=False).stdout.strip()


def test_under_pre_commit_a_push_of_several_refs_is_judged_whole_not_by_its_first_ref(pushing, tmp_path) -> None:
    """pre-commit names one pushed ref, the first line of git's input that sends new commits
    (git lists them sorted: analysis/a before main). ds-gate judged that one and let the paper
    bundle on main through; now every local tip the remote lacks is judged."""
    from helpers import git

    quest, pending = pushing
    assert pushed(quest, "main", "run/w")[0] == 0  # ordinary: passes
    git(quest.root, "branch", "analysis/a", "main")
    assert pushed(quest, "analysis/a")[0] == 0
    git(quest.root, "switch", "-q", "analysis/a")
    git(quest.root, "commit", "-q", "--allow-empty", "-m", "analysis note")
    git(quest.root, "switch", "-q", "main")
    paper_bundle(quest.root)
    remote_main = on_remote(quest, tmp_path, "main")

    code, output = pushed(quest, "main", "analysis/a")
    assert code != 0 and "ds-gate push gate" in output and pending in output, output
    assert "paper/paper_bundle_manifest.json" in output and "Traceback" not in output
    assert on_remote(quest, tmp_path, "main") == remote_main  # nothing was pushed

    quest.review(quest.root, [pending])  # the run covered: the same push goes
    assert commit(quest.root, "review").returncode == 0
    code, output = pushed(quest, "main", "analysis/a")
    assert code == 0, output


def test_under_pre_commit_a_quests_first_push_is_judged(pushing, tmp_path) -> None:
    """A push whose history reaches a root commit (a quest's first) gets no ref from pre-commit
    at all (``all_files``): ds-gate judged nothing. Now the whole history the remote lacks is."""
    quest, pending = pushing
    paper_bundle(quest.root)
    code, output = pushed(quest, "main")
    assert code != 0 and "ds-gate push gate" in output and pending in output, output
    assert on_remote(quest, tmp_path, "main") == ""

    from helpers import git  # a second remote lacks what origin holds: it is judged for itself

    assert git(quest.root, "push", "-q", "--no-verify", "origin", "main", "run/w").returncode == 0
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "backup.git"))
    git(quest.root, "remote", "add", "backup", str(tmp_path / "backup.git"))
    done = git(quest.root, "push", "backup", "main", check=False)
    assert done.returncode != 0 and pending in done.stdout + done.stderr


def test_under_pre_commit_pushes_that_send_no_finalization_pass(pushing, tmp_path) -> None:
    """The superset costs no false refusal: a first push, a push of several refs with new runs,
    and a push after the remote already holds a finalization (pushed with ``--no-verify``) all
    pass while a completed run is still pending."""
    from helpers import git

    quest, _ = pushing
    code, output = pushed(quest, "main", "run/w")  # the first push: the whole history is judged
    assert code == 0, output
    assert on_remote(quest, tmp_path, "run/w") != ""
    git(quest.root, "branch", "analysis/a", "main")
    quest.run(quest.root, "main-002", status="running")
    assert commit(quest.root, "experiment: main-002").returncode == 0
    quest.run(quest.root / ".ds" / "worktrees" / "run-w", "run-w2", status="running")
    quest.checkpoint(quest.root / ".ds" / "worktrees" / "run-w", "run w2")
    code, output = pushed(quest, "main", "analysis/a", "run/w")
    assert code == 0, output

    paper_bundle(quest.root)
    assert git(quest.root, "push", "-q", "--no-verify", "origin", "main").returncode == 0
    quest.decision(quest.root, "continue")
    assert commit(quest.root, "decision: continue").returncode == 0
    code, output = pushed(quest, "main")  # what the remote holds is not judged again
    assert code == 0, output
