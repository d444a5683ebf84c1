"""What kind of clone a quest is (issue 15.13): the git version that may read a partial
clone, and the configuration that says a clone is partial, shallow or single-branch."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ds_gate.sources.clone import (
    CloneConfig,
    _remote_specs,
    blindness,
    fetched_everything,
    is_partial,
    lazy_fetch_safe,
    narrow_fetch,
    parse_version,
    version,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("git version 2.39.5", (2, 39, 5)),
        ("git version 2.39.3 (Apple Git-146)", (2, 39, 3)),
        ("git version 2.45.1.windows.1", (2, 45, 1)),
        ("git version 2.40.0-rc1", (2, 40, 0)),
        ("git version", ()),
        ("", ()),
    ],
)
def test_git_versions_are_read_from_what_git_prints(text: str, expected: tuple[int, ...]) -> None:
    assert parse_version(text) == expected


@pytest.mark.parametrize(
    ("found", "safe"),
    [
        ((2, 39, 4), True),
        ((2, 39, 5), True),
        ((2, 40), True),
        ((3, 0, 0), True),
        ((2, 39, 3), False),
        ((2, 38, 9), False),
        ((1, 9), False),
        ((), False),
        ((2,), False),
    ],
)
def test_a_partial_clone_is_read_only_by_a_git_that_honours_no_lazy_fetch(found: tuple[int, ...], safe: bool) -> None:
    assert lazy_fetch_safe(found) is safe


def test_the_installed_git_is_read_and_compared() -> None:
    found = version()
    assert len(found) >= 2 and found[0] >= 2


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_a_clone_says_what_it_is_from_its_configuration(tmp_path: Path) -> None:
    """Read from ``.git/config`` where ``.git`` is a folder, asked of git from a worktree: the
    same answers either way."""
    root = tmp_path / "quest"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "start")
    assert (is_partial(root), blindness(root)) == (False, None)
    git(root, "remote", "add", "origin", "https://example.invalid/quest.git")
    assert blindness(root) is None  # fetches every branch
    git(root, "config", "remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/main")
    assert "some branches" in (blindness(root) or ("",))[0]
    git(root, "config", "remote.origin.promisor", "true")
    git(root, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "idea/a")
    for where in (root, tmp_path / "wt"):
        config = CloneConfig(where)
        assert config.partial and not config.shallow, where
        assert config.fetch_specs == ["+refs/heads/main:refs/remotes/origin/main"], where


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("fetch", True),  # the configured refspecs
        ("fetch -q origin", True),
        ("fetch --all", True),
        ("fetch --multiple origin upstream", True),
        (
            "fetch --prune --no-recurse-submodules origin +refs/heads/*:refs/remotes/origin/* +refs/tags/*:refs/tags/*",
            True,
        ),
        ("fetch --depth 1 origin", True),  # a depth is the shallow file's business, not a refspec
        ("fetch --jobs 4 origin refs/heads/*:refs/remotes/origin/*", True),
        ("fetch -q origin +refs/heads/main:refs/remotes/origin/main", False),
        ("fetch origin +refs/pipelines/7:refs/pipelines/7 +refs/heads/main:refs/remotes/origin/main", False),
        ("fetch file:///srv/quest main", False),
        ("pull origin main", False),
        ("update by push", None),
        ("branch: Created from HEAD", None),
        ("", None),
    ],
)
def test_a_reflog_entry_says_whether_its_fetch_took_every_branch(action: str, expected: bool | None) -> None:
    assert fetched_everything(action) == expected


@given(st.text())
def test_any_reflog_action_is_classified_without_an_error(action: str) -> None:
    assert fetched_everything(action) in (True, False, None)


def test_each_remote_has_its_own_refspecs() -> None:
    config = (
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = x\n\tfetch = +refs/heads/main:refs/remotes/origin/main\n'
        '[remote "a b"]\n\tfetch = +refs/heads/*:refs/remotes/ab/*\n[branch "main"]\n\tremote = origin\n'
    )
    assert _remote_specs(config) == {
        "origin": ["+refs/heads/main:refs/remotes/origin/main"],
        "a b": ["+refs/heads/*:refs/remotes/ab/*"],
    }


def reflog(path: Path, *actions: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    zero = "0" * 40
    path.write_text(
        "".join(f"{zero} {'1' * 40} A <a@b.invalid> 1700000000 +0000\t{a}: storing head\n" for a in actions)
    )


def test_a_clone_is_fetched_by_name_only_when_no_fetch_took_every_branch(tmp_path: Path) -> None:
    common = tmp_path / ".git"
    assert narrow_fetch(common) is None  # no reflog at all: the configuration decides
    reflog(common / "logs" / "HEAD", "checkout")
    reflog(
        common / "logs" / "refs" / "remotes" / "origin" / "main",
        "fetch origin +refs/heads/main:refs/remotes/origin/main",
    )
    assert narrow_fetch(common) == "fetch origin +refs/heads/main:refs/remotes/origin/main"
    reflog(common / "logs" / "refs" / "remotes" / "origin" / "idea" / "a", "fetch origin")  # a later fetch of all
    assert narrow_fetch(common) is None
    (common / "logs" / "refs" / "remotes" / "origin" / "idea" / "a").unlink()
    for start in ("clone: from /srv/quest", "commit (initial): quest: create"):  # a clone, or the original quest
        reflog(common / "logs" / "HEAD", start)
        assert narrow_fetch(common) is None


def test_a_reflog_action_cannot_close_the_code_span_it_is_shown_in(tmp_path: Path) -> None:
    """The action is quoted in a stop's cause inside backticks: a backtick or a control byte in
    the agent's reflog shows as ``?``, so the span stays one span in every reporter."""
    common = tmp_path / ".git"
    reflog(common / "logs" / "HEAD", "checkout")
    reflog(common / "logs" / "refs" / "remotes" / "origin" / "main", "fetch origin `x`\x1b[2J:y")
    assert narrow_fetch(common) == "fetch origin ?x??[2J:y"
