"""One tag normalisation for cards and queries, so ``Topic:Learning_Rate``,
``topic:learning rate`` and ``ＴＯＰＩＣ:learning-rate`` are one tag."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

_RUN = re.compile(r"[\s_]+")
_COLON = re.compile(r"\s*:\s*")
_DASHES = re.compile(r"-{2,}")


def normalize_tag(tag: Any) -> str:
    """``" Topic: Learning_Rate "`` -> ``"topic:learning-rate"``; the same for cards and queries.

    NFKC, casefold, strip; spaces around ``:`` dropped; runs of spaces, underscores and
    hyphens become one ``-``."""
    text = unicodedata.normalize("NFKC", str(tag)).casefold().strip()
    text = _COLON.sub(":", text)  # "Topic: Reward Hacking" is topic:reward-hacking
    return _DASHES.sub("-", _RUN.sub("-", text))  # "data - dedup" is data-dedup


def normalize_tags(tags: Iterable[Any]) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for tag in tags:
        norm = normalize_tag(tag)
        if norm:
            out.setdefault(norm, None)
    return tuple(out)
