"""The pre-push hook's answer for the common push, before any command line is built.

As ``kernel.checkpoint`` does for commits: True only when the full ``pre-push`` (``engine.push``)
would pass and print nothing (no plugin, a plain quest, and no pushed commit touches the
manifest, ``quest.yaml``, also through a link, or a finalizing decision); every doubt answers
False. The pushed refs come from git's pre-push input or pre-commit's ``PRE_COMMIT_FROM_REF`` /
``PRE_COMMIT_TO_REF``; git gives the input once, so ``ds_gate.__main__`` hands what was read here
to the full path.
"""

from __future__ import annotations

import os
import sys

from ds_gate.kernel.catfile import tree_files
from ds_gate.kernel.checkpoint import plain_quest
from ds_gate.kernel.entry_points import any_installed
from ds_gate.kernel.git import DIFF_SAFETY, git, split_z, started
from ds_gate.kernel.layout import MANIFEST, QUEST_YAML
from ds_gate.kernel.links import FOLLOWED, LINK, ON_THE_WAY, links_at, named_elsewhere, pushed_names

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from ds_gate.kernel.fs import TooLarge

ZERO = frozenset({"0" * 40, "0" * 64})


def read_stdin() -> str:
    """git's pre-push input (none under pre-commit, which names the refs in the environment)."""
    if sys.stdin is None or sys.stdin.isatty() or "PRE_COMMIT_TO_REF" in os.environ:
        return ""
    return sys.stdin.read()


def pushed_refs(stdin_text: str) -> list[tuple[str, str, str, str]]:
    """git's pre-push input: (local ref, local id, remote ref, remote id) per line."""
    return [(p[0], p[1], p[2], p[3]) for p in (line.split() for line in stdin_text.splitlines()) if len(p) == 4]


def pushes_from(env: Mapping[str, str], stdin_text: str) -> list[tuple[str, str]]:
    """(name, commit id) of each pushed tip; deletions push nothing."""
    to_ref = env.get("PRE_COMMIT_TO_REF")
    if to_ref:
        remote = env.get("PRE_COMMIT_REMOTE_BRANCH") or "pushed"
        return [(f"push:{remote}", to_ref)]
    return [
        (f"push:{remote_ref}", local_id)
        for _, local_id, remote_ref, _ in pushed_refs(stdin_text)
        if local_id not in ZERO
    ]


def names_in_range(root: Path | str, tip: str) -> list[str]:
    """Files touched by the commits of ``tip`` that no remote-tracking ref has yet. A merge is
    judged by what it changes against each of its parents (``--diff-merges=separate``, named so
    that no ``log.diffMerges`` of the quest's config applies): plain ``--name-only`` lists no
    file for a merge, so a merge bringing the manifest in would finalize unseen."""
    out = git(
        [
            "log",
            "--no-show-signature",
            *DIFF_SAFETY,
            "-z",
            "--format=",
            "--name-only",
            "--no-renames",
            "--diff-merges=separate",
            tip,
            "--not",
            "--remotes",
        ],
        root,
    )
    return sorted(set(split_z(out)))


def push_passes(cwd: str, stdin_text: str) -> bool:
    """True when the hook's ``pre-push`` in ``cwd``, given git's input, passes silently:
    nothing pushed finalizes."""
    if any_installed():
        return False
    listing = started(["worktree", "list", "--porcelain", "-z"], cwd)  # git answers while the pushes are read
    sends_nothing = False
    try:
        sends_nothing = all(_sends_nothing_final(cwd, tip) for _, tip in pushes_from(os.environ, stdin_text))
    finally:
        worktrees = listing()  # always: git is reaped
    return sends_nothing and plain_quest(cwd, worktrees)


def _sends_nothing_final(cwd: str, tip: str) -> bool:
    """The commits up to ``tip`` touch no finalization file (as ``rules.finalization.push_reasons``
    reads them: the manifest and ``quest.yaml``, also through a link, a finalizing decision in
    any ``.json`` file at ``tip``)."""
    names = names_in_range(cwd, tip)
    if not names:
        return True
    if MANIFEST in names:
        return False
    files = json_files(names)
    if QUEST_YAML not in names and not files and not any(named_elsewhere(p, names) for p in FOLLOWED):
        return not links_at(cwd, tip)  # the common push: only a link could bring quest.yaml or the manifest in
    blobs, linked = tip_blobs(cwd, tip, files)
    names = pushed_names(cwd, tip, names, blobs, linked)
    if MANIFEST in names:
        return False
    # kernel.lazy.LAZY_PLACES: the finalization readers load only when quest.yaml or JSON files are pushed
    from ds_gate.kernel.finalizing import finalizing_reason, may_say_completed

    if QUEST_YAML in names:  # a quest's first push sends it: fine when its bytes cannot say completed
        raw = blobs[f"{tip}:{QUEST_YAML}"]
        if not isinstance(raw, bytes) or may_say_completed(raw):
            return False
    return not any(
        isinstance(raw, bytes) and finalizing_reason(n, raw) for n, raw in ((n, blobs[f"{tip}:{n}"]) for n in files)
    )


def tip_blobs(cwd: str, tip: str, files: list[str]) -> tuple[dict[str, bytes | TooLarge | None], bool]:
    """``files`` and ``quest.yaml`` at ``tip`` (keyed ``<tip>:<path>``), and whether a link there
    lies on the way to a file of ``FOLLOWED``: one ``ls-tree`` and one ``cat-file --batch``."""
    blobs, modes = tree_files(cwd, tip, [*files, QUEST_YAML], ON_THE_WAY)
    return {f"{tip}:{n}": raw for n, raw in blobs.items()}, LINK in modes.values()


def json_files(names: list[str]) -> list[str]:
    """The ``.json`` files among pushed ``names``: a finalizing decision can be any of them
    (``kernel.finalizing``), so each is read at the pushed tip (the manifest is asked apart)."""
    return [n for n in names if n.endswith(".json") and n != MANIFEST]
