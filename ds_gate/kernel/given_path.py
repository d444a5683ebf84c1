"""A path a caller gave ds-gate (a command's PATH, ``--home``, a JSONL source, an API argument),
made absolute and resolved through its links in one place, so that every way a path can be wrong
is the same one-line ``QuestError`` (exit 2: "<path>: <what> — <fix>"), never an ``OSError``
(``ENAMETOOLONG``), a ``RuntimeError`` (a loop of links on Python 3.11) or a ``ValueError`` (a NUL
byte) escaping as an internal error."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from ds_gate.kernel.errors import QuestError, shown

_SHOWN_CHARS = 160  # of a path in a message: a 5,000-character path is named, not pasted whole
# errno -> (what is wrong, the fix)
_PROBLEMS = {
    errno.ENAMETOOLONG: ("the path, or a name in it, is longer than the file system allows", "pass a shorter path"),
    errno.ELOOP: ("its symbolic links lead in a loop", "fix or remove the link, or pass the folder it should lead to"),
    errno.ENOTDIR: ("a part of the path that should be a folder is a file", "pass the path of a folder"),
    errno.EACCES: ("permission denied", "pass a path the user running ds-gate may read"),
}


def spelled(text: str) -> str:
    """The path as a message shows it: as given when short and printable, else cut and escaped."""
    return text if text.isprintable() and len(text) <= _SHOWN_CHARS else shown(text, _SHOWN_CHARS)


def given_path(given: object, what: str = "path", *, must_exist: bool = True) -> Path:
    """``given`` expanded (``~``), absolute and resolved. ``must_exist``: a path that is not there
    is the error "no such file or directory" (a quest); else it may be missing or hidden by
    permissions (a home, whose callers say so in their own words: a warning, a finding).
    Anything else wrong is a ``QuestError`` naming the path, what is wrong, and the fix."""
    if not isinstance(given, (str, os.PathLike)):
        raise QuestError(f"{what} must be a path (a str or os.PathLike), not {type(given).__name__} {shown(given, 60)}")
    text = os.fspath(given)
    if not isinstance(text, str):
        raise QuestError(f"{what} must be a path as text, not {type(text).__name__} {shown(text, 60)}")
    if "\0" in text:
        raise QuestError(f"{spelled(text)}: the path holds a NUL byte, which no path can — pass the path without it")
    try:
        path = Path(text).expanduser()
        resolved = path.resolve()
        os.stat(resolved)
    except FileNotFoundError:
        if must_exist:
            raise QuestError(f"{spelled(str(path))}: no such file or directory") from None
        return resolved
    except OSError as exc:
        if exc.errno == errno.EACCES and not must_exist:  # a home hidden by permissions: its readers say so
            return resolved
        wrong, fix = _PROBLEMS.get(exc.errno or 0, (exc.strerror or str(exc), f"check the {what}"))
        raise QuestError(f"{spelled(text)}: {wrong} — {fix}") from None
    except RuntimeError as exc:  # Path.resolve on Python 3.11: "Symlink loop from ...", or no home for "~"
        wrong, fix = _PROBLEMS[errno.ELOOP] if "loop" in str(exc) else (str(exc), f"pass the {what} in full")
        raise QuestError(f"{spelled(text)}: {wrong} — {fix}") from None
    return resolved
