"""One winning copy per artifact id: a worktree's checkout inherits its parent branch's
records, and the gate counts each artifact once.

The newest ``updated_at`` wins, then ``created_at``, then the copy in the workspace the
record says it was written in, then the earlier workspace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ds_gate.model.findings import Finding
from ds_gate.model.records import Decision, Run, timestamp

NO_FINDINGS: tuple[Finding, ...] = ()  # shared by every run without findings: nothing is appended to it


class Copies:
    """The winning copy per artifact id (timestamps are parsed only when copies collide)."""

    def __init__(self) -> None:
        self.best: dict[str, tuple[Any, bool, int, Sequence[Finding]]] = {}

    @staticmethod
    def _rank(item: Run | Decision, home: bool, order: int) -> tuple[float, float, bool, int]:
        return (timestamp(item.updated_at), timestamp(item.created_at), home, -order)

    def loses(self, artifact_id: str, updated_at: str | None, created_at: str | None, home: bool, order: int) -> bool:
        """Whether a copy with these dates would lose to the one held, told without building it:
        the common worktree copy (same dates) decided as ``offer`` decides it."""
        current = self.best.get(artifact_id)
        if current is None:
            return False
        held = current[0]
        return held.updated_at == updated_at and held.created_at == created_at \
            and not (home, -order) > (current[1], -current[2])

    def offer(self, artifact_id: str, item: Run | Decision, home: bool, order: int, findings: Sequence[Finding]) -> None:
        current = self.best.get(artifact_id)
        if current is None:
            self.best[artifact_id] = (item, home, order, findings)
            return
        held = current[0]
        if held.updated_at == item.updated_at and held.created_at == item.created_at:  # a copy: no dates to parse
            wins = (home, -order) > (current[1], -current[2])
        else:
            wins = self._rank(item, home, order) > self._rank(*current[:3])
        if wins:
            self.best[artifact_id] = (item, home, order, findings)
