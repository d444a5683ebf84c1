"""``validate_distill_review(payload)``: what ``closure`` would say about a review before it
is recorded.

The payload is made into the record DeepScientist's ``artifact.record`` would write (its
common fields, then the payload spread over them, in the workspace the call is made from,
as ``<artifact_id>.json``, replacing a record of that id as main does) and put into the
quest read as ``closure`` reads it; the gate is then evaluated once, unchanged. So the
answer's rule ids, messages, hints and coverage are closure's own, not a second copy of its
rules: what is said about the review, and which runs it would cover or leave pending.
Nothing is written.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from ds_gate.engine.gate import evaluate, load_quest
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.git import GitError, git
from ds_gate.kernel.layout import ARTIFACT_DIRS
from ds_gate.model.findings import SCHEMA_VERSION, Finding
from ds_gate.model.records import (
    REPORT_ENCODING,
    Decision,
    Document,
    review_encoding,
    review_fields,
)
from ds_gate.model.reports import MAX_LIMIT
from ds_gate.plugins.manager import completed_rule, record_checker, review_encoding_for
from ds_gate.rules.coverage import COVERAGE_PENDING_RUN, REVIEW_UNKNOWN_RUN, RunIndex, coverage
from ds_gate.sources.location import locate

NEW_ID = "<new>"  # main picks `report-xxxxxxxx` when the payload gives no artifact_id
STAMP = "9999-12-31T23:59:59+00:00"  # newer than every copy of the same id: the one a re-record replaces
NOT_A_REVIEW = (
    "the payload is no distill review: record one as kind 'report' with report_type 'distill_review' "
    "(what DeepScientist main accepts; draft_distill_review drafts it)"
)


def _record(payload: dict[str, Any], quest_id: str, workspace: Path, workspace_rel: str) -> tuple[dict[str, Any], str]:
    """The record main's ``_build_record`` writes for ``payload``: its fields in its order, then
    the payload's (so a finding lands on the line it will have in the file)."""
    kind = payload.get("kind")
    artifact_id = payload.get("artifact_id") or payload.get("id")
    aid = artifact_id if isinstance(artifact_id, str) and artifact_id else f"{kind}-{NEW_ID}"
    branch, head = _head(workspace)
    record = {
        "kind": kind,
        "schema_version": 1,
        "artifact_id": aid,
        "id": aid,
        "quest_id": quest_id,
        "created_at": STAMP,
        "updated_at": STAMP,
        "source": {"kind": "agent"},
        "status": "pending" if kind == "decision" else "completed",
        "branch": branch,
        "head_commit": head,
        "workspace_root": str(workspace),
        "workspace_rel_path": workspace_rel,
        **payload,
    }
    record["updated_at"] = STAMP  # the newest copy of its id, as the file main writes now is
    return record, aid


def _head(workspace: Path) -> tuple[str | None, str | None]:
    """The workspace's branch and commit, as main stamps a record with them (None outside git)."""
    try:
        head = git(["rev-parse", "HEAD"], workspace).decode().strip() or None
        branch = git(["rev-parse", "--abbrev-ref", "HEAD"], workspace).decode().strip() or None
    except (GitError, OSError, UnicodeDecodeError):
        return None, None
    return branch, head


