"""Memory cards as DeepScientist writes them: Markdown files with YAML frontmatter.

Real homes hold more than MemoryService writes today, and this reader copes with all of
it: files with no frontmatter (system notes; skipped quietly, as DeepScientist reads them
as ``({}, text)``), a second "legacy" frontmatter block at the start of the body (its keys
fill in what the first block lacks, as PR #60 reads it), tags as a list, a comma string
or a JSON-list string, YAML scalars that are not strings (``quest_id: 1``, unquoted
timestamps), and the same ``id`` in several files (a promoted copy keeps its id). The
per-kind ``_index.jsonl`` is never read: it is append-only, stale after every overwrite,
and DeepScientist's own listing ignores it too, so only the card files count.

Cards are found the way MemoryService finds them: ``<root>/<kind>/*.md`` for each kind,
plus ``<root>/ideas/<idea_id>/*.md``. Nothing outside the containing folder (the home or
the quest) is read: symbolic links out of it are reported, never followed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ds_gate.io import fs
from ds_gate.model.findings import Finding
from ds_gate.model.records import Card
from ds_gate.rules.reading import CARD_FRONTMATTER_INVALID
from ds_gate.sources.card_files import card_files, display_path, unreadable_card

HOME_VARIABLES = ("DEEPSCIENTIST_HOME", "DS_HOME")
_NODE_BUDGET = 200_000  # values in one frontmatter: far above any real card, far below an alias bomb


def resolve_home(given: str | os.PathLike[str] | None = None, quest: Path | None = None) -> Path:
    """``--home``, else ``$DEEPSCIENTIST_HOME``, else ``$DS_HOME``, else the home the quest
    lies in (``<home>/quests/<id>`` with a ``<home>/memory``), else ``~/DeepScientist``.

    The quest's own home comes before ``~``: a researcher who keeps DeepScientist elsewhere
    and runs ds-gate on one of its quests means that home, not an empty default."""
    if given is not None and str(given).strip():
        return Path(given).expanduser().resolve()
    for name in HOME_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return Path(value).expanduser().resolve()
    if quest is not None and quest.parent.name == "quests" and fs.is_dir(quest.parent.parent / "memory"):
        return quest.parent.parent.resolve()
    return (Path.home() / "DeepScientist").resolve()


class FrontmatterTooLarge(ValueError):
    """More values than any card holds: an alias bomb or a generated file."""


def jsonable(value: Any, budget: list[int] | None = None) -> Any:
    """YAML values as JSON would hold them, so cards validate like any other document.

    Timestamps become ISO strings, keys become strings, sets become lists. The budget
    counts values visited: YAML aliases make a small file expand exponentially, and
    walking such a tree must end long before it blows up.
    """
    budget = budget if budget is not None else [_NODE_BUDGET]
    budget[0] -= 1
    if budget[0] < 0:
        raise FrontmatterTooLarge("the frontmatter expands to too many values (YAML aliases?)")
    if isinstance(value, float) and not math.isfinite(value):  # not a JSON number: keep YAML's spelling
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k) if not isinstance(k, str) else k: jsonable(v, budget) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v, budget) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def card_tags(value: Any) -> tuple[str, ...]:
    """MemoryService ``_normalize_tags``: strip, drop empty, exact dedupe, no case folding.

    A string is a JSON list when it looks like one, else a comma list; older forks stored
    tags raw, so every shape appears in real homes.
    """
    items: list[Any]
    if value is None:
        return ()
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return ()
        items = text.split(",")
        if text.startswith("[") and text.endswith("]"):
            import json

            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                items = parsed
    elif isinstance(value, list):
        items = value
    elif isinstance(value, (int, float)):
        items = [value]
    else:
        return ()
    out: dict[str, None] = {}
    for item in items:
        tag = str(item).strip()
        if tag:
            out.setdefault(tag, None)
    return tuple(out)


# ---------------------------------------------------------------- frontmatter


class FrontmatterError(ValueError):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def _block(lines: list[str], start: int) -> int | None:
    """Index of the closing ``---`` of a block opened at ``lines[start]``, or None."""
    for i in range(start + 1, len(lines)):
        if lines[i].rstrip() == "---":
            return i
    return None


def _load_mapping(text: str, first_line: int) -> dict[str, Any]:
    from ds_gate.io.yamldoc import YamlError, load_yaml

    try:
        data = load_yaml(text, first_line)
    except YamlError as exc:
        raise FrontmatterError(f"the frontmatter is not valid YAML: {exc.problem}", exc.line or first_line) from None
    except RecursionError:
        raise FrontmatterError("the frontmatter is nested too deeply", first_line) from None
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise FrontmatterError(f"the frontmatter holds a {type(data).__name__}, not a mapping of keys", first_line)
    try:
        out: dict[str, Any] = jsonable(data)
    except (FrontmatterTooLarge, RecursionError) as exc:
        raise FrontmatterError(str(exc) if isinstance(exc, FrontmatterTooLarge) else "the frontmatter is nested too deeply",
                               first_line) from None
    return out


def parse_card(raw: bytes, *, path: Path, display: str, scope: str, kind: str) -> Card | None:
    """A card from its bytes; None when the file has no frontmatter (not a card)."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if not raw.startswith(b"---"):
            return None
        return _broken(path, display, scope, kind, f"the card is not UTF-8 text ({exc.reason} at byte {exc.start})", 1)
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return None
    end = _block(lines, 0)
    if end is None:
        return _broken(path, display, scope, kind, "the frontmatter opened by `---` on line 1 never closes", 1,
                       "end the frontmatter with a line holding only `---`")
    blocks = [("\n".join(lines[1:end]), 2)]
    try:
        meta = _load_mapping(blocks[0][0], 2)
    except FrontmatterError as exc:
        return _broken(path, display, scope, kind, str(exc), exc.line)
    body_start = end + 1
    # a legacy second block at the start of the body fills in what the first lacks
    probe = body_start
    while probe < len(lines) and not lines[probe].strip():
        probe += 1
    legacy: frozenset[str] = frozenset()
    if probe < len(lines) and lines[probe].rstrip() == "---":
        close = _block(lines, probe)
        if close is not None:
            try:
                extra = _load_mapping("\n".join(lines[probe + 1 : close]), probe + 2)
            except FrontmatterError:
                extra = None  # body text that merely starts with a rule; not a block
            if extra is not None:
                legacy = frozenset(k for k in extra if k not in meta)
                for key in legacy:
                    meta[key] = extra[key]
                blocks.append(("\n".join(lines[probe + 1 : close]), probe + 2))
                body_start = close + 1
    return Card(path=path, display=display, scope=scope, kind=kind, meta=meta, body="\n".join(lines[body_start:]),
                blocks=tuple(blocks), legacy_keys=legacy)


def _broken(path: Path, display: str, scope: str, kind: str, message: str, line: int | None,
            hint: str = "fix the YAML between the `---` lines (DeepScientist writes it with yaml.safe_dump)") -> Card:
    finding = CARD_FRONTMATTER_INVALID.at(display, message, hint=hint, line=line)
    return Card(path=path, display=display, scope=scope, kind=kind, meta={}, body="", findings=[finding], broken=True)


# ---------------------------------------------------------------- folders


def read_cards(root: Path, *, scope: str, contain: Path, base: Path | None) -> tuple[list[Card], list[Finding]]:
    """Every card under a memory root (``<home>/memory`` or ``<quest>/memory``)."""
    findings: list[Finding] = []
    cards: list[Card] = []
    for path, kind in card_files(root, contain, base, findings):
        display = display_path(path, base)
        try:
            raw = fs.read_file(path)  # links were checked to stay inside by card_files
        except OSError as exc:  # unreadable, swapped for a FIFO since listed, or over the size limit
            findings.append(unreadable_card(display, exc))
            continue
        card = parse_card(raw, path=path, display=display, scope=scope, kind=kind)
        if card is not None:
            cards.append(card)
    return cards, findings
