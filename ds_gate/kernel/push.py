"""The pre-push hook's answer for the common push, before any command line is built.

As ``kernel.checkpoint`` does for commits: True only when the full ``pre-push`` (``engine.push``)
would pass and print nothing (no plugin, a plain quest, and no pushed commit touches the
manifest, ``quest.yaml``, also through a link, or a finalizing decision, and no link or gitlink
hides a record or a finalization file: ``hidden``); every doubt answers False. The pushed refs come
from git's pre-push input, which names each of them (the plain hook). Under the pre-commit framework
the hook gets no input: pre-commit names one ref at most (``PRE_COMMIT_TO_REF``), so
``pushed_tips`` judges a superset there (``unpushed_tips``). git gives the input once, so
``ds_gate.__main__`` hands what was read here to the full path.
"""

from __future__ import annotations

import io
import os
import sys

from ds_gate.kernel.catfile import tree_files
from ds_gate.kernel.checkpoint import plain_quest
from ds_gate.kernel.entry_points import any_installed
from ds_gate.kernel.git import DIFF_SAFETY, GitError, git, split_z, started
from ds_gate.kernel.layout import INDEX_NAME, KIND_OF_DIR, MANIFEST, QUEST_YAML, RUNTIME_STATE, is_manifest_name
from ds_gate.kernel.links import FOLLOWED, LINK, ON_THE_WAY, links_at, named_elsewhere, pushed_names

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from ds_gate.kernel.fs import TooLarge

ZERO = frozenset({"0" * 40, "0" * 64})
FRAMEWORK = ("PRE_COMMIT_TO_REF", "PRE_COMMIT_FROM_REF", "PRE_COMMIT_REMOTE_NAME")  # pre-commit's pre-push names
JUDGED_REFS = ("refs/heads/", "refs/tags/")  # besides HEAD: what a push under pre-commit may send
PUSHED_ALONE = ("--remotes",)  # the plain hook: a pushed commit no remote-tracking ref holds yet
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
    """(name, commit id) of each tip git's input (or pre-commit's one variable) names; deletions
    push nothing. Under pre-commit this is not every pushed ref: ``pushed_tips`` adds the rest."""
    to_ref = env.get("PRE_COMMIT_TO_REF")
    if to_ref and not to_ref.startswith("-"):  # a revision, never an option of git log
        remote = env.get("PRE_COMMIT_REMOTE_BRANCH") or "pushed"
        return [(f"push:{remote}", to_ref)]
    return [
        (f"push:{remote_ref}", local_id)
        for _, local_id, remote_ref, _ in pushed_refs(stdin_text)
        if local_id not in ZERO
    ]


def under_framework(env: Mapping[str, str]) -> bool:
    """The pre-commit framework runs this hook: it read git's input itself, and the hook's is empty."""
    return env.get("PRE_COMMIT") == "1" or any(name in env for name in FRAMEWORK)


def remote_holds(env: Mapping[str, str]) -> tuple[str, ...]:
    """The ``--not`` side of a pushed range: what the remote already holds, as its local
    remote-tracking refs say (``docs/threat-model.md``: the agent can forge them; CI is the
    backstop). The plain hook: any remote's, as before. Under pre-commit: the remote pushed to
    (``PRE_COMMIT_REMOTE_NAME``, as pre-commit itself asks: a URL pushed to matches no ref), and
    nothing when it is not known or would be a pattern (then every commit counts)."""
    if not under_framework(env):
        return PUSHED_ALONE
    remote = env.get("PRE_COMMIT_REMOTE_NAME", "")
    if remote and not remote.startswith("-") and not any(c in remote for c in "*?[\\"):
        return (f"--remotes={remote}",)  # refs/remotes/<remote>/*
    return ()


def pushed_tips(cwd: str, env: Mapping[str, str], stdin_text: str) -> list[tuple[str, str]]:
    """(name, commit id) of each tip to judge. The plain hook: what git's input names. Under
    pre-commit, which names one ref at most (the first line of git's input that sends new
    commits; none when the history pushed reaches a root commit, a quest's first push), the
    hook cannot know what the push sends, so it judges a superset, failing closed: besides
    that ref, every local branch, tag and HEAD holding a commit the remote lacks."""
    pushes = pushes_from(env, stdin_text)
    if not under_framework(env):
        return pushes
    seen = {tip for _, tip in pushes}
    return pushes + [(name, tip) for name, tip in unpushed_tips(cwd, remote_holds(env)) if tip not in seen]


