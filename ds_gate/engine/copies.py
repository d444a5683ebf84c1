"""One winning copy per artifact id: a worktree's checkout inherits its parent branch's
records, and the gate counts each artifact once.

The ranking is DeepScientist's (``_artifact_item_rank``: ``updated_at``, then ``created_at``,
compared as text), with one deliberate difference first that only makes the gate stricter: a
completed run copy beats one that is not (PR #60 counts a run as a candidate when any copy is
completed). Past the dates the copy in the workspace the record names wins, then the earlier
workspace; which of two equal copies is shown changes no verdict. See docs/reading-the-quest.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Generic, TypeVar

from ds_gate.model.findings import Finding
from ds_gate.model.records import Decision, Run

NO_FINDINGS: tuple[Finding, ...] = ()  # shared by every run without findings: nothing is appended to it

Item = TypeVar("Item", Run, Decision)
Rank = tuple[bool, str, str, bool, int]


def _rank(done: bool, updated_at: str | None, created_at: str | None, home: bool, order: int) -> Rank:
    return (done, updated_at or "", created_at or "", home, -order)


class Copies(Generic[Item]):
    """The winning copy per artifact id (``best``). What ranks it besides its own fields is
    kept only where it is not the usual: the ids whose winner lies outside the workspace
    the record names (``away``), whose winner is not a completed run (``undone``: each
    record's ``completed_state`` is asked once, when it is read), and the findings a winner
    brings (``found``); its workspace's place in the reading order comes from ``order`` by
    the item's workspace. (A tuple per id was ~85 bytes more at each of 100,000 runs.)"""

    def __init__(self, order: Mapping[str, int]) -> None:
        self.order = order
        self.best: dict[str, Item] = {}
        self.away: set[str] = set()
        self.undone: set[str] = set()
        self.found: dict[str, Sequence[Finding]] = {}

    def _held(self, artifact_id: str) -> Rank | None:
        held = self.best.get(artifact_id)
        if held is None:
            return None
        return _rank(
            artifact_id not in self.undone,
            held.updated_at,
            held.created_at,
            artifact_id not in self.away,
            self.order.get(held.workspace, len(self.order)),
        )

    def loses(
        self, artifact_id: str, updated_at: str | None, created_at: str | None, home: bool, order: int, done: bool
    ) -> bool:
        """Whether a copy with these dates (``done``: completed) would lose to the one held,
        told without building it, exactly as ``offer`` decides it."""
        held = self._held(artifact_id)
        return held is not None and not _rank(done, updated_at, created_at, home, order) > held

    def first(self, artifact_id: str, item: Item, home: bool, done: bool) -> None:
        """``item``, without findings, for an id none is held for: it wins (``offer``, told so)."""
        self.best[artifact_id] = item
        if not home:
            self.away.add(artifact_id)
        if not done:
            self.undone.add(artifact_id)

    def offer(
        self, artifact_id: str, item: Item, home: bool, order: int, findings: Sequence[Finding], done: bool = False
    ) -> None:
        """``item`` wins if it ranks above the copy held (``order``: its workspace's, as ``self.order``
        says; ``done``: a completed run)."""
        held = self._held(artifact_id)
        if held is None or _rank(done, item.updated_at, item.created_at, home, order) > held:
            self.best[artifact_id] = item
            (self.away.discard if home else self.away.add)(artifact_id)
            (self.undone.discard if done else self.undone.add)(artifact_id)
            if findings:
                self.found[artifact_id] = findings
            else:
                self.found.pop(artifact_id, None)
