"""Issue 35 (root C, a finalization in a push, pre-commit route): which tips the pre-push gate
judges, from what it is told. git's input names every pushed ref (the plain hook, unchanged);
pre-commit names one at most (``PRE_COMMIT_TO_REF``) and none for a quest's first push, so under
it the gate judges every branch, tag and HEAD holding a commit the remote pushed to lacks, and
the whole history when that remote is not known. Real git repositories, no hook process (the
pushes through the real pre-commit are in ``test_pre_commit.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.push import PUSHED_ALONE, push_passes, pushed_tips, remote_holds, unpushed_tips

from helpers import add_remote, git

MANIFEST = "paper/paper_bundle_manifest.json"
FRAMEWORK = {"PRE_COMMIT": "1", "PRE_COMMIT_REMOTE_NAME": "origin", "PRE_COMMIT_REMOTE_URL": "x"}


def rev(cwd: Path, name: str) -> str:
    return git(cwd, "rev-parse", name).stdout.strip()


@pytest.fixture
def quest(make_quest, tmp_path) -> ExampleQuest:
    """Quest 001 with main pushed to ``origin`` (and its remote-tracking ref)."""
    quest = make_quest()
    add_remote(quest.root, tmp_path / "remote.git")
    git(quest.root, "push", "-q", "origin", "main")
    return quest


def empty_commit(cwd: Path, message: str) -> str:
    git(cwd, "commit", "-q", "--allow-empty", "--no-verify", "-m", message)
    return rev(cwd, "HEAD")


@pytest.mark.parametrize(
    ("env", "holds"),
    [
        ({}, PUSHED_ALONE),  # the plain hook: as before
        ({"PRE_COMMIT": "1"}, ()),  # pre-commit, remote unknown (a manual `pre-commit run`): everything
        ({"PRE_COMMIT_TO_REF": "abc"}, ()),
        (FRAMEWORK, ("--remotes=origin",)),
        ({**FRAMEWORK, "PRE_COMMIT_REMOTE_NAME": "o*"}, ()),  # a pattern would exclude other remotes
        ({**FRAMEWORK, "PRE_COMMIT_REMOTE_NAME": "--all"}, ()),  # never an option of git
    ],
)
def test_what_the_remote_holds_comes_from_the_remote_pushed_to(env: dict[str, str], holds: tuple[str, ...]) -> None:
    assert remote_holds(env) == holds


def test_the_plain_hook_judges_exactly_what_gits_input_names(quest: ExampleQuest) -> None:
    git(quest.root, "switch", "-q", "-c", "analysis/a")
    empty_commit(quest.root, "elsewhere")  # a branch with commits the remote lacks, not pushed
    git(quest.root, "switch", "-q", "main")
    head = empty_commit(quest.root, "pushed")
    stdin = f"refs/heads/main {head} refs/heads/main {rev(quest.root, 'origin/main')}\n"
    assert pushed_tips(str(quest.root), {}, stdin) == [("push:refs/heads/main", head)]


def test_under_pre_commit_every_tip_the_remote_lacks_is_judged(quest: ExampleQuest) -> None:
    """A branch, an annotated tag and a tag of a tag on a commit no branch holds, a detached
    HEAD: each is judged once; a branch the remote holds is not; the named ref comes first."""
    root = str(quest.root)
    git(quest.root, "branch", "pushed-already", "main")
    git(quest.root, "push", "-q", "origin", "pushed-already")
    git(quest.root, "switch", "-q", "-c", "analysis/a")
    analysis = empty_commit(quest.root, "analysis")
    tagged = empty_commit(quest.root, "tagged")
    git(quest.root, "tag", "-a", "-m", "t", "t1")
    git(quest.root, "tag", "-a", "-m", "t", "t2", "t1")
    git(quest.root, "reset", "-q", "--hard", analysis)  # the tagged commit is on no branch now
    git(quest.root, "switch", "-q", "--detach", "main")
    detached = empty_commit(quest.root, "detached")
    env = {**FRAMEWORK, "PRE_COMMIT_TO_REF": analysis, "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/analysis/a"}

    tips = pushed_tips(root, env, "")
    assert tips[0] == ("push:refs/heads/analysis/a", analysis)  # what pre-commit names, then the superset
    assert sorted(tips[1:]) == [("unpushed:HEAD", detached), ("unpushed:refs/tags/t1", tagged)]
    assert ("unpushed:refs/heads/main", rev(root, "main")) not in tips  # the remote holds it
    assert unpushed_tips(root, ()) and len(unpushed_tips(root, ())) > len(unpushed_tips(root, remote_holds(env)))


def test_under_pre_commit_a_first_push_judges_the_whole_history(make_quest, tmp_path) -> None:
    """No remote-tracking ref yet, and pre-commit names no ref: every local tip is judged."""
    quest = make_quest()
    add_remote(quest.root, tmp_path / "remote.git")
    git(quest.root, "branch", "run/w", "main")
    tips = pushed_tips(str(quest.root), {**FRAMEWORK, "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/main"}, "")
    assert tips == [("unpushed:refs/heads/main", rev(quest.root, "main"))]  # one per commit: run/w is main


def test_an_option_in_pre_commits_variable_is_never_given_to_git(quest: ExampleQuest) -> None:
    tips = pushed_tips(str(quest.root), {**FRAMEWORK, "PRE_COMMIT_TO_REF": "--output=/tmp/x"}, "")
    assert all(not tip.startswith("-") for _, tip in tips)


def test_the_kernels_answer_under_pre_commit_sees_a_finalization_on_any_branch(
    quest: ExampleQuest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel's fast answer (``push_passes``) takes the same superset: a paper bundle on a
    branch pre-commit does not name is no silent pass; an ordinary push is."""
    root = str(quest.root)
    for name in ("PRE_COMMIT", "PRE_COMMIT_TO_REF", "PRE_COMMIT_FROM_REF", "PRE_COMMIT_REMOTE_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PRE_COMMIT", "1")
    monkeypatch.setenv("PRE_COMMIT_REMOTE_NAME", "origin")
    quest.run(quest.root, "main-002", status="running")
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "experiment")
    monkeypatch.setenv("PRE_COMMIT_TO_REF", rev(root, "main"))
    assert push_passes(root, "")  # ordinary

    git(quest.root, "switch", "-q", "-c", "paper/p")
    (quest.root / "paper").mkdir()
    (quest.root / MANIFEST).write_text("{}\n")
    git(quest.root, "add", "paper")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    git(quest.root, "switch", "-q", "main")
    assert not push_passes(root, "")  # main is what pre-commit names; paper/p holds the bundle
    # git's input, if any, is judged besides the superset, never instead of it
    assert not push_passes(root, f"refs/heads/main {rev(root, 'main')} refs/heads/main {rev(root, 'origin/main')}\n")
