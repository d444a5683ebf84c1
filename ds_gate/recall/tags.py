"""One tag normalisation for cards and queries, and one matching key (docs/recall-ranking.md).

Two levels, because they answer two questions: ``normalize_tag`` is what a tag *is* (shown,
counted in ``matched_tags``): ``Topic:Learning_Rate``, ``topic:learning rate`` and
``ＴＯＰＩＣ:learning-rate`` are one tag. ``match_key`` is what a tag *matches*: each word of the
value reduced to one spelling (British to American, plural to singular), then the words joined
without their separators, so a compound matches however it is written (``over-smoothing``,
``over smoothing``, ``oversmoothing``); the ``key:`` prefix kept as written so ``stage:`` and
``topic:`` never meet; a query tag without a prefix matches any prefix (``value_key``). Tags in
Chinese (or any script) go through the same steps: NFKC makes a full-width ``：`` a colon and an
ideographic space a space, and a word without a Latin plural or spelling stays as written.
``normalize_tag`` lives in ``sources.tag_values`` (the rules compare cards' tags with it too) and
is re-exported here, where recall's readers look for it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from ds_gate.sources.tag_values import normalize_tag, normalize_tags

__all__ = ["bare", "closest", "match_key", "normalize_tag", "normalize_tags", "value_key", "word_key"]

_WORDS = re.compile(r"[-./]+")

# British spellings whose American form is the same word (and never another word): the
# endings below, plus a few whole words a suffix rule would get wrong
BRITISH_ENDINGS = (
    ("isation", "ization"),
    ("isations", "izations"),
    ("ising", "izing"),
    ("ised", "ized"),
    ("iser", "izer"),
    ("isers", "izers"),
    ("yse", "yze"),
    ("ysed", "yzed"),
    ("ysing", "yzing"),
    ("ises", "izes"),
)
BRITISH_WORDS = {
    "behaviour": "behavior",
    "colour": "color",
    "modelling": "modeling",
    "labelling": "labeling",
    "normalise": "normalize",
    "optimise": "optimize",
    "regularise": "regularize",
    "tokenise": "tokenize",
    "quantise": "quantize",
    "minimise": "minimize",
    "maximise": "maximize",
    "generalise": "generalize",
    "initialise": "initialize",
    "centre": "center",
    "catalogue": "catalog",
    "favour": "favor",
    "neighbour": "neighbor",
    "neighbours": "neighbors",
    "travelling": "traveling",
}
_NOT_PLURAL = ("ss", "us", "is", "ous", "ics", "as", "os")  # loss, bias, analysis, various, statistics, ...


def word_key(word: str) -> str:
    """One spelling of a word: American for the common British endings, singular for a regular
    plural (``batches`` -> ``batch``); short words, numbers and ``_NOT_PLURAL`` endings stay."""
    if word in BRITISH_WORDS:
        return BRITISH_WORDS[word]
    for british, american in BRITISH_ENDINGS:
        if word.endswith(british) and len(word) > len(british) + 2:
            word = word[: -len(british)] + american
            break
    if len(word) <= 3 or not word.isalpha() or not word.endswith("s") or word.endswith(_NOT_PLURAL):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    return word[:-1]


def value_key(value: str) -> str:
    """The matching form of a tag's value: each ``-``/``.``/``/``-separated word through ``word_key``,
    joined without separators: people write a compound closed, hyphenated or open (``pretraining``,
    ``pre-training``, ``pre training``), and two tags that differ only there mean one thing. Each
    word is reduced before the join, so ``learning-rates`` and ``learningrates`` meet too."""
    return "".join(word_key(w) for w in _WORDS.split(value) if w)


def match_key(tag: str) -> str:
    """What a normalised tag matches: its ``key:`` prefix as written, its value's words each
    in one spelling (``topic:learning-rates`` and ``topic:learning-rate`` are one key)."""
    prefix, colon, value = tag.rpartition(":")
    return f"{prefix}{colon}{value_key(value)}"


def bare(key: str) -> bool:
    """A query tag with no ``key:`` prefix, which matches a card tag of any prefix by its value."""
    return ":" not in key


def closest(tag: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known tags nearest a tag that matched nothing (what the caller may have meant),
    compared by their values so ``topic:grad-clip`` finds ``topic:gradient-clipping``."""
    pool = sorted(set(known))
    by_value: dict[str, list[str]] = {}
    for item in pool:
        by_value.setdefault(item.rpartition(":")[2], []).append(item)
    value = tag.rpartition(":")[2]
    near = difflib.get_close_matches(value, list(by_value), n=n, cutoff=0.6)
    prefix = tag.rpartition(":")[0]
    out = [t for v in near for t in sorted(by_value[v], key=lambda t: (t.rpartition(":")[0] != prefix, t))]
    out += [t for t in difflib.get_close_matches(tag, pool, n=n, cutoff=0.6) if t not in out]
    # a shorter value that holds the tag's words (grad-clip in gradient-clipping) is near too
    words = [w for w in value.split("-") if len(w) > 2]
    if words and len(out) < n:
        out += [
            t
            for t in pool
            if t not in out and all(any(p.startswith(w) for p in t.rpartition(":")[2].split("-")) for w in words)
        ][: n - len(out)]
    return out[:n]
