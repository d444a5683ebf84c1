"""ds-gate's own rules, as a plugin: the same hooks a lab's plugin implements.

Plain functions, so calling them needs no pluggy; ``plugins.manager()`` marks them with
``hookimpl`` when it registers this module (see ``plugins.hooks``).
"""

from __future__ import annotations

from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ds_gate.context import CheckContext
    from ds_gate.model import Finding, Quest, Run



def ds_gate_run_is_completed(run: Run) -> bool:
    from ds_gate.checks.coverage import is_completed

    return is_completed(run)


def ds_gate_finalization_patterns() -> list[str]:
    from ds_gate.commit_hook import MANIFEST

    return [MANIFEST]


def ds_gate_check_quest(quest: Quest, context: CheckContext) -> list[Finding]:
    """The memory cards: the quest's own, and those its reviews say they wrote."""
    from ds_gate.memory import quest_memory

    result = quest_memory(quest, context.reviews, context.home)
    context.cards.extend(result.cards)
    context.home_path = result.home
    return result.findings


def ds_gate_reporters() -> dict[str, Any]:
    from ds_gate.reporters import BUILTIN

    return dict(BUILTIN)