def validate_review(root: Path | str, payload: Any, home: Path | str | None = None) -> dict[str, Any]:
    """What ``closure`` would report about ``payload`` once recorded from ``root`` (a path
    inside the quest: the workspace the agent records from). Raises ``QuestError`` for a
    payload that is no review or not JSON."""
    if not isinstance(payload, dict):
        raise QuestError("payload must be a JSON object: the one artifact.record(payload=...) would take")
    kind = payload.get("kind")
    encoding = review_encoding(payload, kind if isinstance(kind, str) else None)
    if encoding is None:
        raise QuestError(NOT_A_REVIEW)

    loc = locate(root)
    quest = load_quest(loc)
    rel = loc.top.relative_to(loc.root).as_posix()
    record, aid = _record(payload, quest.quest_id, loc.top, rel)
    try:
        raw = json.dumps(record, indent=2, ensure_ascii=False).encode(  # NaN too: main's write_json allows it
            "utf-8", "surrogateescape"
        )
    except (TypeError, ValueError) as exc:
        raise QuestError(f"the payload is not JSON DeepScientist can write: {exc}") from None
    display = f"{'' if rel == '.' else rel + '/'}artifacts/{ARTIFACT_DIRS[str(kind)]}/{aid}.json"
    data = json.loads(raw)
    fields = review_fields(data, str(kind))
    replaced = quest.decisions.get(aid)
    quest.decisions[aid] = Decision(
        artifact_id=aid,
        action=data.get("action") if kind == "decision" else None,
        workspace=rel,
        path=display,
        updated_at=STAMP,
        created_at=record["created_at"] if isinstance(record["created_at"], str) else None,
        is_review=True,
        findings=record_checker(quest.root)(Document(str(kind), data, raw, display)),
        reviewed_run_ids=fields.reviewed_run_ids,
        raw=raw,
        cards_written=fields.cards_written,
        neighbor_decisions=fields.neighbor_decisions,
        encoding=encoding,
    )
    if quest.indexed_decision_ids is not None:  # artifact.record writes the review's index line with it
        quest.indexed_decision_ids = quest.indexed_decision_ids | {aid}
    report = evaluate(quest, "closure", home=home)
    review = next(r for r in report.reviews if r.artifact_id == aid)
    listed = set(RunIndex(quest).meant(review.reviewed_run_ids))
    about = [
        f for f in report.findings if f.path == display or (f.rule == COVERAGE_PENDING_RUN.id and f.subject in listed)
    ]
    if aid.endswith(NEW_ID):  # nothing to record "again": the calls the hints name record it the first time
        about = [
            replace(f, hint=f.hint.replace(f"'artifact_id': {shown(aid)}, ", "").replace(" again under its id", ""))
            if f.hint
            else f
            for f in about
        ]
    completed = {run.artifact_id for run in report.completed_runs}
    pending = report.pending_run_ids
    accepted = review_encoding_for(quest.root)
    notes = _notes(payload, encoding, accepted, replaced, aid)
    return {
        "schema_version": SCHEMA_VERSION,
        "ok": review.valid and not any(f.fails for f in about) and encoding == accepted,
        "valid": review.valid,
        "artifact_id": None if aid.endswith(NEW_ID) else aid,
        "path": display,
        "encoding": encoding,
        "runs_meant": sorted(listed),
        "covers": [rid for rid in review.reviewed_run_ids if review.valid and rid in completed],
        "superseded_by": coverage(quest, completed_rule(), report.review_encoding).superseded.get(aid),
        "pending_after": pending[:MAX_LIMIT],
        "pending_after_count": len(pending),
        "closure_ok_after": report.ok,
        "findings": [f.as_dict() for f in sorted(about, key=_cause_first)[:MAX_LIMIT]],
        "findings_count": len(about),
        "notes": notes,
    }


def _cause_first(finding: Finding) -> tuple[bool, bool]:
    """Failures first, and among them a reviewed id that is no run: a typo there is what the
    review's other findings (a card's target not reviewed, the run still pending) follow from."""
    return not finding.fails, finding.rule != REVIEW_UNKNOWN_RUN.id


def _notes(payload: dict[str, Any], encoding: str, accepted: str, replaced: Decision | None, aid: str) -> list[str]:
    notes = []
    if encoding != accepted:
        notes.append(
            f"this quest's DeepScientist records a review in the {accepted} encoding"
            + (
                ": main's artifact.record refuses kind 'decision' with action 'distill_review'"
                if accepted == REPORT_ENCODING
                else ""
            )
        )
    if payload.get("suppress_if_semantically_equivalent", True) is not False:
        notes.append(
            "add 'suppress_if_semantically_equivalent': False: without it DeepScientist may answer "
            "status 'semantically_equivalent' and write nothing, as it dedupes reports and decisions of one stage"
        )
    if replaced is not None:
        notes.append(f"artifact_id {aid} is recorded already ({replaced.path}): recording this writes over it")
    return notes
