"""ds-gate's own rules, as a plugin: the same hooks a lab's plugin implements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..hookspecs import hookimpl

if TYPE_CHECKING:
    from ..hookspecs import CheckContext
    from ..model import Finding, Quest, Run


@hookimpl
def ds_gate_run_is_completed(run: Run) -> bool:
    from ..checks.coverage import is_completed

    return is_completed(run)


@hookimpl
def ds_gate_finalization_patterns() -> list[str]:
    from ..commit_hook import MANIFEST

    return [MANIFEST]


@hookimpl
def ds_gate_check_quest(quest: Quest, context: CheckContext) -> list[Finding]:
    """The memory cards: the quest's own, and those its reviews say they wrote."""
    from ..memory import quest_memory

    result = quest_memory(quest, context.reviews, context.home)
    context.cards.extend(result.cards)
    context.home_path = result.home
    return result.findings


@hookimpl
def ds_gate_reporters() -> dict[str, Any]:
    from ..reporters import BUILTIN

    return dict(BUILTIN)
