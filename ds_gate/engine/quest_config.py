"""The quest's own configuration, read once per gate run and handed to each step that needs it.

``.ds-gate.yaml`` and ``[tool.ds-gate]`` say four things the gate uses at four moments: the
defaults (the command's options, then ``refuse_unread``), the decision actions (the record
rules, the review encoding, the quest-only actions), and the waivers. Each used to read the
files again; a gate run now reads each file once here, and every step takes what it needs from
this record, so the run also judges one version of the files, never two.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ds_gate.config.files import quest_file
from ds_gate.config.quest import (
    Defaults,
    actions_of,
    defaults_of,
    pyproject_defaults_of,
    yaml_defaults_of,
)
from ds_gate.config.waivers import waivers_of
from ds_gate.kernel.layout import PYPROJECT
from ds_gate.kernel.layout import QUEST_CONFIG as FILE

if TYPE_CHECKING:
    from ds_gate.config.waivers import Waiver
    from ds_gate.model.findings import Finding


@dataclass(frozen=True, slots=True)
class QuestConfig:
    """What the quest's configuration files say, as each reader of them would have read it."""

    root: Path
    present: bool  # either file is there (``config.quest.configured`` is not None)
    defaults: Defaults  # ``read_defaults``: empty when neither file is there
    actions: tuple[str, ...]  # ``decision_actions``: a fork's actions the quest names
    waivers: tuple[list[Waiver], list[Finding]]  # ``load_waivers``: its own waivers and their problems

    @property
    def configured(self) -> Defaults | None:
        """The defaults, or None when the quest has neither file (``config.quest.configured``)."""
        return self.defaults if self.present else None


def read_quest_config(root: Path) -> QuestConfig:
    """Read ``.ds-gate.yaml`` and ``pyproject.toml`` at the quest root once, and parse each for
    every reader (their parsers differ on purpose: a broken file sets no default, adds no
    action and no waiver, each in its own words)."""
    present = os.path.lexists(root / FILE) or os.path.lexists(root / PYPROJECT)
    yaml_text, yaml_problem = quest_file(root, FILE)
    toml_text, toml_problem = quest_file(root, PYPROJECT)
    toml_found = pyproject_defaults_of(toml_text, toml_problem)
    return QuestConfig(
        root=root,
        present=present,
        defaults=defaults_of(root, yaml_defaults_of(yaml_text, yaml_problem), toml_found),
        actions=tuple(actions_of(yaml_text, toml_found[0])),
        waivers=waivers_of(yaml_text, yaml_problem),
    )
