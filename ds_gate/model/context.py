"""What a plugin's quest check may read besides the quest: passed to ``ds_gate_check_quest``.

Its own module so the engine can build one without importing pluggy (see ``plugins``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from ds_gate.model.records import Card, Quest, Review


class CheckContext:
    """The engine's results so far: a plugin reads them, it never writes them."""

    def __init__(
        self,
        quest: Quest,
        reviews: list[Review],
        home: Any = None,
        *,
        cards: list[Card] | None = None,
        home_path: Path | None = None,
    ) -> None:
        self.quest = quest
        self.reviews = reviews  # model.Review, valid or not
        self.home = home  # the --home given, or None for the default
        self.cards: list[Card] = list(cards or [])  # the memory cards the engine checked
        self.home_path = home_path  # the home whose memory was read, if any
