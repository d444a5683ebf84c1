"""JSON as ds-gate reads it: as Python's ``json`` parses (DeepScientist's reader), pointers, and the line a pointer leads to.

``loads`` parses with ``json``'s own C scanner (``_json``) and imports the ``json`` package only
to word an error (it imports ``re`` and ``enum``; the commit hook parses a staged record on most
commits). ``line_of``, used only when a finding needs a line, favours obviously right over fast:
it walks the text along the pointer, skipping siblings unbuilt, and follows the last of duplicate
keys, as ``json.loads`` does.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

_WS = " \t\r\n"


def pointer(parts: Sequence[str | int]) -> str:
    """RFC 6901: ``("cards_written", 0)`` -> ``/cards_written/0``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _skip_ws(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _WS:
        i += 1
    return i


def _skip_value(text: str, i: int) -> int:
    """Index just past the JSON value starting at ``i`` (which is not whitespace)."""
    from json.decoder import scanstring  # type: ignore[attr-defined]  # public since 2.6, absent from typeshed

    if i >= len(text):
        raise ValueError("end of text")
    ch = text[i]
    if ch == '"':
        end: int = scanstring(text, i + 1)[1]
        return end
    if ch in "[{":
        depth = 0
        n = len(text)
        while i < n:
            ch = text[i]
            if ch == '"':
                i = scanstring(text, i + 1)[1]
                continue
            if ch in "[{":
                depth += 1
            elif ch in "]}":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        raise ValueError("unterminated container")
    j = i
    while j < len(text) and text[j] not in ",]}" + _WS:
        j += 1
    return j


def _member_start(text: str, i: int, key: str | int) -> int | None:
    """Offset of the value of ``key`` in the container starting at ``i``."""
    from json.decoder import scanstring  # type: ignore[attr-defined]

    i = _skip_ws(text, i)
    if i >= len(text):
        return None
    opener = text[i]
    i = _skip_ws(text, i + 1)
    if opener == "[":
        if not isinstance(key, int) and not (isinstance(key, str) and key.isascii() and key.isdigit()):
            return None
        wanted, index = int(key), 0
        while i < len(text) and text[i] != "]":
            if index == wanted:
                return i
            i = _skip_ws(text, _skip_value(text, i))
            if i < len(text) and text[i] == ",":
                i = _skip_ws(text, i + 1)
            index += 1
        return None
    if opener != "{":
        return None
    found: int | None = None
    while i < len(text) and text[i] == '"':
        name, i = scanstring(text, i + 1)
        i = _skip_ws(text, i)
        if i >= len(text) or text[i] != ":":
            return found
        i = _skip_ws(text, i + 1)
        if name == str(key):
            found = i
        i = _skip_ws(text, _skip_value(text, i))
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
    return found


def line_of(text: str, parts: Sequence[str | int]) -> int | None:
    """1-based line where the value at ``parts`` starts, or None when it is not there."""
    try:
        i = _skip_ws(text, 1 if text.startswith("\ufeff") else 0)
        for key in parts:
            start = _member_start(text, i, key)
            if start is None:
                return None
            i = start
    except (ValueError, IndexError):
        return None
    return text.count("\n", 0, i) + 1


def place(raw: bytes | None, path: tuple[str | int, ...]) -> int | None:
    """Line of ``path`` in a record's bytes (the nearest existing parent for a missing key)."""
    if raw is None:
        return None
    text = raw.decode("utf-8", "replace")
    for cut in range(len(path), -1, -1):
        line = line_of(text, path[:cut])
        if line is not None:
            return line
    return None


# json's own reading of the three words JSON lacks: DeepScientist writes them (``write_json``
# is ``json.dumps``, which allows them; a diverged run's metric is a float NaN), and reads them
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class _AsPython:
    """What ``json``'s C scanner reads of a ``JSONDecoder`` (``_json.make_scanner``): exactly
    the defaults of ``json.loads``, NaN and Infinity included."""

    def __init__(self) -> None:
        self.strict = True
        self.object_hook = self.object_pairs_hook = None
        self.parse_float, self.parse_int, self.parse_constant = float, int, _CONSTANTS.__getitem__


def _c_scanner() -> Callable[[str, int], tuple[Any, int]] | None:
    """The scanner ``json.scanner.make_scanner`` is where CPython has it (``_json``, in C),
    or None (then ``JSONDecoder`` itself parses)."""
    try:
        from _json import make_scanner
    except ImportError:
        return None
    scan: Callable[[str, int], tuple[Any, int]] = make_scanner(_AsPython())  # type: ignore[arg-type]  # duck-typed
    return scan


_SCAN = _c_scanner()
_DECODER: list[Any] = []  # json.JSONDecoder(), made when first needed


def _decode(text: str) -> Any:
    """``JSONDecoder.decode``, which words every error (and parses where ``_json`` is missing)."""
    if not _DECODER:
        import json

        _DECODER.append(json.JSONDecoder())
    return _DECODER[0].decode(text)


def loads(text: str | bytes) -> Any:
    """``json.loads``, as DeepScientist reads its files: ``NaN`` and ``Infinity`` are floats, since
    its ``write_json`` writes them (``kernel.jsonout.dumps`` words them on the way out).
    ``JSONDecoder.decode``'s steps (whitespace, one value from the C scanner, whitespace, the
    end) taken with the same scanner; anything else, every error, goes to the decoder itself, so
    a value and an error are ``json``'s own."""
    if not isinstance(text, str):
        text = text.decode("utf-8")
    if _SCAN is not None:
        start, end = 0, len(text)
        while start < end and text[start] in _WS:
            start += 1
        try:
            value, stop = _SCAN(text, start)
        except Exception:
            pass
        else:
            while end > stop and text[end - 1] in _WS:
                end -= 1
            if end == stop:
                return value
    return _decode(text)
