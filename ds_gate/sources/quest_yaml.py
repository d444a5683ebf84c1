"""What a quest's ``quest.yaml`` says: its id, status and the experience-distill toggles,
read the way DeepScientist (and PR #60's ``coerce_*_mode``) reads them; and the status main's
snapshot reads before it, in ``.ds/runtime_state.json`` (``main_status``).
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ds_gate.io.yamldoc import YamlError, load_yaml
from ds_gate.kernel import fs
from ds_gate.kernel.errors import shown
from ds_gate.kernel.finalizing import COMPLETED, STATUS_KEYS, as_python_reads
from ds_gate.kernel.layout import RUNTIME_STATE
from ds_gate.model.findings import Finding
from ds_gate.sources.fixes import first_link
from ds_gate.sources.location import linked_outside
from ds_gate.sources.problems import (
    QUEST_NO_QUEST_YAML,
    QUEST_TOGGLE_UNRECOGNISED,
    QUEST_YAML_INVALID,
    TOO_LARGE_HINT,
    symlink_outside,
)


def read_quest_yaml(root: Path) -> tuple[dict[str, Any], list[Finding]]:
    path = root / "quest.yaml"

    target = linked_outside(root, path)
    if target is not None:  # never followed: the toggles are then unknown, and closure stops on it
        return {}, [
            _quest_yaml_finding(f"quest.yaml is a symbolic link to {target}, outside the quest; not followed", None)
        ]
    try:
        text = fs.read_file(path).decode("utf-8-sig")
    except FileNotFoundError:
        return {}, [
            QUEST_NO_QUEST_YAML.at(
                "quest.yaml",
                "the quest root has no quest.yaml; experience_distill and recall_priors count as off",
                hint="run ds-gate on a DeepScientist quest root, or pass --require to enforce the gate anyway",
            )
        ]
    except fs.TooLarge as exc:
        return {}, [too_large_finding(exc)]
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [_quest_yaml_finding(f"quest.yaml cannot be read: {exc}", None)]
    return parse_quest_yaml(text)


def too_large_finding(exc: OSError) -> Finding:
    """``quest.yaml`` over the size limit: the toggles are then unknown, as for one that does
    not parse, so closure stops on it (``quest.yaml-invalid``), and the hint says how to allow it."""
    return QUEST_YAML_INVALID.at("quest.yaml", f"quest.yaml is {exc.strerror}" + TOGGLES_OFF, hint=TOO_LARGE_HINT)


def parse_quest_yaml(text: str) -> tuple[dict[str, Any], list[Finding]]:
    """A ``quest.yaml`` text's mapping, or what keeps it from being one (``quest.yaml-invalid``)."""
    try:
        data = load_yaml(text)
    except YamlError as exc:
        return {}, [_quest_yaml_finding(f"quest.yaml is not valid YAML: {exc.problem}", exc.line)]
    if data is None:
        return {}, []
    if not isinstance(data, Mapping):
        return {}, [_quest_yaml_finding(f"quest.yaml holds a {type(data).__name__}, not a mapping", 1)]
    return dict(data), []


TOGGLES_OFF = "; experience_distill and recall_priors count as off"


def _quest_yaml_finding(message: str, line: int | None) -> Finding:
    return QUEST_YAML_INVALID.at(
        "quest.yaml",
        message + TOGGLES_OFF,
        hint="fix quest.yaml, or pass --require to enforce the gate regardless",
        line=line,
    )


_OFF_WORDS = {"off", "", "false", "no", "none", "null"}


def coerce_toggle(value: Any) -> bool:
    """PR #60's ``coerce_*_mode``: ``true``, ``"on"`` in any case, or ``{mode: <one of those>}``."""
    if isinstance(value, Mapping):
        value = value.get("mode")
    if value is True:
        return True
    return isinstance(value, str) and value.strip().casefold() == "on"


def _looks_off(value: Any) -> bool:
    if isinstance(value, Mapping):
        value = value.get("mode")
    return value is None or value is False or (isinstance(value, str) and value.strip().casefold() in _OFF_WORDS)


