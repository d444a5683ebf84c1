"""What an extra check may read besides the quest: passed to ``ds_gate_check_quest``.

Its own module so the gate can build one without importing pluggy (see ``plugins``).
"""

from __future__ import annotations

from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ds_gate.model import Quest


class CheckContext:
    """What an extra check may read besides the quest (passed to ``ds_gate_check_quest``)."""

    def __init__(self, quest: Quest, reviews: list[Any], home: Any = None) -> None:
        self.quest = quest
        self.reviews = reviews  # model.Review, valid or not
        self.home = home  # the --home given, or None for the default
        self.cards: list[Any] = []  # memory cards the checks looked at, for the report
        self.home_path: Any = None  # the home whose memory was read, if any
