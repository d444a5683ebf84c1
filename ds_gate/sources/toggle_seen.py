"""Where ``experience_distill`` is on besides the root's ``quest.yaml``: once on anywhere the gate sees, it stays on.

The toggle lives in ``quest.yaml``, which the quest's agent writes and commits. A branch
(or a later commit) that drops it must not turn the closure gate off: CI checks out one
branch, and the quest's other branches, worktrees and history still say what the quest
was started with. So the gate reads, besides the root's copy:

1. each worktree folder's ``quest.yaml`` (bounded, never through a link out of the quest);
2. every ``quest.yaml`` blob reachable from any ref, in one ``git log --all --raw -- quest.yaml``
   (``sources.history``; each branch tip's copy is among them), deduplicated by blob id; only the
   blobs that could name the toggle (the word ``distill``, or a backslash: a YAML escape
   could spell it) are parsed, oldest first (a quest is created with its startup contract,
   so an early version is where the toggle is likeliest on), and from at most
   ``sources.history.MAX_CHANGES`` changes: the oldest and the newest halves of a longer
   history (3,000 versions cost ~0.1 s, ~0.3 s when every one names the toggle).

Only ``closure``, finalization commits and the pre-push gate ask (and only when the root's
copy has the toggle off and no ``--require``/``--no-require`` was given): an ordinary
checkpoint never pays for it. A trusted ``--no-require`` still turns the gate off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.git import GitError
from ds_gate.model.records import Quest
from ds_gate.sources.history import batches as _batches
from ds_gate.sources.history import changes
from ds_gate.sources.location import linked_outside
from ds_gate.sources.quest_yaml import coerce_toggle, parse_quest_yaml

QUEST_YAML = "quest.yaml"


@dataclass(frozen=True, slots=True)
class Seen:
    """Where the toggle was seen on (None: nowhere), and whether any ``quest.yaml`` was seen at all."""

    on_at: str | None
    had_quest_yaml: bool


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


def _history_blobs(root: Path) -> list[tuple[str, str]]:
    """(commit, blob id) of each distinct ``quest.yaml`` in the history of every ref, oldest first
    (``sources.history``'s one ``git log``, and its bound)."""
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    for change in reversed(changes(root, [QUEST_YAML])):  # newest first: each blob named by its newest commit
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
        blobs = _history_blobs(quest.root)
        for batch in _batches(quest.root, blobs):
            contents = cat_file(quest.root, [blob for _, blob in batch])
            for commit, blob in batch:
                raw = contents.get(blob)
                if isinstance(raw, bytes) and _on(raw):
                    return Seen(f"{QUEST_YAML} of commit {commit[:12]}", True)
    except GitError:  # git refusing the repository is judged where the records are read
        return Seen(None, had)
    return Seen(None, had or bool(blobs))
