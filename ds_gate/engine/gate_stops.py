"""The gate's own stops and lists: where a closure cannot see, what only the quest accepts,
and what lowered a verdict. Apart from ``gate`` so each step of a run there reads in a line.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ds_gate.config.failclosed import waived_by
from ds_gate.config.settings import shown_config_path
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.plugins.manager import known_actions
from ds_gate.rules.vocabulary import DECISION_UNKNOWN_ACTION
from ds_gate.sources.problems import QUEST_NO_QUEST_YAML, QUEST_YAML_INVALID
from ds_gate.sources.quest_yaml import TOGGLES_OFF

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ds_gate.model.findings import Finding
    from ds_gate.model.records import Quest
    from ds_gate.sources.toggle_seen import Seen


def waived_sources(findings: list[Finding]) -> list[str]:
    """What lowered the verdict: each distinct source of a waived error (for the verdict line)."""
    found: list[str] = []
    for how in map(waived_by, findings):
        if how is not None and how not in found:
            found.append(how)
    return found


def quest_only_actions(quest: Quest, trusted: tuple[str, ...], quest_actions: Iterable[str]) -> list[Finding]:
    """Decisions whose action only the quest's own ``decision_actions`` accepts: the quest may
    name a fork's actions so its checkpoints go through (DeepScientist accepted them), but what
    lowers the closure verdict comes from trusted places only: the user's configuration or a
    plugin. So here they are ``decision.unknown-action`` again, saying where to list them."""
    quest_only = set(quest_actions) - known_actions() - set(trusted)
    return [
        DECISION_UNKNOWN_ACTION.at(
            decision.path,
            f"action {shown(decision.action)} is accepted only by decision_actions in the quest's own configuration, which "
            "may only make closure stricter",
            hint=f"if the quest's DeepScientist (a fork) has it, list it in the user's configuration "
            f"(decision_actions: [{decision.action}] in {shown_config_path()}) or in a plugin's "
            "ds_gate_decision_actions",
            pointer="/action",
            subject=decision.artifact_id,
        )
        for decision in quest.decisions.values()
        if decision.action is not None and decision.action.strip() in quest_only
    ]


def refuse_unseen_toggle(quest: Quest, seen: Seen | None) -> None:
    """A ``quest.yaml`` that cannot be read hides whether the gate is on: a gate that passes
    then is worse than none (DeepScientist's own ``complete_quest`` raises on such a quest).
    So does one that is missing where one is expected: a git history or a worktree that had
    one, or a DeepScientist quest's layout (``.ds/``, or a folder under ``<home>/quests``). So
    does a committed history the toggle scan could not read whole (too long, or a version git
    cannot read): the version it did not read may be the one that turned the gate on."""
    if seen is not None and seen.on_at is None and seen.unseen is not None:
        problem, fix = seen.unseen
        raise QuestError(
            f"{quest.root}: experience_distill is off in quest.yaml, but {problem}. The gate cannot tell "
            "whether it was ever on, so it does not pass",
            f"{fix}; or pass --require to enforce the gate (--no-require, or no_require in the trusted "
            "configuration, turns it off)",
            ": ",
        )
    for finding in quest.findings:
        if finding.rule == QUEST_YAML_INVALID.id:
            where = f"{quest.root / 'quest.yaml'}" + (f":{finding.line}" if finding.line else "")
            problem = finding.message.removesuffix(TOGGLES_OFF)
            raise QuestError(
                f"{where}: {problem}. The gate cannot tell whether experience_distill is on, so it does not pass",
                "fix quest.yaml (DeepScientist's complete_quest fails on it too), or pass --require to enforce "
                "the gate regardless",
                ": ",
            )
        expected = (
            (seen is not None and seen.had_quest_yaml)
            or os.path.isdir(quest.root / ".ds")
            or quest.root.parent.name == "quests"
        )
        if finding.rule == QUEST_NO_QUEST_YAML.id and expected:
            raise QuestError(
                f"{quest.root}: the quest root has no quest.yaml, where one is expected (its history, a "
                "worktree or the DeepScientist layout has one). The gate cannot tell whether "
                "experience_distill is on, so it does not pass",
                "restore quest.yaml (`git checkout <branch> -- quest.yaml`), or pass --require to enforce the "
                "gate regardless",
                ": ",
            )
