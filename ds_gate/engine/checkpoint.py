"""The commit hook's answer for the common checkpoints, before any command line is built.

DeepScientist commits after nearly every step, and each commit runs the hook. Most stage
nothing the gate looks at; most of the others stage a new run or decision record that is
fine. Both must pass silently and cheaply: the full path (argparse, ``locate``, the model's
dataclasses, the reporter) costs ~45 ms a commit, where a minimal hook costs ~11.

``checkpoint_passes`` says True only when the full ``commit-check`` would pass and print
nothing; False means only "take the full path", which then decides and reports exactly as
it always did. So every doubt answers False: a card, ``quest.yaml``, the manifest, an
installed plugin, a configured quest (``.ds-gate.yaml`` or ``pyproject.toml``: waivers,
decision actions), a finalizing decision, a staged file that cannot be read or is over the
size limit, a review, any record with a finding or that might have one, a folder ``locate``
would refuse, and any exception. The records are judged by ``rules.clean``, which asks the
same questions as the full rules through the same functions.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ds_gate.engine.commit import REPORTS, _gated, _may_be_review
from ds_gate.engine.quest_yaml_links import staged_names
from ds_gate.kernel.git import cat_file, started
from ds_gate.kernel.gitpaths import staged_changes
from ds_gate.kernel.layout import MANIFEST, QUEST_YAML, is_artifact_record, is_card

if TYPE_CHECKING:
    from ds_gate.kernel.fs import TooLarge

# waivers.FILE and config.PYPROJECT, spelt here because importing either costs the model's
# dataclasses; tests/acceptance/test_checkpoint_fast_path.py holds them equal.
CONFIG_FILES = (".ds-gate.yaml", "pyproject.toml")


def checkpoint_passes(cwd: str = ".") -> bool:
    """True when the hook's ``commit-check`` in ``cwd`` passes silently: the commit stages
    nothing the gate looks at, or only artifact records that are certainly fine."""
    changes = staged_changes(cwd)
    return not _gated(cwd, changes) or _only_clean_records(cwd, changes)


def _only_clean_records(cwd: str, changes: dict[str, tuple[str | None, str]]) -> bool:
    """The staged gated files are records only, none finalizes, none has a finding, in a
    plain quest: what ``commit_check`` then does ends in a report with nothing in it."""
    names = staged_names(cwd, list(changes))  # quest.yaml too, when it links to a staged file
    if QUEST_YAML in names or MANIFEST in names or any(is_card(name) for name in names):
        return False
    listing = started(["worktree", "list", "--porcelain", "-z"], cwd)  # git answers while the records are judged
    clean = False
    try:
        from ds_gate.plugins.manager import any_installed

        clean = not any_installed() and _records_clean(cwd, changes, names)  # a plugin's rules may look at anything
    finally:
        worktrees = listing()  # always: git is reaped
    return clean and _plain_quest(cwd, worktrees)


def _records_clean(cwd: str, changes: dict[str, tuple[str | None, str]], names: list[str]) -> bool:
    """Every staged record file is readable, none has a finding (``rules.clean``), none
    finalizes the quest (``commit_reasons``, as ``commit_check`` asks it)."""
    artifacts = [name for name in names if is_artifact_record(name)]
    blobs = _staged_blobs(cwd, changes, artifacts)
    from ds_gate.rules.clean import staged_record_is_clean

    for name in artifacts:
        raw = blobs[name]
        if not isinstance(raw, bytes):  # over the size limit (a finding), or unreadable
            return False
        if name.startswith(REPORTS) and not _may_be_review(raw):
            continue  # one of DeepScientist's own reports: commit_check leaves it alone
        if not staged_record_is_clean(raw, name.split("/")[1]):
            return False
    from ds_gate.rules.finalization import commit_reasons

    decisions = [name for name in artifacts if name.startswith("artifacts/decisions/")]
    return not commit_reasons(names, {f":{name}": blobs[name] for name in decisions}, decisions, [])


def _staged_blobs(cwd: str, changes: dict[str, tuple[str | None, str]], names: list[str]) -> dict[str, bytes | TooLarge | None]:
    """The staged bytes of each of ``names``: its work-tree copy when that is byte for byte
    the staged blob (the blob id says so; DeepScientist stages with ``git add -A``, so it
    nearly always is), else what ``cat_file`` reads, as ``commit_check`` does. The copy
    saves two git processes (``cat-file --batch-check`` and ``--batch``), ~4 ms a commit;
    it is read as every quest file is (``io.fs.read_file``: bounded, never a FIFO)."""
    from ds_gate.kernel.fs import read_file

    blobs: dict[str, bytes | TooLarge | None] = {}
    top = os.path.realpath(cwd)
    for name in names:
        staged = changes[name][1]
        path = os.path.join(top, name)
        if os.path.realpath(path) != path:  # a link on the way (never followed out of the quest): git's copy decides
            continue
        try:
            raw = read_file(path, follow=False)
        except OSError:  # gone, over the limit, not a regular file: git's copy decides
            continue
        if _object_id(raw, len(staged)) == staged:
            blobs[name] = raw
    rest = [name for name in names if name not in blobs]
    if rest:
        found = cat_file(cwd, [changes[name][1] for name in rest], staged=True)
        blobs.update((name, found.get(changes[name][1])) for name in rest)
    return blobs


def _object_id(data: bytes, length: int) -> str | None:
    """The id git gives ``data`` as a blob, in the repository's object format (told by the
    id's ``length``). SHA-1 comes from CPython's own ``_sha1`` where it is built: ``hashlib``
    loads OpenSSL first, ~3 ms on every commit that stages a record."""
    header = b"blob %d\0" % len(data)
    if length == 40:
        try:
            from _sha1 import sha1  # type: ignore[import-not-found]
        except ImportError:  # a Python built without it
            from hashlib import sha1
        return str(sha1(header + data).hexdigest())
    if length == 64:
        from hashlib import sha256

        return sha256(header + data).hexdigest()
    return None


def _plain_quest(cwd: str, worktrees: bytes) -> bool:
    """``locate(cwd)`` finds a quest without refusing it, and the quest configures nothing
    ds-gate reads while checking records: its root (the main worktree of ``worktrees``, the
    output of ``git worktree list --porcelain -z``, as ``locate`` reads it) is a working tree
    holding ``cwd`` and a ``quest.yaml``, with neither configuration file."""
    path, bare = None, False
    for line in worktrees.split(b"\0\0")[0].split(b"\0"):
        key, _, value = line.decode("utf-8", "surrogateescape").partition(" ")
        if key == "worktree":
            path = value
        elif key == "bare":
            bare = True
    if path is None or bare:
        return False
    root = os.path.realpath(path)
    if os.path.commonpath([root, os.path.realpath(cwd)]) != root or not os.path.isfile(os.path.join(root, QUEST_YAML)):
        return False
    return not any(os.path.lexists(os.path.join(root, name)) for name in CONFIG_FILES)