def unpushed_tips(cwd: str, holds: Sequence[str]) -> list[tuple[str, str]]:
    """(``unpushed:<ref>``, commit id) of each branch, tag and HEAD whose commit ``holds``
    (``remote_holds``) lack, one per commit: one ``show-ref`` and one ``rev-list``."""
    listing = started(["show-ref", "--head", "--dereference"], cwd)
    try:
        try:
            unpushed = git(["rev-list", "--branches", "--tags", "HEAD", "--not", *holds], cwd)
        except GitError:  # HEAD names no commit yet (an unborn branch): the refs alone
            unpushed = git(["rev-list", "--branches", "--tags", "--not", *holds], cwd)
    finally:
        try:
            refs: bytes | GitError = listing()
        except GitError as exc:  # show-ref fails when there is no ref at all
            refs = exc
    lacked = set(unpushed.decode("ascii").split())
    if isinstance(refs, GitError):
        if lacked:  # commits to judge and no ref naming them: never a pass
            raise refs
        return []
    tips: dict[str, str] = {}  # commit id -> the first ref naming it: a branch, a tag, else HEAD
    lines = refs.decode("utf-8", "surrogateescape").splitlines()
    for line in sorted(lines, key=lambda line: line.endswith(" HEAD")):  # stable: git's order, HEAD last
        oid, _, name = line.partition(" ")
        name = name.removesuffix("^{}")  # an annotated tag, peeled to the commit it names
        if oid in lacked and (name == "HEAD" or name.startswith(JUDGED_REFS)):
            tips.setdefault(oid, f"unpushed:{name}")
    return [(name, oid) for oid, name in tips.items()]


def names_in_range(root: Path | str, tip: str, holds: Sequence[str] = PUSHED_ALONE) -> list[str]:
    """Files touched by the commits of ``tip`` that ``holds`` (``remote_holds``) lack. A merge is
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
            *holds,
        ],
        root,
    )
    return sorted(set(split_z(out)))


def hook_passes(args: Sequence[str]) -> bool:
    """True when ``args`` are the push hook's own call (``pre-push [<remote> [<url>]]``: git's,
    or pre-commit's, which passes none) and the push passes silently (``push_passes``), for
    ``ds_gate.__main__`` and the console script alike. git gives its input once: what was read
    is put back on ``sys.stdin`` for the full path."""
    if list(args[:1]) != ["pre-push"] or len(args) > 3 or any(a.startswith("-") for a in args[1:]):
        return False
    pushed = read_stdin()
    sys.stdin = io.StringIO(pushed)
    return push_passes(".", pushed)


def push_passes(cwd: str, stdin_text: str) -> bool:
    """True when the hook's ``pre-push`` in ``cwd``, given git's input, passes silently:
    nothing pushed finalizes."""
    if any_installed():
        return False
    listing = started(["worktree", "list", "--porcelain", "-z"], cwd)  # git answers while the pushes are read
    sends_nothing = False
    try:
        holds = remote_holds(os.environ)
        pushes = pushed_tips(cwd, os.environ, stdin_text)
        sends_nothing = all(_sends_nothing_final(cwd, tip, holds) for _, tip in pushes)
    finally:
        worktrees = listing()  # always: git is reaped
    return sends_nothing and plain_quest(cwd, worktrees)


def _sends_nothing_final(cwd: str, tip: str, holds: Sequence[str]) -> bool:
    """The commits up to ``tip`` touch no finalization file (as ``rules.finalization.push_reasons``
    reads them: the manifest, ``quest.yaml`` and ``.ds/runtime_state.json``, also through a link,
    a finalizing decision in any ``.json`` file at ``tip``, a link or gitlink where one would
    be); a file named as the manifest at any depth is left to the full path, which reads the
    workspace roots ``research_state.json`` names."""
    names = names_in_range(cwd, tip, holds)
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
