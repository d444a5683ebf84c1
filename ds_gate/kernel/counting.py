"""``counted``: a number and its noun, singular for one ("1 memory card", "2 memory cards").

One helper for every count the CLI prints, so that "1 memory cards", "of 1 files" and the
"(s)" hedge do not come back one f-string at a time. English only; a noun whose plural is
not its singular plus "s" passes its own (``counted(n, "branch", "branches")``).
"""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun in the plural unless ``count`` is exactly one."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
