"""The commit hook's answer for the common checkpoints, before any command line is built.

DeepScientist commits after nearly every step; most commits stage nothing the gate looks at,
or a fine new run or decision record. Both must pass silently and cheaply, so the answer lives
in the kernel (``tests/acceptance/test_kernel_budget.py`` keeps its import budget).
``checkpoint_passes`` says True only when the full ``commit-check`` (``engine.commit``, which asks
the same ``gated`` first) would pass and print nothing; every doubt (a card, ``quest.yaml``, a file
named as the manifest at any depth, a file a link leads ``quest.yaml``, the manifest or
``runtime_state.json`` to, a plugin, a configured quest, a finalizing decision, a
``runtime_state.json`` becoming completed, an unreadable or oversized file, a review, a record the
triage does not call fine, any exception) answers False: "take the full path".
"""

from __future__ import annotations

import os

from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.entry_points import any_installed
from ds_gate.kernel.fs import read_file
from ds_gate.kernel.git import blob_id, started
from ds_gate.kernel.gitpaths import staged_changes
from ds_gate.kernel.layout import (
    CONFIG_FILES,
    MANIFEST,
    QUEST_YAML,
    REPORTS,
    RUNTIME_STATE,
    is_artifact_record,
    is_card,
    is_manifest_name,
)
from ds_gate.kernel.links import may_be_link, staged_names

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ds_gate.kernel.fs import TooLarge

    Changes = dict[str, tuple[str | None, str]]


def may_be_review(raw: bytes | TooLarge | None) -> bool:
    """Whether a staged report is judged: DeepScientist checkpoints many reports of its own,
    and only one whose bytes could make it a review concerns the gate (one it cannot read is
    judged, so that is reported). JSON can spell the word only as written or through ``\\u``
    escapes, so a report holding either is parsed: judged by what it means, not its bytes."""
    return not isinstance(raw, bytes) or b"distill_review" in raw or b"\\u" in raw


def other_json(names: list[str]) -> list[str]:
    """The staged ``.json`` files that are no run or decision record (a report, DeepScientist's
    own state, a result): each is read, since a finalizing decision can be any of them."""
    return [
        n
        for n in names
        if n.endswith(".json") and n != MANIFEST and (not is_artifact_record(n) or n.startswith(REPORTS))
    ]


def gated(cwd: Path | str, changes: Changes, plugin_files: Callable[[list[str]], bool] | None = None) -> bool:
    """Whether a commit staging ``changes`` stages anything the gate looks at: a record, a card,
    ``quest.yaml``, a file named as the manifest at any depth (main writes it in the workspace
    ``research_state.json`` names, anywhere in the quest: the full path reads which), a file a
    plugin's pattern names (``plugin_files(names)``), a file a link of ``kernel.links.FOLLOWED``
    leads to, or among the other staged JSON files (read once, parsed only when they could say
    the word) a review, a finalizing decision, or a ``runtime_state.json`` becoming completed."""
    names = staged_names(str(cwd), list(changes))  # quest.yaml too, when it links to a staged file
    if (
        any((is_artifact_record(n) and not n.startswith(REPORTS)) or is_card(n) or is_manifest_name(n) for n in names)
        or QUEST_YAML in names
        or MANIFEST in names
        or any(n not in changes for n in names)  # led to through a link: the full path reads it there
        or (plugin_files is not None and plugin_files(names))
    ):
        return True
    return not _none_judged(cwd, changes, other_json(names))


def _none_judged(cwd: Path | str, changes: Changes, names: list[str]) -> bool:
    """No file of ``names`` (reports and other JSON) is a report the gate judges or a finalizing decision."""
    if not names:
        return True
    # kernel.lazy.LAZY_PLACES: the finalization reader loads only when a JSON file is staged
    from ds_gate.kernel.finalizing import finalizing_reason

    for name, raw in _staged_blobs(str(cwd), changes, names).items():
        if name.startswith(REPORTS) and is_artifact_record(name) and may_be_review(raw):
            return False
        if isinstance(raw, bytes) and (finalizing_reason(name, raw) is not None or _completes(cwd, changes, name, raw)):
            return False
    return True


