"""Where ``experience_distill`` is on besides the root's ``quest.yaml``: once on anywhere the gate sees, it stays on.

The quest's agent writes and commits ``quest.yaml``, so a branch or a later commit that drops
the toggle must not turn the gate off (CI checks out one branch). The gate also reads each
worktree folder's copy (bounded, never through a link out) and every committed version, in
``sources.history``'s one ``git log``, deduplicated, parsed only when it could name the toggle,
oldest first (a quest starts with its startup contract). A history longer than
``history.MAX_VERSIONS``, or a version git cannot read, is never skipped: unless the toggle is
on in what was read, ``Seen.unseen`` says why and the gate stops (exit 2). Only closure,
finalization commits and pre-push ask, with the root's toggle off and no ``--require`` or
``--no-require``: an ordinary checkpoint never pays for it. ``toggle_at`` asks the same of one
commit and its ancestors: whether a baseline's commit came after the gate was adopted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.git import GitError
from ds_gate.kernel.layout import QUEST_YAML
from ds_gate.model.records import Quest
from ds_gate.sources import history
from ds_gate.sources.history import changes, versions
from ds_gate.sources.location import linked_outside
from ds_gate.sources.quest_yaml import coerce_toggle, parse_quest_yaml


@dataclass(frozen=True, slots=True)
class Seen:
    """Where the toggle was seen on (None: nowhere), whether any ``quest.yaml`` was seen at all,
    and what of the history could not be read (None: all of it), with the fix."""

    on_at: str | None
    had_quest_yaml: bool
    unseen: tuple[str, str] | None = None


def _on(raw: bytes) -> bool:
    if b"distill" not in raw and b"\\" not in raw:
        return False
    meta, _ = parse_quest_yaml(raw.decode("utf-8-sig", "replace"))
    contract = meta.get("startup_contract")
    return isinstance(contract, Mapping) and coerce_toggle(contract.get("experience_distill"))


def _folders(quest: Quest) -> tuple[str | None, bool]:
    had = False
    for ws in quest.workspaces:
        if ws.ref is not None or ws.rel == ".":
            continue
        path = ws.path / QUEST_YAML
        if linked_outside(quest.root, path) is not None:
            continue
        try:
            raw = fs.read_file(path)
        except OSError:  # absent, unreadable or over the limit: nothing seen here
            continue
        had = True
        if _on(raw):
            return f"{ws.rel}/{QUEST_YAML}", had
    return None, had


def _history_blobs(root: Path, revs: tuple[str, ...] = ("--all",)) -> list[tuple[str, str]]:
    """(commit, blob id) of each distinct ``quest.yaml`` in the history of every ref (or of
    ``revs``), oldest first (``sources.history``'s one ``git log``)."""
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    # newest first: each blob named by its newest commit
    for change in reversed(changes(root, [QUEST_YAML], revs=revs)):
        if change.new is not None and change.new not in seen:
            seen.add(change.new)
            found.append((change.commit, change.new))
    found.reverse()
    return found


def toggle_seen(quest: Quest) -> Seen:
    """Where ``experience_distill`` is on in a worktree's ``quest.yaml`` or in any committed one."""
    on_at, had = _folders(quest)
    if on_at is not None or not quest.is_git:
        return Seen(on_at, had)

    try:
        seen = _scan(quest.root, ("--all",))
    except GitError:  # git refusing the repository is judged where the records are read
        return Seen(None, had)
    return seen if seen.on_at or seen.unseen else Seen(None, had or seen.had_quest_yaml)


def toggle_at(root: Path, commit: str) -> Seen:
    """Where ``experience_distill`` is on in ``quest.yaml`` of ``commit`` (a full id) or of any of
    its ancestors, as the gate reads the toggle: once on, the gate was adopted. A history git
    refuses, cannot read whole or that is too long is ``Seen.unseen``, never "off"."""
    try:
        return _scan(root, (commit,))
    except GitError as exc:
        return Seen(None, False, (f"git cannot read its history ({exc})", "fetch the quest's whole history"))


def _scan(root: Path, revs: tuple[str, ...]) -> Seen:
    """The committed ``quest.yaml`` versions of ``revs``' history, oldest first, until one turns the toggle on."""
    blobs = _history_blobs(root, revs)
    limit = history.MAX_VERSIONS  # the oldest first: where the toggle is likeliest on
    unread: list[str] = []
    for (commit, blob), raw in versions(root, blobs[:limit]):
        if raw is None:
            unread.append(f"{QUEST_YAML} of commit {commit[:12]} (blob {blob[:12]})")
        elif isinstance(raw, bytes) and _on(raw):
            return Seen(f"{QUEST_YAML} of commit {commit[:12]}", True)
    if len(blobs) > limit:
        return Seen(
            None,
            True,
            (
                f"its history holds {len(blobs)} distinct versions of {QUEST_YAML}, more than the "
                f"{limit} the gate reads, and the toggle may be on in the others",
                "delete the branches that pad it (`git log --all --oneline -- quest.yaml` lists them)",
            ),
        )
    if unread:
        shown = ", ".join(unread[:3]) + (f" and {len(unread) - 3} more" if len(unread) > 3 else "")
        return Seen(
            None,
            True,
            (
                f"git cannot read {shown}, which may have turned it on",
                "restore the objects (`git fsck` names them; `git fetch --refetch --no-filter "
                "origin` in a partial clone)",
            ),
        )
    return Seen(None, bool(blobs))
