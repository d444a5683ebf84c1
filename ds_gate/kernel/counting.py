"""``counted``: a number and its noun, singular for one ("1 memory card", "2 memory cards"),
for every count the CLI prints. English only; an irregular plural is passed (``counted(n, "branch", "branches")``).
"""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun in the plural unless ``count`` is exactly one."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
