"""Memory cards as DeepScientist writes them: Markdown files with YAML frontmatter.

Real homes hold more than MemoryService writes today, and this reader copes with all of it:
files with no frontmatter (skipped quietly, as DeepScientist reads them), a second "legacy"
frontmatter block filling in what the first lacks (as PR #60 reads it), tags in three shapes,
non-string YAML scalars, the same ``id`` in several files. The per-kind ``_index.jsonl`` is never
read: it is append-only and stale, and DeepScientist's own listing ignores it too. Cards are
found as MemoryService finds them (``<root>/<kind>/*.md``, ``<root>/ideas/<idea_id>/*.md``);
symbolic links out of the memory folder are reported, never followed (``card_files``).
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.io.yamldoc import MAX_VALUES, YamlError, line_of, load_yaml, over_values
from ds_gate.kernel import fs
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.given_path import given_path, spelled
from ds_gate.kernel.places import HOME_VARIABLES
from ds_gate.model.findings import Finding
from ds_gate.model.records import Card
from ds_gate.sources.card_files import card_files, display_path, read_listed, unreadable_card
from ds_gate.sources.problems import (
    CARD_FRONTMATTER_INVALID,
    CARD_TAGS_OVER_LIMIT,
    INPUT_TOO_LARGE,
)
from ds_gate.sources.tag_values import card_tags, parse_tags

if TYPE_CHECKING:
    from ds_gate.kernel.answers import Watch

__all__ = ["card_tags", "jsonable", "parse_card", "read_cards", "resolve_home"]  # card_tags: re-exported

_NODE_BUDGET = 200_000  # values one frontmatter expands to (aliases): far above any real card, far below a bomb
MAX_FRONTMATTER_CHARS = 1 << 20  # characters of one frontmatter block; the body may be as long as the file limit
MAX_CARD_VALUES = MAX_VALUES  # values one frontmatter's text holds (io.yamldoc: every YAML input's bound)
_RULE = re.compile(r"^---[^\S\n]*$", re.M)  # a line holding only `---` (trailing blanks allowed)
_BLANK_LINES = re.compile(r"(?:[^\S\n]*\n)*")


def resolve_home(
    given: str | os.PathLike[str] | None = None, quest: Path | None = None, watch: Watch | None = None
) -> Path:
    """``--home``, else ``$DEEPSCIENTIST_HOME``, else ``$DS_HOME``, else the home the quest lies in
    (``<home>/quests/<id>`` with a ``<home>/memory``: a researcher who keeps DeepScientist elsewhere
    means that home), else ``~/DeepScientist``. A home may be missing (a CI clone of one quest:
    callers say so); a named one that is a file, or a path that cannot be resolved (a loop of
    links, a name too long, a NUL byte), is the ``QuestError`` naming it (exit 2). ``watch`` gets
    the home as named with what it resolved to, and the home (a kept answer, ``kernel.answers``;
    one naming a quest is never kept: where a quest lies is git's answer)."""
    named: str | os.PathLike[str] | None = None
    if given is not None and (not isinstance(given, str) or given.strip()):
        named, how = given, "--home or home="
    for name in HOME_VARIABLES if named is None else ():
        value = os.environ.get(name, "").strip()
        if value:
            named, how = value, f"${name}"
            break
    if (
        named is None
        and quest is not None
        and quest.parent.name == "quests"
        and fs.is_dir(quest.parent.parent / "memory")
    ):
        return quest.parent.parent.resolve()
    if named is None:
        named, home = os.path.join(os.path.expanduser("~"), "DeepScientist"), (Path.home() / "DeepScientist").resolve()
    else:
        home = _a_folder(given_path(named, "home", must_exist=False), how)
    if watch is not None:
        watch.real(os.path.expanduser(os.fspath(named)), home)
        watch.kind(home)
    return home


def _a_folder(home: Path, named: str) -> Path:
    if os.path.exists(home) and not fs.is_dir(home):
        raise QuestError(
            f"{spelled(str(home))}: the DeepScientist home ({named}) is not a folder — pass the folder that holds "
            "memory/ and quests/"
        )
    return home


class FrontmatterTooLarge(ValueError):
    """More values than any card holds: an alias bomb or a generated file."""


def jsonable(value: Any, budget: list[int] | None = None) -> Any:
    """YAML values as JSON would hold them (timestamps as ISO strings, keys as strings, sets as
    lists), so cards validate like any other document. ``budget`` counts values visited: YAML
    aliases expand a small file exponentially, and the walk must end long before it blows up."""
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


# ---------------------------------------------------------------- frontmatter


class FrontmatterError(ValueError):
    def __init__(self, message: str, line: int | None, too_large: bool = False) -> None:
        super().__init__(message)
        self.line = line
        self.too_large = too_large


def _load_mapping(text: str, first_line: int) -> dict[str, Any]:
    if len(text) > MAX_FRONTMATTER_CHARS:
        raise FrontmatterError(
            f"the frontmatter is {len(text):,} characters, more than the {MAX_FRONTMATTER_CHARS:,} "
            f"ds-gate reads; not read",
            first_line,
            too_large=True,
        )
    if over_values(text):
        raise FrontmatterError(
            f"the frontmatter holds more than {MAX_CARD_VALUES:,} values; not read", first_line, too_large=True
        )
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
        raise FrontmatterError(
            str(exc) if isinstance(exc, FrontmatterTooLarge) else "the frontmatter is nested too deeply", first_line
        ) from None
    return out


def parse_card(raw: bytes, *, path: Path, display: str, scope: str, kind: str) -> Card | None:
    """A card from its bytes; None when the file has no frontmatter (not a card). Blocks are found
    by offsets, never by splitting lines: a card of empty lines costs its text, not 50 bytes a line."""
    broken = functools.partial(_broken, path, display, scope, kind)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if not raw.startswith(b"---"):
            return None
        return broken(f"the card is not UTF-8 text ({exc.reason} at byte {exc.start})", 1)
    text = text.replace("\r\n", "\n")
    opening = _RULE.match(text)
    if opening is None:
        return None
    end = _RULE.search(text, opening.end())
    if end is None:
        return broken(
            "the frontmatter opened by `---` on line 1 never closes",
            1,
            "end the frontmatter with a line holding only `---`",
        )
    blocks = [(text[opening.end() + 1 : max(end.start() - 1, opening.end() + 1)], 2)]
    try:
        meta = _load_mapping(blocks[0][0], 2)
    except FrontmatterError as exc:
        return broken(str(exc), exc.line, too_large=exc.too_large)
    body_start = end.end() + 1
    # a legacy second block at the start of the body fills in what the first lacks
    blank = _BLANK_LINES.match(text, min(body_start, len(text)))  # always matches, perhaps nothing
    probe = blank.end() if blank is not None else body_start
    legacy: frozenset[str] = frozenset()
    second = _RULE.match(text, probe) if probe < len(text) else None
    close = _RULE.search(text, second.end()) if second is not None else None
    if second is not None and close is not None:  # both set, or neither
        block = text[second.end() + 1 : max(close.start() - 1, second.end() + 1)]
        first_line = text.count("\n", 0, probe) + 2
        try:
            extra = _load_mapping(block, first_line)
        except FrontmatterError:
            extra = None  # body text that merely starts with a rule; not a block
        if extra is not None:
            legacy = frozenset(k for k in extra if k not in meta)
            for key in legacy:
                meta[key] = extra[key]
            blocks.append((block, first_line))
            body_start = close.end() + 1
    card = Card(
        path=path,
        display=display,
        scope=scope,
        kind=kind,
        meta=meta,
        body=text[body_start:],
        blocks=tuple(blocks),
        legacy_keys=legacy,
    )
    tags = parse_tags(meta.get("tags"))
    if tags.problem is not None:
        line = (
            line_of(blocks[0][0], ["tags"], 2)
            if "tags" not in legacy
            else line_of(blocks[-1][0], ["tags"], blocks[-1][1])
        )
        card.findings.append(CARD_TAGS_OVER_LIMIT.at(display, tags.problem, pointer="/tags", hint=TAGS_HINT, line=line))
    return card


TAGS_HINT = "a card holds a short flat list of tags (`tags: [topic:a, stage:b]`); see docs/limits.md"


def _broken(
    path: Path,
    display: str,
    scope: str,
    kind: str,
    message: str,
    line: int | None,
    hint: str = "fix the YAML between the `---` lines (DeepScientist writes it with yaml.safe_dump)",
    too_large: bool = False,
) -> Card:
    if too_large:
        finding = INPUT_TOO_LARGE.at(
            display,
            message,
            line=line,
            hint="a card's frontmatter holds a few dozen values; move data into the body "
            "or a file of its own (docs/limits.md)",
        )
    else:
        finding = CARD_FRONTMATTER_INVALID.at(display, message, hint=hint, line=line)
    return Card(path=path, display=display, scope=scope, kind=kind, meta={}, body="", findings=[finding], broken=True)


# ---------------------------------------------------------------- folders


def read_cards(root: Path, *, scope: str, base: Path | None) -> tuple[list[Card], list[Finding]]:
    """Every card under a memory root (``<home>/memory`` or ``<quest>/memory``), none reached through
    a link out of that folder (``card_files``)."""
    findings: list[Finding] = []
    cards: list[Card] = []
    for path, kind, listed in card_files(root, base, findings):
        display = display_path(path, base)
        try:
            raw = read_listed(path, listed)  # the file card_files contained in the memory folder, not a swap
        except OSError as exc:  # unreadable, swapped for a FIFO since listed, or over the size limit
            findings.append(unreadable_card(display, exc))
            continue
        card = parse_card(raw, path=path, display=display, scope=scope, kind=kind)
        if card is not None:
            cards.append(card)
    return cards, findings
