"""What kind of clone a quest is (issue 15.13): the git version that may read a partial
clone, and the configuration that says a clone is partial, shallow or single-branch."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ds_gate.sources.clone import (
    CloneConfig,
    clone_blindness,
    is_partial,
    lazy_fetch_safe,
    parse_version,
    version,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("git version 2.39.5", (2, 39, 5)),
    ("git version 2.39.3 (Apple Git-146)", (2, 39, 3)),
    ("git version 2.45.1.windows.1", (2, 45, 1)),
    ("git version 2.40.0-rc1", (2, 40, 0)),
    ("git version", ()),
    ("", ()),
])
def test_git_versions_are_read_from_what_git_prints(text: str, expected: tuple[int, ...]) -> None:
    assert parse_version(text) == expected


@pytest.mark.parametrize(("found", "safe"), [
    ((2, 39, 4), True), ((2, 39, 5), True), ((2, 40), True), ((3, 0, 0), True),
    ((2, 39, 3), False), ((2, 38, 9), False), ((1, 9), False), ((), False), ((2,), False),
])
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
    assert (is_partial(root), clone_blindness(root)) == (False, None)
    git(root, "remote", "add", "origin", "https://example.invalid/quest.git")
    assert clone_blindness(root) is None  # fetches every branch
    git(root, "config", "remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/main")
    assert "some branches" in (clone_blindness(root) or "")
    git(root, "config", "remote.origin.promisor", "true")
    git(root, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "idea/a")
    for where in (root, tmp_path / "wt"):
        config = CloneConfig(where)
        assert config.partial and not config.shallow, where
        assert config.fetch_specs == ["+refs/heads/main:refs/remotes/origin/main"], where
