"""Issue 36 (adversary round 2, break 04 and the pre-push design gaps): where a pushed link or
gitlink hides a record or a finalization file, the pre-push gate cannot read what it hides, so
it gates the push as finalizing, never lets it through unseen.

A finalize decision committed as a link (``artifacts/decisions/x.json -> ../../final.txt``)
stops the push the way ``closure --from-git`` stops on the same tree (``git.symlink-in-tree``,
exit 2, the fix); a gitlink at ``paper`` or at the manifest is gated as a paper bundle. Real
git, a bare remote, the installed hook; an ordinary push still goes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.push import push_passes

from helpers import add_remote, git

MANIFEST = "paper/paper_bundle_manifest.json"
LINKED = "artifacts/decisions/decision-f2.json"


def ds(*args: str, cwd: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", *args], cwd=cwd, input=stdin, capture_output=True, text=True
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def pushed(make_quest, tmp_path) -> tuple[ExampleQuest, Path]:
    """Quest 001 with its main pushed to a bare remote, the hooks installed, then a completed
    run committed on main that no review covers (an ordinary checkpoint: it goes)."""
    quest = make_quest()
    remote = add_remote(quest.root, tmp_path / "remote.git")
    git(quest.root, "push", "-q", "origin", "main")
    assert main(["install", str(quest.root)]) == 0
    quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "experiment: main-001")
    return quest, remote


def finalize_decision(quest: ExampleQuest) -> dict[str, object]:
    return {"kind": "decision", "artifact_id": "decision-f2", "action": "finalize", "quest_id": quest.quest_id}


def link_the_decision(quest: ExampleQuest, tmp_path: Path, where: str) -> None:
    """A finalize decision committed as a link, inside the quest or out of it (`--no-verify`:
    the commit hook refuses the link as a record that does not parse)."""
    text = json.dumps(finalize_decision(quest))
    if where == "inside":
        (quest.root / "final.txt").write_text(text)
        target = "../../final.txt"
    else:
        (tmp_path / "final.json").write_text(text)
        target = str(tmp_path / "final.json")
    (quest.root / LINKED).parent.mkdir(parents=True, exist_ok=True)
    (quest.root / LINKED).symlink_to(target)
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "decision through a link")


def pre_push(quest: ExampleQuest) -> subprocess.CompletedProcess[str]:
    """``ds-gate pre-push`` as the hook runs it, given git's input for a push of main."""
    head = git(quest.root, "rev-parse", "HEAD").stdout.strip()
    return ds("pre-push", "origin", "url", cwd=quest.root, stdin=f"refs/heads/main {head} refs/heads/main {'0' * 40}\n")


@pytest.mark.slow
@pytest.mark.parametrize("where", ["inside", "out of the quest"])
def test_a_finalize_decision_committed_as_a_link_stops_the_push_as_closure_stops(pushed, tmp_path, where) -> None:
    quest, remote = pushed
    before = git(remote, "rev-parse", "main").stdout
    link_the_decision(quest, tmp_path, where)
    refused = git(quest.root, "push", "origin", "main", check=False)
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0 and git(remote, "rev-parse", "main").stdout == before, output
    assert f"{LINKED}: [git.symlink-in-tree]" in output and "commit the record itself, not a link to it" in output
    stopped = pre_push(quest)
    assert stopped.returncode == 2, stopped.stdout + stopped.stderr
    closure = ds("closure", "--from-git", cwd=quest.root, stdin="")  # the same tree, the same stop
    assert closure.returncode == 2 and "[git.symlink-in-tree]" in closure.stderr and LINKED in closure.stderr
    # the fix the message names: the record itself, then the push is judged (a run is pending: refused)
    (quest.root / LINKED).unlink()
    (quest.root / LINKED).write_text(json.dumps(finalize_decision(quest)))
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "the decision itself")
    judged = pre_push(quest)
    assert judged.returncode == 1 and "main-001" in judged.stdout + judged.stderr, judged.stdout + judged.stderr


def test_the_fast_path_does_not_pass_a_link_where_a_record_would_be(pushed, tmp_path, monkeypatch) -> None:
    quest, _ = pushed
    monkeypatch.delenv("PRE_COMMIT_TO_REF", raising=False)
    head = git(quest.root, "rev-parse", "HEAD").stdout.strip()
    assert push_passes(str(quest.root), f"refs/heads/main {head} refs/heads/main {'0' * 40}\n")  # ordinary: passes
    link_the_decision(quest, tmp_path, "inside")
    head = git(quest.root, "rev-parse", "HEAD").stdout.strip()
    assert not push_passes(str(quest.root), f"refs/heads/main {head} refs/heads/main {'0' * 40}\n")


def nested_paper(quest: ExampleQuest, at: str) -> None:
    """A nested repository holding the manifest committed as a gitlink at ``at``: the
    pushing workspace shows a paper bundle, the pushed tree only a commit id."""
    folder = quest.root / at
    folder.mkdir(parents=True)
    bundle = folder / "paper_bundle_manifest.json" if at == "paper" else folder / "manifest.json"
    bundle.write_text(json.dumps({"package_type": "paper_draft_checkpoint"}) + "\n")
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "bundle")
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    assert git(quest.root, "ls-tree", "HEAD", "--", at).stdout.startswith("160000 commit")


@pytest.mark.slow
@pytest.mark.parametrize("at", ["paper", MANIFEST])
def test_a_gitlink_at_the_paper_bundle_is_gated_as_a_paper_bundle(pushed, at) -> None:
    quest, remote = pushed
    before = git(remote, "rev-parse", "main").stdout
    nested_paper(quest, at)
    refused = git(quest.root, "push", "origin", "main", check=False)
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0 and git(remote, "rev-parse", "main").stdout == before, output
    assert f"{at} (a gitlink" in output and "main-001" in output, output


@pytest.mark.slow
def test_an_ordinary_push_of_runs_and_odd_files_still_goes(pushed) -> None:
    quest, remote = pushed
    (quest.root / "notes.json").symlink_to("quest.yaml")  # a link that is no record's place
    (quest.root / "artifacts" / "runs" / "extra").mkdir()
    (quest.root / "artifacts" / "runs" / "extra" / "deep.json").symlink_to("../../../quest.yaml")  # below records
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "notes")
    done = git(quest.root, "push", "origin", "main", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(remote, "rev-parse", "main").stdout == git(quest.root, "rev-parse", "main").stdout
