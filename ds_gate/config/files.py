"""Reading a configuration file the quest wrote (``.ds-gate.yaml``, ``pyproject.toml``), once.

The defaults (``config.quest``), the decision actions and the waivers (``config.waivers``) are
all read from the same two files; one read, whose problem is said in the same words whoever
asks, lets a gate run read each file once and hand the text to every reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ds_gate.io.yamldoc import YamlError, load_yaml
from ds_gate.kernel import fs
from ds_gate.sources.location import linked_outside


def quest_file(root: Path, name: str) -> tuple[str | None, str | None]:
    """(text, None), (None, why it cannot be read), or (None, None) when there is no such file.
    A link out of the quest is never followed; the read is bounded (``fs.read_file``)."""
    path = root / name
    if not path.is_file() and not path.is_symlink():
        return None, None

    target = linked_outside(root, path)
    if target is not None:
        return None, f"{name} is a symbolic link to {target}, outside the quest; not followed"
    try:
        return fs.read_file(path).decode("utf-8-sig"), None
    except fs.TooLarge as exc:
        return None, f"{name} is {exc.strerror}"
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{name} cannot be read: {exc}"


def yaml_of(root: Path, name: str) -> tuple[Any, str | None]:
    """(the loaded YAML, None) or (None, why it cannot be read) of a file the quest wrote, read
    as ``quest_file`` reads it and loaded safely (``io.yamldoc``: no tag builds an object)."""
    text, problem = quest_file(root, name)
    if text is None:
        return None, problem or f"there is no {name}"
    try:
        return load_yaml(text), None
    except YamlError as exc:
        return None, f"{name} is not valid YAML: {exc}"
