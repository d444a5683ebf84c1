"""An example ds-gate plugin: what a lab changes without touching ds-gate.

- Ablation runs are experiments too: a completed ``run_kind: ablation`` needs a distill
  review. Smoke tests (``run_id`` starting with ``smoke-``) never do, whatever their kind.
  Every other run is left to the next plugin (ds-gate's built-in PR #60 rule).
- ``lab.review-needs-notes``: every distill_review says in ``notes`` what the lab should
  remember about the review itself.
- A commit that stages anything under ``submission/`` finalizes the quest, like the
  paper bundle manifest does.
- ``--format count``: one line, for dashboards.
"""

from __future__ import annotations

import json

from ds_gate.hookspecs import hookimpl
from ds_gate.model.findings import ERROR, Finding


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
def ds_gate_check_quest(quest, context):
    findings = []
    for decision in quest.decisions.values():
        if not decision.is_review or decision.raw is None:
            continue
        notes = json.loads(decision.raw).get("notes")
        if not isinstance(notes, str) or not notes.strip():
            findings.append(
                Finding(
                    rule="lab.review-needs-notes",
                    severity=ERROR,
                    path=decision.path,
                    pointer="/notes",
                    message=f"{decision.artifact_id} has no notes",
                    hint="say in notes what the lab should remember about this review",
                    subject=decision.artifact_id,
                )
            )
    return findings


class CountReporter:
    def render(self, report):
        failing = sum(f.fails for f in report.findings)
        return f"{report.command} ok={report.ok} failing={failing} findings={len(report.findings)}\n"


@hookimpl
def ds_gate_reporters():
    return {"count": CountReporter}
