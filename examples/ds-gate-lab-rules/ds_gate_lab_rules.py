"""An example ds-gate plugin: what a lab changes without touching ds-gate.

- Ablation runs are experiments too: a completed ``run_kind: ablation`` needs a distill
  review. Smoke tests (``run_id`` starting with ``smoke-``) never do, whatever their kind.
  Every other run is left to the next plugin (ds-gate's built-in PR #60 rule).
- ``lab.review-needs-notes``: every distill review says in ``notes`` what the lab should
  remember about the review itself, in either encoding: the RFC's ``kind: decision, action:
  distill_review`` and main's ``kind: report, report_type: distill_review`` (the one ds-gate
  drafts on DeepScientist 1.6.0): ``review_encoding`` tells a review from any other record.
- A commit that stages anything under ``submission/`` finalizes the quest, like the
  paper bundle manifest does.
- ``--format count``: one line, for dashboards.
"""

from __future__ import annotations

from ds_gate import Rule, hookimpl
from ds_gate.model import DISCIPLINE, ERROR, review_encoding

# A rule is declared once; its id is part of the lab's JSON output, so it never changes.
REVIEW_NEEDS_NOTES = Rule(
    "lab.review-needs-notes",
    ERROR,
    DISCIPLINE,
    "a distill review that does not say in `notes` what to remember about the review",
)


@hookimpl
def ds_gate_run_is_completed(run):
    if (run.run_id or "").startswith("smoke-"):
        return False
    if run.run_kind == "ablation":
        return (run.status or "").strip().lower() in {"completed", "done"}
    return None  # not ours to decide: ask the next plugin


@hookimpl
def ds_gate_finalization_patterns():
    return ["submission/*"]


@hookimpl
def ds_gate_check_record(record):
    """Called for every record, with the parsed document: nothing is read twice."""
    data = record.data
    if review_encoding(data, record.kind) is None:  # no review, in either encoding
        return []
    notes = data.get("notes")
    if isinstance(notes, str) and notes.strip():
        return []
    artifact_id = data.get("artifact_id")
    return [
        REVIEW_NEEDS_NOTES.at(
            record.display,
            f"{artifact_id} has no notes",
            pointer="/notes",
            subject=artifact_id,
            hint="say in notes what the lab should remember about this review",
        )
    ]


class CountReporter:
    def render(self, report):
        failing = sum(f.fails for f in report.findings)
        return f"{report.command} ok={report.ok} failing={failing} findings={len(report.findings)}\n"


@hookimpl
def ds_gate_reporters():
    return {"count": CountReporter}