def toggle_finding(name: str, value: Any) -> Finding | None:
    """A value that reads as off but was probably meant as on deserves a word."""
    if coerce_toggle(value) or _looks_off(value):
        return None
    return QUEST_TOGGLE_UNRECOGNISED.at(
        "quest.yaml",
        f"startup_contract.{name} is {short_repr(value)}, which DeepScientist reads as off",
        hint=f"write `{name}: on` (or `{name}: {{mode: on}}`) to turn it on, or `off` to silence this",
        pointer=f"/startup_contract/{name}",
    )


def short_repr(value: Any) -> str:
    """A value as it may appear in a message: bounded, even for a YAML alias bomb."""
    limits = reprlib.Repr()
    limits.maxlevel, limits.maxlist, limits.maxdict, limits.maxstring, limits.maxother = 3, 5, 5, 80, 80
    return limits.repr(value)


def scalar_text(value: Any) -> str | None:
    """YAML turns ``001`` into 1, ``on`` into True and timestamps into datetimes: make text again."""
    if value is None or isinstance(value, (Mapping, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


def main_status(root: Path, yaml_status: str | None) -> tuple[str | None, list[Finding]]:
    """The quest's status as main's snapshot reads it: ``.ds/runtime_state.json``'s
    ``display_status``, else its ``status``, else ``quest.yaml``'s (a key the file lacks takes
    ``quest.yaml``'s, as main's defaults do). ``completed`` wherever one of them says it (stripped,
    any case: the hooks count each as a finalization, ``kernel.finalizing``), so the quest's status
    never hides a completion main may act on. A file that leads out of the quest, does not parse or
    cannot be read is not asked (main then takes ``quest.yaml``'s); one that leads out of the quest,
    which main follows, is never followed and is a finding closure stops on, as for ``quest.yaml``."""
    path = root / RUNTIME_STATE
    try:
        target = linked_outside(root, path)
        raw = fs.read_file(path) if target is None else None
    except OSError:
        target = raw = None
    found = []
    if target is not None:
        link = first_link(root, path)
        found.append(
            symlink_outside(
                link.relative_to(root).as_posix(),
                target,
                kind="file" if link == path else "folder",
                what="the runtime state (main reads the quest's status there)",
            )
        )
    data = as_python_reads(raw) if raw is not None else None
    state = data if isinstance(data, dict) else {}
    said = [scalar_text(state.get(key, yaml_status)) for key in STATUS_KEYS] + [yaml_status]
    if any(isinstance(value, str) and value.strip().casefold() == COMPLETED for value in said):
        return COMPLETED, found
    return next((value for value in said if value), None), found


def quest_id_of(meta: Mapping[str, Any], root: Path) -> str:
    value = meta.get("quest_id")
    # `quest_id: 001` written by hand loads as int 1; the folder keeps the padding.
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and root.name.isascii()
        and root.name.isdigit()
        and int(root.name) == value
    ):
        return root.name
    return scalar_text(value) or root.name


def committing_quest(root: Path, head_yaml: bytes | OSError | None) -> tuple[str | None, str | None]:
    """(the quest a commit is made by, or None; why it is None) for the patch rules: only what the
    commit cannot change counts, its folder under ``<home>/quests/`` and ``quest_id`` in
    ``quest.yaml`` at ``HEAD`` (the staged one would let a quest pose as a card's owner in the very
    commit that rewrites the card). When the two disagree, nobody is named: the strict rules apply."""
    folder = root.name if root.parent.name == "quests" else None
    if isinstance(head_yaml, OSError):  # over the size limit: who it names is unknown, so nobody is named
        return None, (
            f"quest.yaml at HEAD is {head_yaml.strerror}; the patch rules treat the commit as made by a "
            "quest that cannot be named"
        )
    declared = None
    if head_yaml:
        meta, _ = parse_quest_yaml(head_yaml.decode("utf-8-sig", "replace"))
        if meta.get("quest_id") is not None:
            declared = quest_id_of(meta, root)
    if folder is not None and declared is not None and folder != declared:
        return None, (
            f"quest.yaml at HEAD names quest {shown(declared)} but the quest's folder is quests/{folder}; "
            "the patch rules treat the commit as made by a quest that cannot be named"
        )
    return folder or declared, None
