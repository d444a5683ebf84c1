"""How a text report is laid out for where it goes: its width, colour, and how much it says.

A terminal gets its width and colour; a pipe, a file or a hook's stderr a fixed width
(``$COLUMNS``, else 80) and no colour unless ``--color always``, so logs and goldens do not
depend on the terminal. ``NO_COLOR`` (https://no-color.org) turns ``auto`` off. Only the text
reporter reads a ``View``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import IO

DEFAULT_WIDTH = 80
MIN_WIDTH = 40

_CODES = {"red": "31", "green": "32", "yellow": "33", "bold": "1", "dim": "2"}


class View:
    """Plain attributes (no dataclass: the commit hook prints with this and pays per import)."""

    __slots__ = ("width", "color", "quiet")

    def __init__(self, width: int = DEFAULT_WIDTH, color: bool = False, quiet: bool = False) -> None:
        self.width = max(MIN_WIDTH, width)
        self.color = color
        self.quiet = quiet

    def paint(self, text: str, style: str) -> str:
        """Applied to text already escaped, so the only escape sequences in the output are these."""
        if not self.color or not text:
            return text
        return f"\x1b[{_CODES[style]}m{text}\x1b[0m"


def _is_terminal(stream: IO[str] | None) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):  # a closed or replaced stream
        return False


def view_for(
    stream: IO[str] | None, color: str = "auto", quiet: bool = False, environ: Mapping[str, str] | None = None
) -> View:
    env = os.environ if environ is None else environ
    auto = color != "never" and _is_terminal(stream) and not env.get("NO_COLOR") and env.get("TERM") != "dumb"
    return View(width=columns(stream, env), color=color == "always" or auto, quiet=quiet)


def columns(stream: IO[str] | None, environ: Mapping[str, str] | None = None) -> int:
    """The width text and ``--help`` wrap at: ``$COLUMNS``, else the terminal's, else 80 (not
    ``shutil``'s, which imports ``bz2`` and ``lzma``)."""
    given = (os.environ if environ is None else environ).get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    if _is_terminal(stream):
        try:
            return os.get_terminal_size(stream.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            pass
    return DEFAULT_WIDTH
