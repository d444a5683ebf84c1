"""YAML as ds-gate reads it: safe loading only, and where in the text a value or an error is.

Line numbers come from PyYAML's node tree, composed only when a finding needs a line, so a
card is composed (not constructed) at most once more, and only then.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any


class YamlError(ValueError):
    """A YAML text that does not load: the parser's problem and its 1-based line (if known)."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


def yaml_loader() -> Any:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str, first_line: int = 1) -> Any:
    """Safe YAML only: tags such as ``!!python/object`` raise instead of constructing.

    Raises ``YamlError`` with the parser's problem placed on a line of the file
    (``first_line`` is the file line the text starts on, 2 for a frontmatter block).
    """
    import yaml

    try:
        return yaml.load(text, Loader=yaml_loader())  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlError(problem, first_line + mark.line if mark is not None else None) from None
    except (ValueError, OverflowError) as exc:  # a value YAML parses but cannot build, e.g. the date 2026-02-30
        raise YamlError(f"a value cannot be read: {exc}", None) from None


@functools.lru_cache(maxsize=8)
def _compose(text: str) -> Any:
    """The node tree of a YAML text, composed once however many findings it carries
    (a 10,000-entry lineage has 10,000 of them); False when it does not compose."""
    import yaml

    try:
        return yaml.compose(text, Loader=yaml_loader())
    except (yaml.YAMLError, RecursionError):
        return False


def line_of(text: str, parts: Sequence[str | int], first_line: int = 1) -> int | None:
    """1-based line of the value at ``parts`` (the nearest existing parent when absent).

    ``first_line`` is the file line the YAML text starts on (2 for a frontmatter block).
    """
    import yaml

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
