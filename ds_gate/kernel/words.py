"""The words DeepScientist accepts, and the two questions asked of them: is this a kind
``artifact.record`` takes, is this a decision action it takes.

Apart from ``rules.vocabulary`` (which words the findings, with a did-you-mean) because the
commit hook asks both questions of every staged record and must not import the findings'
dataclasses to hear "yes".
"""

from __future__ import annotations

from ds_gate.kernel.layout import ARTIFACT_DIRS

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import TypeGuard

# artifact/schemas.py DECISION_ACTIONS on DeepScientist main (b366244)
MAIN_DECISION_ACTIONS = frozenset({
    "continue", "launch_experiment", "launch_analysis_campaign", "branch", "prepare_branch", "activate_branch",
    "reuse_baseline", "attach_baseline", "publish_baseline", "waive_baseline", "iterate", "reset", "stop", "write",
    "finalize", "request_user_decision",
})
# PR #60's review action; main records the same review as a report with this report_type
REVIEW_ACTION = "distill_review"
# ... plus PR #60's distill_review, which ds-gate always reads (a fork or a later release may have it)
DECISION_ACTIONS = MAIN_DECISION_ACTIONS | {REVIEW_ACTION}
SCIENCE_KINDS = frozenset({"science.package_check", "science.computational_run", "science.dataset_analysis",
                           "science.parameter_sweep", "science.validation_result", "science.claim"})
KINDS = frozenset(ARTIFACT_DIRS) | SCIENCE_KINDS


def unknown_kind(kind: object) -> TypeGuard[str]:
    """A ``kind`` DeepScientist does not know (``decisions``, ``Decision``); a missing or
    non-text one is the schema's to report, not this question's."""
    return isinstance(kind, str) and kind not in KINDS


def unknown_action(action: object, actions: Collection[str]) -> TypeGuard[str]:
    """A decision action outside ``actions``; a missing or empty one is the schema's to report."""
    return isinstance(action, str) and bool(action.strip()) and action not in actions
