"""YAML as ds-gate reads it: safe loading only, and where in the text a value or an error is.

Line numbers come from PyYAML's node tree, composed only when a finding needs a line, so a
card is composed (not constructed) at most once more, and only then. PyYAML itself is
imported by the functions that parse (``kernel.lazy``), so importing this module costs nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import yaml


class YamlError(ValueError):
    """A YAML text that does not load: the parser's problem and its 1-based line (if known)."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


MAX_DEPTH = 1000  # far beyond any real card or quest.yaml; the C parser overflows its stack at ~25,000


def nesting_depth(text: str) -> int:
    """How deep ``text`` nests flow collections (``[[[…``) and compact sequences (``- - - …``),
    the two ways a short text nests deep. Measured before parsing, because the C parser
    recurses without a bound and a deep enough text kills the process, not just the parse."""
    if text.count("[") + text.count("{") < MAX_DEPTH and text.count("- ") < MAX_DEPTH:
        return 0  # the common case, decided by two C-speed counts
    deepest = depth = 0
    quote = ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(depth - 1, 0)
    for line in text.splitlines():
        stripped, dashes = line.lstrip(" "), 0
        while stripped.startswith("- "):
            stripped, dashes = stripped[2:].lstrip(" "), dashes + 1
        deepest = max(deepest, dashes)
    return deepest


MAX_VALUES = 100_000  # values one YAML text may hold; PyYAML spends ~500 bytes on each (docs/limits.md)


def over_values(text: str, limit: int = MAX_VALUES) -> bool:
    """True when a YAML text holds more than ``limit`` values. Two C-speed counts bound them
    from above (every value but the first follows a separator); only past the bound are the
    parser's events counted, streamed and stopped at the bound, so a 13 MB list is refused
    before PyYAML builds a node of it (memory stays a small multiple of the text, not ~50x)."""
    if sum(text.count(c) for c in ",\n:-[{?*") < limit:
        return False
    import yaml  # kernel.lazy.LAZY_PLACES

    if nesting_depth(text) > MAX_DEPTH:
        return False  # load_yaml refuses it without parsing
    values = 0
    try:
        for event in yaml.parse(text, Loader=_loader()):
            if isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, yaml.CollectionStartEvent)):
                values += 1
                if values > limit:
                    return True
    except yaml.YAMLError:
        return False  # load_yaml reports it, with its line
    return False


def _loader() -> type[yaml.CSafeLoader | yaml.SafeLoader]:
    """libyaml's safe loader (C) where PyYAML was built with it, else the pure-Python one."""
    import yaml  # kernel.lazy.LAZY_PLACES

    return yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader


def load_yaml(text: str, first_line: int = 1) -> Any:
    """Safe YAML only (``!!python/object`` raises, never constructs). ``YamlError`` places the
    parser's problem on a line of the file: ``first_line`` is where the text starts (2 for a frontmatter)."""
    import yaml  # kernel.lazy.LAZY_PLACES

    if nesting_depth(text) > MAX_DEPTH:
        raise YamlError(f"nested deeper than {MAX_DEPTH} levels; not read", first_line)
    if over_values(text):  # quest.yaml, .ds-gate.yaml, the user's configuration, a card: each is bounded
        raise YamlError(f"holds more than {MAX_VALUES:,} values; not read (docs/limits.md)", first_line)
    try:
        return yaml.load(text, Loader=_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlError(problem, first_line + mark.line if mark is not None else None) from None
    except (ValueError, OverflowError) as exc:  # a value YAML parses but cannot build, e.g. the date 2026-02-30
        raise YamlError(f"a value cannot be read: {exc}", None) from None


@functools.lru_cache(maxsize=8)
def _compose(text: str) -> yaml.Node | Literal[False] | None:
    """The node tree of a YAML text, composed once however many findings it carries
    (a 10,000-entry lineage has 10,000 of them); False when it does not compose."""
    import yaml  # kernel.lazy.LAZY_PLACES

    try:
        return yaml.compose(text, Loader=_loader())
    except (yaml.YAMLError, RecursionError):
        return False


def line_of(text: str, parts: Sequence[str | int], first_line: int = 1) -> int | None:
    """1-based line of the value at ``parts`` (the nearest existing parent when absent);
    ``first_line`` as ``load_yaml``'s."""
    import yaml  # kernel.lazy.LAZY_PLACES

    node = _compose(text)
    if node is False:
        return None
    if node is None:  # an empty block: point at its opening line
        return max(first_line - 1, 1)
    line = node.start_mark.line
    for part in parts:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                    child, line = value, key.start_mark.line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            child = node.value[part]
            line = child.start_mark.line
        if child is None:
            break
        node = child
    return int(first_line + line)
