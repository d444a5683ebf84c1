"""The review an agent can record, as a payload and as the exact tool call.

One place says what a review looks like in each encoding, so the closure's "next:" line,
the commit hook's rejection, the MCP server's ``check_closure`` and ``draft_distill_review``
all tell the agent the same call. On DeepScientist main the RFC's call
(``kind: decision, action: distill_review``) is refused, so the default is main's
encoding; the RFC's is given only where the quest's DeepScientist has the action.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ds_gate.kernel.errors import shown
from ds_gate.model.records import (
    DECISION_ENCODING,
    REPORT_ENCODING,
    REVIEW_ACTION,
    REVIEW_REPORT_TYPE,
)

CARD_ENTRY = "{card_id, scope, action, target_run_id}"
# what the agent must write before recording a draft; a review still holding it covers nothing
# (``review.placeholder``), so a draft recorded as it is reviews no run
FILL = "<FILL: "


def draft_payload(run_ids: Sequence[str], encoding: str = REPORT_ENCODING) -> dict[str, Any]:
    """A review of ``run_ids`` for ``artifact.record(payload=...)``, to be completed: the
    cards written (or a reason none was), and the neighbour decisions.

    ``suppress_if_semantically_equivalent`` is off because main otherwise drops a second
    review recorded in the same stage as "semantically equivalent" to the first. What only
    the agent can write is a ``<FILL: ...>`` placeholder (``review.placeholder``): recorded
    as it is, the draft is a report main accepts, which never blocks a checkpoint and
    covers no run."""
    if encoding not in (REPORT_ENCODING, DECISION_ENCODING):
        raise ValueError(
            f"unknown review encoding {shown(encoding)}; expected {shown(REPORT_ENCODING)} or {shown(DECISION_ENCODING)}"
        )
    head: dict[str, Any] = (
        {"kind": "report", "report_type": REVIEW_REPORT_TYPE}
        if encoding == REPORT_ENCODING
        else {
            "kind": "decision",
            "action": REVIEW_ACTION,
            "verdict": "covered",
            "reason": f"{FILL}one sentence: what this review decided>",
        }
    )
    return {
        **head,
        "summary": f"distill review of {len(run_ids)} run(s): {', '.join(run_ids)}",
        "reviewed_run_ids": list(run_ids),
        "cards_written": [],
        "neighbor_decisions": [],
        "reason_if_empty": f"{FILL}why no lesson of these runs is worth a card; delete this key when cards_written lists cards>",
        "suppress_if_semantically_equivalent": False,
    }


def record_call(
    run_ids: Sequence[str], encoding: str = REPORT_ENCODING, *, listing: Sequence[str] | None = None
) -> list[str]:
    """The call that covers ``run_ids``, as lines an agent can copy (a Python-like literal,
    as DeepScientist's tools are written in its prompts).

    ``listing``, when given, replaces the one-line id list: the caller's lines (one id each,
    with comments saying where each run is), after a count, so a call covering a hundred
    runs stays readable and each id is shown once."""
    pad = " " * 25
    if encoding == DECISION_ENCODING:
        head = [
            "artifact.record(payload={'kind': 'decision', 'action': 'distill_review', 'verdict': 'covered',",
            f"{pad}'reason': '...',",
        ]
    else:
        head = ["artifact.record(payload={'kind': 'report', 'report_type': 'distill_review',"]
    if listing is None:
        ids = [f"{pad}'reviewed_run_ids': [{', '.join(repr(run_id) for run_id in run_ids)}],"]
    else:
        count = f"{len(run_ids)} run{'' if len(run_ids) == 1 else 's'}"
        ids = [f"{pad}'reviewed_run_ids': [  # {count}", *(f"{pad}    {line}" for line in listing), f"{pad}],"]
    return [
        *head,
        *ids,
        f"{pad}'cards_written': [{CARD_ENTRY}, ...],",
        f"{pad}'suppress_if_semantically_equivalent': False}})",
        "(or 'cards_written': [] with 'reason_if_empty': '...' when no lesson is worth a card)",
    ]


def head_literal(encoding: str) -> str:
    """The fields that make a payload a review in ``encoding``, as a Python-like literal."""
    if encoding == DECISION_ENCODING:
        return "'kind': 'decision', 'action': 'distill_review', 'verdict': 'covered', 'reason': '...'"
    return "'kind': 'report', 'report_type': 'distill_review'"


def rerecord_call(artifact_id: str | None, run_ids: Sequence[str], encoding: str = REPORT_ENCODING) -> str:
    """The one call that replaces review ``artifact_id`` (None: records a new review):
    DeepScientist's ``record`` writes ``<artifact_id>.json`` from the payload's ``artifact_id``
    (over the old file, with a new ``updated_at`` and index line), and
    ``suppress_if_semantically_equivalent: False`` keeps its semantic dedupe from answering
    "semantically_equivalent" and writing nothing."""
    ids = ", ".join(repr(run_id) for run_id in run_ids) if run_ids else "'run-...'"
    same = f", 'artifact_id': {shown(artifact_id)}" if artifact_id is not None else ""
    return (
        f"artifact.record(payload={{{head_literal(encoding)}{same}, "
        f"'reviewed_run_ids': [{ids}], 'cards_written': [{CARD_ENTRY}, ...], "
        "'suppress_if_semantically_equivalent': False})"
    )


# where a person learns to write a review by hand (the docs page the hint names)
HAND_DOC = "docs/concepts.md#a-review-written-by-hand"
HAND_ID = "<8 hex>"


def hand_written(count: int, encoding: str = REPORT_ENCODING, quest_id: str | None = None) -> list[str]:
    """The review of the ``count`` runs listed above it as a person writes it without an agent:
    the record file and its index line as DeepScientist main's ``artifact.record`` would write
    them (``_build_record``'s fields a reader uses, then the payload; ``_index_line``'s seven keys,
    with the file's absolute path). Main's collector globs ``artifacts/*/*.json`` in every
    workspace and keeps the newest ``updated_at`` of an id; its projection cache is refreshed when
    a workspace's ``_index.jsonl`` changes, so the line is appended too. In the RFC's encoding the
    review is a decision, which PR #60's gate finds only through its index line (``review.unindexed``).
    The ids are not repeated: each pending id is printed once."""
    if encoding == DECISION_ENCODING:
        kind, folder, status = "decision", "decisions", "pending"
        head = '"action": "distill_review", "verdict": "covered", "reason": "..."'
    else:
        kind, folder, status = "report", "reports", "completed"
        head = '"report_type": "distill_review"'
    name = f"{kind}-{HAND_ID}"
    quest = f'"{quest_id}"' if quest_id is not None else '"<quest_id>"'
    ids = "the id above" if count == 1 else f"the {count} ids above"
    return [
        f"or by hand, with no agent: write artifacts/{folder}/{name}.json in the quest root or a",
        "worktree, and append its line to that workspace's artifacts/_index.jsonl; then commit both:",
        f'  {{"kind": "{kind}", "artifact_id": "{name}", {head},',
        f'   "status": "{status}", "updated_at": "<now, ISO 8601>",',
        f'   "reviewed_run_ids": [{ids}, each as "run-..."],',
        '   "cards_written": [], "reason_if_empty": "<why no lesson is worth a card>"}',
        f'  {{"artifact_id": "{name}", "kind": "{kind}", "status": "{status}", "quest_id": {quest},',
        '   "path": "<the file\'s absolute path>", "summary": null, "updated_at": "<its updated_at>"}',
        f"({HAND_DOC})",
    ]
