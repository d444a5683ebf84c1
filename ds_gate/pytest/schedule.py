"""pytest-xdist's scheduling, with a quest's items kept on one worker (imports xdist: loaded only with it).

A quest is read by the process that runs its first item, so its items must share a worker. Under
``--dist load`` (what ``-n N`` gives) the scope is the quest for the gate's items and the node id for
any other test; under ``loadgroup`` the gate's items are grouped by quest the same way.
``loadscope`` and ``loadfile`` group by the node id's first part (the quest) already; ``worksteal``
may move items, whose quest is then read again (same verdicts). Not ``xdist_group`` marks: xdist
appends ``@group`` to a marked test's id, which would change the node ids and JUnit names.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pytest
from xdist.scheduler import LoadGroupScheduling, LoadScopeScheduling  # type: ignore[import-untyped]


def quest_scope(nodeid: str, units: Collection[str]) -> str | None:
    """The unit (``quest-<folder>`` or ``home``) a gate item belongs to, or None for any other test."""
    first, sep, _ = nodeid.partition("::")
    return first if sep and first in units else None


class QuestLoad(LoadScopeScheduling):  # type: ignore[misc]
    """``--dist load`` with a quest's items as one unit of work."""

    def __init__(self, config: pytest.Config, log: Any, units: Collection[str]) -> None:
        super().__init__(config, log)
        self.units = frozenset(units)

    def _split_scope(self, nodeid: str) -> str:
        return quest_scope(nodeid, self.units) or nodeid


class QuestLoadGroup(LoadGroupScheduling):  # type: ignore[misc]
    """``--dist loadgroup`` with a quest's items as one group."""

    def __init__(self, config: pytest.Config, log: Any, units: Collection[str]) -> None:
        super().__init__(config, log)
        self.units = frozenset(units)

    def _split_scope(self, nodeid: str) -> str:
        return quest_scope(nodeid, self.units) or str(super()._split_scope(nodeid))


class Scheduler:
    """Registered beside the gate's session on the controller when xdist is loaded."""

    def __init__(self, units: Collection[str]) -> None:
        self.units = tuple(units)

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        dist = config.getvalue("dist")
        if dist == "load":
            return QuestLoad(config, log, self.units)
        if dist == "loadgroup":
            return QuestLoadGroup(config, log, self.units)
        return None  # xdist's own
