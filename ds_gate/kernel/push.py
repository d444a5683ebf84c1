"""The pre-push hook's answer for the common push, before any command line is built.

As ``kernel.checkpoint`` does for commits: True only when the full ``pre-push`` (``engine.push``)
would pass and print nothing (no plugin, a plain quest, and no pushed commit touches the
manifest, ``quest.yaml``, also through a link, or a finalizing decision, and no link or gitlink
hides a record or a finalization file: ``hidden``); every doubt answers False. The pushed refs come from git's pre-push input or pre-commit's ``PRE_COMMIT_FROM_REF`` /
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
from ds_gate.kernel.layout import INDEX_NAME, KIND_OF_DIR, MANIFEST, QUEST_YAML, RUNTIME_STATE, is_manifest_name
from ds_gate.kernel.links import FOLLOWED, LINK, ON_THE_WAY, links_at, named_elsewhere, pushed_names

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from ds_gate.kernel.fs import TooLarge

ZERO = frozenset({"0" * 40, "0" * 64})
GITLINK = "160000"  # a nested repository committed: only a commit id, no files to read
ARTIFACTS = "artifacts"


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
    reads them: the manifest, ``quest.yaml`` and ``.ds/runtime_state.json``, also through a link,
    a finalizing decision in any ``.json`` file at ``tip``, a link or gitlink where one would
    be); a file named as the manifest at any depth is left to the full path, which reads the
    workspace roots ``research_state.json`` names."""
    names = names_in_range(cwd, tip)
    if not names:
        return True
    if any(is_manifest_name(name) for name in names):  # at any depth: a workspace root research_state.json names
        return False
    files, places = json_files(names), hiding_places(names)
    if QUEST_YAML not in names and not files and not places and not any(named_elsewhere(p, names) for p in FOLLOWED):
        return not links_at(cwd, tip)  # the common push: only a link could bring quest.yaml or the manifest in
    blobs, modes = tip_blobs(cwd, tip, files, places)
    if hidden(places, modes):
        return False
    names = pushed_names(cwd, tip, names, blobs, linked(modes))
    if MANIFEST in names:
        return False
    # kernel.lazy.LAZY_PLACES: the finalization readers load only when quest.yaml or JSON files are pushed
    from ds_gate.kernel.finalizing import completed_keys, finalizing_reason, may_say_completed

    if QUEST_YAML in names:  # a quest's first push sends it: fine when its bytes cannot say completed
        raw = blobs[f"{tip}:{QUEST_YAML}"]
        if not isinstance(raw, bytes) or may_say_completed(raw):
            return False
    if RUNTIME_STATE in names:  # completed at the tip (through a link too), as rules.finalization.push_reasons reads it
        raw = blobs.get(f"{tip}:{RUNTIME_STATE}")
        if not isinstance(raw, bytes) or completed_keys(raw):
            return False
    return not any(
        isinstance(raw, bytes) and finalizing_reason(n, raw) for n, raw in ((n, blobs[f"{tip}:{n}"]) for n in files)
    )


def tip_blobs(
    cwd: str, tip: str, files: list[str], places: Sequence[str] = ()
) -> tuple[dict[str, bytes | TooLarge | None], dict[str, str]]:
    """``files`` and ``quest.yaml`` at ``tip`` (keyed ``<tip>:<path>``), and the mode there of
    each of ``places`` and of each path on the way to a file of ``FOLLOWED`` that exists: one
    ``ls-tree`` and one ``cat-file --batch``. A link's blob is its target's name, never followed."""
    blobs, modes = tree_files(cwd, tip, [*files, QUEST_YAML], [*ON_THE_WAY, *places])
    return {f"{tip}:{n}": raw for n, raw in blobs.items()}, modes


def linked(modes: Mapping[str, str]) -> bool:
    """A link at ``tip_blobs``' modes lies on the way to a file of ``FOLLOWED`` (then it is followed)."""
    return any(modes.get(path) == LINK for path in ON_THE_WAY)


def hiding_places(names: list[str]) -> list[str]:
    """The pushed paths where a link or a gitlink would hide what the gate must read: a record's
    place as ``closure --from-git`` walks it (``artifacts``, a record folder, the index,
    ``artifacts/<folder>/<name>.json``: any ``.json`` may be a finalizing decision) and the
    way to ``quest.yaml`` or the manifest."""
    return [name for name in names if name in ON_THE_WAY or _record_place(name.split("/"))]


def _record_place(parts: list[str]) -> bool:
    if parts[0] != ARTIFACTS:
        return False
    if len(parts) == 2:
        return parts[1] in KIND_OF_DIR or parts[1] == INDEX_NAME
    return len(parts) == 1 or (len(parts) == 3 and parts[2].endswith(".json"))


def hidden(places: list[str], modes: Mapping[str, str]) -> list[tuple[str, str]]:
    """(path, mode) of each of ``places`` the gate cannot read through at the tip: a link or a
    gitlink at a record's place (``closure --from-git`` stops on it: ``git.symlink-in-tree``),
    a gitlink on the way to ``quest.yaml`` or the manifest (a link there is followed inside
    the quest: ``kernel.links``). The push is then gated as finalizing, never let through."""
    return [
        (path, modes[path])
        for path in places
        if modes.get(path) == GITLINK or (modes.get(path) == LINK and path not in ON_THE_WAY)
    ]


def json_files(names: list[str]) -> list[str]:
    """The ``.json`` files among pushed ``names``: a finalizing decision can be any of them
    (``kernel.finalizing``), so each is read at the pushed tip (the manifest is asked apart)."""
    return [n for n in names if n.endswith(".json") and n != MANIFEST]
