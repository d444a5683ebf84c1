"""The one reader of a ``tags`` value (a card's frontmatter, a ``--jsonl`` record, a run
record), bounded: at most ``MAX_TAGS`` tags of ``MAX_TAG_CHARS`` characters, never a recursion,
never a parse of more text than those tags can fill.

It follows MemoryService ``_normalize_tags``; its deliberate differences, all about input no
real card holds, are in docs/limits.md. Each is reported as ``problem``, which
``sources.memory`` turns into ``card.tags-over-limit``.

``normalize_tag`` is what a tag *is* once read: one spelling for case, spacing and separators
(docs/recall-ranking.md). Recall ranks with it and the card rules compare tag sets with it
(``review.near-duplicate-card``), so it lives here, below both.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MAX_TAGS = 1000  # tags read per card or record; real cards hold a handful
MAX_TAG_CHARS = 256  # characters per tag
MAX_JSON_DEPTH = 32  # a JSON-list string of tags is flat; a little nesting is still read (and skipped)
MAX_TAGS_TEXT = MAX_TAGS * (MAX_TAG_CHARS + 8)  # a string longer than this holds more than MAX_TAGS tags it could read

_RUN = re.compile(r"[\s_]+")
_COLON = re.compile(r"\s*:\s*")
_DASHES = re.compile(r"-{2,}")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


@dataclass(frozen=True, slots=True)
class Tags:
    """The tags read, as written (stripped, deduplicated, in order), and why some were not."""

    values: tuple[str, ...]
    problem: str | None = None


def _json_depth(text: str) -> int:
    """How deep a JSON text nests, counted on its brackets outside strings (C-speed passes,
    then a loop over the brackets alone, which ``MAX_TAGS_TEXT`` bounds)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return 0
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    deepest = depth = 0
    for ch in brackets:
        depth = depth + 1 if ch in "[{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    return deepest


def _items(text: str) -> tuple[list[Any], str | None]:
    """A tags string's items: a JSON list when it looks like one and parses, else a comma list."""
    if text.startswith("[") and text.endswith("]"):
        depth = _json_depth(text)
        if depth > MAX_JSON_DEPTH:
            return [], f"the tags are a JSON list nested {depth} levels deep; not read (a tag list is flat)"
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, list):
            return parsed, None
    return text.split(","), None


def parse_tags(value: Any) -> Tags:
    """``value`` as MemoryService reads tags, within the bounds above."""
    problem: str | None = None
    items: list[Any]
    if value is None:
        return Tags(())
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return Tags(())
        if len(text) > MAX_TAGS_TEXT:
            return Tags(
                (),
                f"the tags are a string of {len(text):,} characters, more than {MAX_TAGS:,} tags of "
                f"{MAX_TAG_CHARS} characters can fill; not read",
            )
        items, problem = _items(text)
    elif isinstance(value, list):
        items = value
    elif isinstance(value, (int, float)):
        items = [value]
    else:
        return Tags(())
    out: dict[str, None] = {}
    skipped = long = 0
    for item in items:
        if len(out) >= MAX_TAGS:
            problem = problem or f"more than {MAX_TAGS:,} tags; the first {MAX_TAGS:,} are read"
            break
        if isinstance(item, (list, dict)):
            skipped += 1
            continue
        tag = str(item).strip() if item is not None else ""
        if len(tag) > MAX_TAG_CHARS:
            long += 1
        elif tag:
            out.setdefault(tag, None)
    if problem is None and skipped:
        problem = f"{skipped} tag(s) are lists or mappings, not strings; skipped"
    if problem is None and long:
        problem = f"{long} tag(s) are longer than {MAX_TAG_CHARS} characters; skipped"
    return Tags(tuple(out), problem)


def card_tags(value: Any) -> tuple[str, ...]:
    """The tags alone (see ``parse_tags``), for recall's ranking."""
    return parse_tags(value).values


def normalize_tag(tag: Any) -> str:
    """``" Topic: Learning_Rate "`` -> ``"topic:learning-rate"``; the same for cards and queries."""
    return _normalize(str(tag))


@functools.lru_cache(maxsize=65536)
def _normalize(tag: str) -> str:
    """``normalize_tag`` of a string, remembered: 10,000 cards share a few hundred tags."""
    text = unicodedata.normalize("NFKC", tag).casefold().strip()
    text = _COLON.sub(":", text)  # "Topic: Reward Hacking" is topic:reward-hacking
    return _DASHES.sub("-", _RUN.sub("-", text))  # "data - dedup" is data-dedup


def normalize_tags(tags: Iterable[Any]) -> tuple[str, ...]:
    """Each tag normalised, the empty ones dropped, the first of each spelling kept, in order."""
    return tuple(dict.fromkeys(norm for norm in map(normalize_tag, tags) if norm))
