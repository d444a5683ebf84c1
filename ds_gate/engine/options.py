"""``GateOptions``: what a caller asks of one gate run, one typed shape for every front end.

The command line builds one from its flags (``cli.options``: a flag, then the trusted
configuration, then what the quest may add), the pytest plugin from its options and ini values
(``pytest.plugin``), and ``evaluate``'s keywords are its fields; the engine (``gate.Gate``) reads
only this. What each option means is written once here (``HELP``); each front end words its
flags from it. Imports nothing at run time: the pytest plugin reads ``HELP`` in every session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ds_gate.model.findings import Finding


@dataclass(frozen=True, slots=True)
class GateOptions:
    """One gate run's options; each field's meaning is ``HELP[field]``."""

    require: bool = False
    no_require: bool = False  # trusted only (a flag, the trusted configuration), never the quest
    home: Path | str | None = None  # default: $DEEPSCIENTIST_HOME, $DS_HOME, ~/DeepScientist
    source: str = "auto"  # auto, folders, git or both (sources.select.SOURCES)
    refs: Sequence[str] | None = None  # None: the source's default refs
    cache: bool = True
    accept_quest_waivers: bool = False
    config: str | None = None  # the trusted configuration file; None: $DS_GATE_CONFIG, else the user's
    finalization: Sequence[str] = ()  # why the commit or push being judged finalizes the quest
    staged_findings: Sequence[Finding] = ()  # the commit hook's staged cards' findings (already waived)


PATHS = "quests or DeepScientist homes to check"
HOME_DEFAULT = "(default: $DEEPSCIENTIST_HOME, $DS_HOME, ~/DeepScientist)"
FROM_GIT = "read artifacts from the tips of git branches"
# What each option means, as both front ends say it (pytest's help adds where the option comes from).
HELP = {
    "home": "the DeepScientist home",
    "require": "enforce the gate even where experience_distill is off",
    "no_require": "do not enforce the closure gate, even where experience_distill is on (now or in any quest.yaml "
    "the gate can see); only a trusted caller can say this, never the quest",
    "accept_quest_waivers": "let the waivers and baselines written inside the quest (.ds-gate.yaml) lower the verdict; "
    "without it they are proposals that are printed but waive nothing. Rules that fail closed are never "
    "waived",
    "config": "the trusted configuration file (default: $DS_GATE_CONFIG, else $XDG_CONFIG_HOME/ds-gate/config.yaml "
    "or ~/.config/ds-gate/config.yaml); it must lie outside the quest",
    "refs": "the refs to read (repeatable; default: refs/heads and refs/remotes)",
    "cache": "neither read nor write the cache of record files (in $DS_GATE_CACHE_DIR, else $XDG_CACHE_HOME/ds-gate "
    "or ~/.cache/ds-gate); the verdict is the same either way",
}
