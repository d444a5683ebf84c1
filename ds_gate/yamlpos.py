"""Line numbers for JSON pointers into YAML: PyYAML's node tree knows where each value is.

Used only when a finding about a card needs a line, so a card is composed (not
constructed) at most once more, and only then.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any


@functools.lru_cache(maxsize=8)
def _compose(text: str) -> Any:
    """The node tree of a YAML text, composed once however many findings it carries
    (a 10,000-entry lineage has 10,000 of them); False when it does not compose."""
    import yaml

    from ds_gate.sources.quest import yaml_loader

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