def _completes(cwd: Path | str, changes: Changes, name: str, raw: bytes) -> bool:
    """``name`` is ``.ds/runtime_state.json`` and its staged ``raw`` completes the quest: a status
    key says completed that did not at ``HEAD`` (``kernel.finalizing.runtime_reason``). ``HEAD``'s
    copy is read only then: after ``mark_completed`` main keeps writing the file at every turn."""
    # kernel.lazy.LAZY_PLACES: the finalization reader loads only when a JSON file is staged
    from ds_gate.kernel.finalizing import completed_keys, runtime_reason

    if name != RUNTIME_STATE:
        return False
    if may_be_link(str(cwd), raw, RUNTIME_STATE):
        return True  # staged as a link: the full path reads what it leads to
    if not completed_keys(raw):
        return False
    old = changes[name][0]
    before = cat_file(str(cwd), [old], staged=True).get(old) if old else None
    return runtime_reason(raw, before) is not None


def checkpoint_passes(cwd: str = ".") -> bool:
    """True when the hook's ``commit-check`` in ``cwd`` passes silently: no plugin is installed
    (its rules and patterns may look at anything), and the commit stages nothing the gate
    looks at, or only artifact records that are certainly fine."""
    if any_installed():
        return False
    changes = staged_changes(cwd)
    return not gated(cwd, changes) or _only_fine_records(cwd, changes)


def _only_fine_records(cwd: str, changes: Changes) -> bool:
    """The staged gated files are records only, none finalizes, each is fine, in a plain
    quest: what ``commit_check`` then does ends in a report with nothing in it."""
    names = staged_names(cwd, list(changes))
    if (
        QUEST_YAML in names
        or MANIFEST in names
        or any(is_card(name) or is_manifest_name(name) or name not in changes for name in names)
    ):
        return False
    listing = started(["worktree", "list", "--porcelain", "-z"], cwd)  # git answers while the records are judged
    fine = False
    try:
        fine = _records_fine(cwd, changes, [n for n in names if is_artifact_record(n) or n in other_json(names)])
    finally:
        worktrees = listing()  # always: git is reaped
    return fine and plain_quest(cwd, worktrees)


def _records_fine(cwd: str, changes: Changes, files: list[str]) -> bool:
    """Every staged record file is readable and fine by the triage, and no staged JSON file is
    a decision that finalizes the quest (as ``rules.finalization.commit_reasons`` asks it of a commit)."""
    # kernel.lazy.LAZY_PLACES: the JSON reader and the schemas load only when a record is staged
    from ds_gate.kernel.finalizing import finalizing_reason
    from ds_gate.kernel.triage import staged_record_is_fine

    blobs = _staged_blobs(cwd, changes, files)
    for name in files:
        raw, record = blobs[name], is_artifact_record(name)
        if not isinstance(raw, bytes):  # over the size limit (a finding), or unreadable
            if record:
                return False
            continue  # not a record: commit_check reads no more of it than this
        if finalizing_reason(name, raw) is not None or _completes(cwd, changes, name, raw):
            return False
        if not record or (name.startswith(REPORTS) and not may_be_review(raw)):
            continue  # one of DeepScientist's own files or reports: commit_check leaves it alone
        if not staged_record_is_fine(raw, name.split("/")[1]):
            return False
    return True


def _staged_blobs(cwd: str, changes: Changes, names: list[str]) -> dict[str, bytes | TooLarge | None]:
    """The staged bytes of each of ``names``: its work-tree copy when that is byte for byte
    the staged blob (the blob id says so; DeepScientist stages with ``git add -A``, so it
    nearly always is), else what ``cat_file`` reads, as ``commit_check`` does. The copy
    saves two git processes; it is read as every quest file is (``kernel.fs.read_file``:
    bounded, never a FIFO, never through a link)."""
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
        if blob_id(raw, "sha256" if len(staged) == 64 else "sha1") == staged:
            blobs[name] = raw
    rest = [name for name in names if name not in blobs]
    if rest:
        found = cat_file(cwd, [changes[name][1] for name in rest], staged=True)
        blobs.update((name, found.get(changes[name][1])) for name in rest)
    return blobs


def plain_quest(cwd: str, worktrees: bytes) -> bool:
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
