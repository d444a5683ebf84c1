"""The extension API: what a lab's plugin may change or add, as pluggy hook specifications.

A plugin's functions, marked ``@ds_gate.hookimpl``, are found through the ``ds_gate`` entry-point
group; a lab's plugin is asked before the built-in one (``plugins.builtin``). See docs/plugins.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

from ds_gate.model.context import CheckContext

__all__ = ["CheckContext", "hookimpl", "hookspec"]

if TYPE_CHECKING:
    from ds_gate.model.findings import Finding
    from ds_gate.model.records import Card, Document, Quest, Run

PROJECT = "ds_gate"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec(firstresult=True)
def ds_gate_run_is_completed(run: Run) -> bool | None:
    """Does this run record count as completed (and so need a distill review)? True or False
    decides, None leaves it to the next plugin; the built-in answer is PR #60's."""


@hookspec
def ds_gate_finalization_patterns() -> list[str]:  # type: ignore[empty-body]
    """Globs (``fnmatch``, relative to the committing workspace) of files whose staging makes a commit
    a finalization commit; all plugins' count. ``quest.yaml`` turning completed and finalize
    decisions always finalize."""


@hookspec
def ds_gate_decision_actions() -> list[str]:  # type: ignore[empty-body]
    """Decision actions the quest's DeepScientist accepts besides main's ``DECISION_ACTIONS``
    and ``distill_review`` (a fork's own, e.g. med-deepscientist's ``controller_backoff_pending``).
    All plugins' lists count; an action in none of them is ``decision.unknown-action``."""


@hookspec
def ds_gate_check_record(record: Document) -> list[Finding]:  # type: ignore[empty-body]
    """Findings about one record on its own. ``record.data`` is the parsed document: never parse
    ``record.raw`` again, it is there to place a finding on a line."""


@hookspec
def ds_gate_check_card(card: Card) -> list[Finding]:  # type: ignore[empty-body]
    """Findings about one memory card on its own (``card.meta``: its frontmatter as JSON values;
    ``card.line(("key",))`` places a finding)."""


@hookspec
def ds_gate_check_patch(before: Card | None, after: Card, patching_quest: str | None) -> list[Finding]:  # type: ignore[empty-body]
    """Findings about a change to a card (``before`` None: a new card), staged or committed, or
    ``lineage --since``; ``patching_quest``: the quest making it, None when it cannot be named."""


@hookspec
def ds_gate_check_quest(quest: Quest, context: CheckContext) -> list[Finding]:  # type: ignore[empty-body]
    """Extra findings over a loaded quest; use a rule id of your own namespace (``lab.…``)."""


@hookspec
def ds_gate_reporters() -> dict[str, Any]:  # type: ignore[empty-body]
    """Output formats by name: a reporter class (``render(report) -> str``, optionally
    ``render_parts``) or a ``"module:Class"`` string, imported when that format is asked for."""
