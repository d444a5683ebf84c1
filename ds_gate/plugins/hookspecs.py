"""The extension API: what a lab's plugin may change or add, as pluggy hook specifications.

A plugin is a module or object with functions marked ``@hookimpl`` (``ds_gate.hookimpl``)
whose names match these specifications, exposed through the ``ds_gate`` entry-point group::

    [project.entry-points.ds_gate]
    lab_rules = "lab_rules"

ds-gate's own rules are plugins on the same PluginManager (``ds_gate.plugins.builtin``),
registered first; pluggy calls the most recently registered implementation first, so
a lab's plugin is asked before the built-in one and can override a ``firstresult`` hook.
``check_pending()`` runs after loading: an implementation whose name matches no
specification (a misspelling) is an error, never a silently ignored rule.
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
    """Does this run record count as completed (and so need a distill review)?

    Return True or False to decide, None to leave it to the next plugin. The built-in
    answer is PR #60's: ``run_kind`` in main_experiment / analysis.slice / experiment and
    ``status`` in completed / success / succeeded / done.
    """


@hookspec
def ds_gate_finalization_patterns() -> list[str]:  # type: ignore[empty-body]
    """Glob patterns (``fnmatch``, relative to the committing workspace) of files whose
    staging makes a commit a finalization commit. All plugins' patterns count.

    Built in: ``paper/paper_bundle_manifest.json``. A ``quest.yaml`` whose status becomes
    completed and finalize/quest_completion decisions are always finalizing.
    """


@hookspec
def ds_gate_decision_actions() -> list[str]:  # type: ignore[empty-body]
    """Decision actions the quest's DeepScientist accepts besides main's ``DECISION_ACTIONS``
    and ``distill_review`` (a fork's own, e.g. med-deepscientist's ``controller_backoff_pending``).
    All plugins' lists count; an action in none of them is ``decision.unknown-action``."""


@hookspec
def ds_gate_check_record(record: Document) -> list[Finding]:  # type: ignore[empty-body]
    """Findings about one record on its own (every run and decision record a source reads,
    every record ``validate`` and the commit hook check). ``record.data`` is the parsed
    document: never parse ``record.raw`` again, it is there to place a finding on a line.
    Declare your rules with ``ds_gate.Rule`` and build findings with ``RULE.at(...)``."""


@hookspec
def ds_gate_check_card(card: Card) -> list[Finding]:  # type: ignore[empty-body]
    """Findings about one memory card on its own (``card.meta`` is its frontmatter as JSON
    values, ``card.body`` its text; ``card.line(("key",))`` places a finding): every card a
    quest check, ``lineage``, ``validate`` or the commit hook reads."""


@hookspec
def ds_gate_check_patch(before: Card | None, after: Card, patching_quest: str | None) -> list[Finding]:  # type: ignore[empty-body]
    """Findings about a change to a card (``before`` is None for a new card): the commit
    hook's staged cards against ``HEAD``, each committed version of a quest's cards against its
    last lawful one (``engine.patch_history``: check, closure, finalization, pre-push), and
    ``lineage --since``. ``patching_quest`` is the
    quest making the change, None when it cannot be named."""


@hookspec
def ds_gate_check_quest(quest: Quest, context: CheckContext) -> list[Finding]:  # type: ignore[empty-body]
    """Extra findings over a loaded quest, for ``check``, ``closure`` and the commit hook's
    closure. Use a rule id of your own namespace (``lab.…``); errors fail the gate."""


@hookspec
def ds_gate_reporters() -> dict[str, Any]:  # type: ignore[empty-body]
    """Output formats by name: a reporter class (instances have ``render(report) -> str``, and
    may have ``render_parts(report)``, an iterable of strings that join to ``render``'s text,
    which the command line then writes a part at a time) or a ``"module:Class"`` string,
    imported when that format is asked for."""
