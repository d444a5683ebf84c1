"""The words DeepScientist accepts: artifact kinds and decision actions.

``artifact.record`` refuses a record of an unknown kind, and a decision whose action is
not one of ``DECISION_ACTIONS`` (main's list, which PR #60 extends with
``distill_review``). Forks add actions of their own; a plugin's
``ds_gate_decision_actions`` and ``decision_actions`` in ``.ds-gate.yaml`` add them here.
A near miss gets a did-you-mean, because a misspelt ``distill_review`` reviews nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection

from ds_gate.kernel.errors import shown
from ds_gate.kernel.jsondoc import place
from ds_gate.kernel.layout import ARTIFACT_DIRS, KIND_OF_DIR
from ds_gate.kernel.words import (
    DECISION_ACTIONS,
    KINDS,
    MAIN_DECISION_ACTIONS,
    SCIENCE_KINDS,
    unknown_action,
    unknown_kind,
)
from ds_gate.model.findings import CONTRACT, ERROR, Finding, Rule

DECISION_UNKNOWN_ACTION = Rule(
    "decision.unknown-action",
    ERROR,
    CONTRACT,
    "a decision `action` DeepScientist does not accept (with a did-you-mean; plugins and `.ds-gate.yaml` add actions)",
)
ARTIFACT_UNKNOWN_KIND = Rule(
    "artifact.unknown-kind", ERROR, CONTRACT, "a record `kind` DeepScientist does not accept (with a did-you-mean)"
)

__all__ = [
    "DECISION_ACTIONS",
    "KINDS",
    "MAIN_DECISION_ACTIONS",
    "SCIENCE_KINDS",
    "action_finding",
    "did_you_mean",
    "kind_finding",
]


def _squash(word: str) -> str:
    return word.strip().casefold().replace("-", "_").replace(" ", "_")


def did_you_mean(given: str, known: Collection[str], aliases: dict[str, str] | None = None) -> str | None:
    """The known word ``given`` most likely meant: the same up to case, spacing and ``-``/``_``
    (or an alias such as a folder name), else a close spelling."""
    squashed = _squash(given)
    by_squash = {_squash(word): word for word in known} | {_squash(a): w for a, w in (aliases or {}).items()}
    if squashed in by_squash:
        return by_squash[squashed]

    close = difflib.get_close_matches(squashed, list(by_squash), n=1, cutoff=0.75)
    return by_squash[close[0]] if close else None


def action_finding(action: object, actions: Collection[str], raw: bytes | None, display: str) -> Finding | None:
    """An unknown text decision action; a missing, empty or non-text one is
    ``artifact.refused-by-main``'s to report (``kernel.words.main_refusals``)."""
    if not unknown_action(action, actions):
        return None
    guess = did_you_mean(action, actions)
    return DECISION_UNKNOWN_ACTION.at(
        display,
        f"action {shown(action)} is not a decision action DeepScientist accepts, so artifact.record refuses it"
        + ("; it reviews nothing" if guess == "distill_review" else ""),
        hint=f"did you mean {guess}?"
        if guess
        else "use one of DeepScientist's DECISION_ACTIONS; a fork's own actions go in .ds-gate.yaml decision_actions",
        pointer="/action",
        line=place(raw, ("action",)),
    )


def kind_finding(kind: object, raw: bytes | None, display: str) -> Finding | None:
    """A text ``kind`` DeepScientist does not know (``decisions``, ``Decision``); a missing or non-text
    one is ``artifact.refused-by-main``'s."""
    if not unknown_kind(kind):
        return None
    guess = did_you_mean(kind, KINDS, KIND_OF_DIR)
    return ARTIFACT_UNKNOWN_KIND.at(
        display,
        f"kind {shown(kind)} is not an artifact kind DeepScientist accepts, so artifact.record refuses it; the gate "
        "still reads it as a run in artifacts/runs/ (DeepScientist's collector names a record by its folder) "
        "and skips it elsewhere",
        hint=f"did you mean {guess}?" if guess else f"use one of: {', '.join(sorted(ARTIFACT_DIRS))}",
        pointer="/kind",
        line=place(raw, ("kind",)),
    )
