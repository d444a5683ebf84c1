"""Which completed runs no valid distill_review covers: the heart of the closure gate.

The rules are PR #60's (see the quest-formats reference, section 6): a run is identified
by its ``artifact_id``; a review covers the ids in its ``reviewed_run_ids`` only when it
is valid, and it is valid only when every id it lists is a run of this quest.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ds_gate.io.jsondoc import place, pointer
from ds_gate.model.findings import CONTRACT, DISCIPLINE, ERROR, Finding, Rule
from ds_gate.model.records import Quest, Review, Run, encoding_note
from ds_gate.rules.records import INVALIDATE_REVIEW

COVERAGE_PENDING_RUN = Rule("coverage.pending-run", ERROR, DISCIPLINE,
    "a completed run no valid distill_review covers")
REVIEW_UNKNOWN_RUN = Rule("review.unknown-run", ERROR, CONTRACT,
    "a reviewed id is not a run artifact id of the quest (with a did-you-mean)")

COMPLETED_RUN_KINDS = frozenset({"main_experiment", "analysis.slice", "experiment"})
COMPLETED_STATUSES = frozenset({"completed", "success", "succeeded", "done"})


def completed_state(run_kind: str | None, status: str | None) -> bool:
    """PR #60's ``_is_distill_candidate`` (``status.strip().lower()``), with ``run_kind``
    read as main's run readers read it (``str(run_kind).strip().lower()``): either reading
    counts the run, so the gate does (docs/reading-the-quest.md)."""
    return (run_kind or "").strip().casefold() in COMPLETED_RUN_KINDS \
        and (status or "").strip().casefold() in COMPLETED_STATUSES


def is_completed(run: Run) -> bool:
    return completed_state(run.run_kind, run.status)


@dataclass(slots=True)
class Coverage:
    completed: list[Run]
    pending: list[Run]
    reviews: list[Review]
    findings: list[Finding] = field(default_factory=list)
    listed_by_invalid: dict[str, list[str]] = field(default_factory=dict)  # run id -> invalid reviews naming it


class RunIndex:
    """The quest's runs by artifact id and by experiment run_id, for reviewed-id checks."""

    def __init__(self, quest: Quest) -> None:
        self.runs = quest.runs
        self.indexed = quest.indexed_run_ids  # an index line proves a run existed, its record gone or not
        self.by_run_id: dict[str, list[str]] = defaultdict(list)
        for run in quest.runs.values():
            if run.run_id:
                self.by_run_id[run.run_id].append(run.artifact_id)

    def unknown(self, reviewed_run_ids: tuple[str, ...], path: str, raw: bytes | None) -> list[Finding]:
        """One finding per reviewed id that is not a run of the quest, with a did-you-mean."""
        return [self._finding(rid, i, path, raw) for i, rid in enumerate(reviewed_run_ids)
                if rid not in self.runs and rid not in self.indexed]

    def _finding(self, run_id: str, index: int, path: str, raw: bytes | None) -> Finding:
        where = ("reviewed_run_ids", index)
        same = self.by_run_id.get(run_id, [])
        if same:
            guess = " or ".join(same)
            message = f"reviewed_run_ids[{index}] is {run_id!r}, the experiment run_id of {guess}, not a run artifact id"
            hint = f"did you mean {guess}? reviewed_run_ids holds run artifact ids (run-xxxxxxxx)"
        else:
            import difflib  # only for a typo's did-you-mean

            close = difflib.get_close_matches(run_id, list(self.runs), n=1, cutoff=0.8)
            message = f"reviewed_run_ids[{index}] is {run_id!r}, which is not a run of this quest"
            hint = (
                f"did you mean {close[0]}?"
                if close
                else "list the artifact ids of runs recorded in this quest (see `ds-gate candidates`)"
            )
        return REVIEW_UNKNOWN_RUN.at(
            path,
            message,
            hint=hint,
            pointer=pointer(where),
            line=place(raw, where),
        )


def coverage(quest: Quest, completed: Callable[[Run], bool] = is_completed) -> Coverage:
    """``completed``: the completed-run rule (the plugins' answer; PR #60's by default)."""
    index = RunIndex(quest)
    reviews: list[Review] = []
    findings: list[Finding] = []
    covered: set[str] = set()
    listed_by_invalid: dict[str, list[str]] = defaultdict(list)
    for decision in quest.decisions.values():
        if not decision.is_review:
            continue
        unknown = [replace(f, message=f.message + encoding_note(decision.encoding))
                   for f in index.unknown(decision.reviewed_run_ids, decision.path, decision.raw)]
        findings.extend(unknown)
        accepted = not any(f.severity == ERROR and f.rule in INVALIDATE_REVIEW for f in decision.findings)
        valid = accepted and not unknown
        reviews.append(Review(decision.artifact_id, decision.path, decision.workspace, valid, decision.reviewed_run_ids))
        for rid in decision.reviewed_run_ids:
            if valid:
                covered.add(rid)
            else:
                listed_by_invalid[rid].append(decision.artifact_id)

    done = [run for run in quest.runs.values() if completed(run)]
    pending = [run for run in done if run.artifact_id not in covered]
    return Coverage(done, pending, reviews, findings, dict(listed_by_invalid))


def pending_finding(run: Run, listed_by_invalid: list[str], severity: str = ERROR, encoding: str = "report") -> Finding:
    """``encoding``: how the quest's DeepScientist records a review (``model.review_call``)."""
    what = ", ".join(x for x in (run.run_id, run.run_kind) if x)
    where = "the quest root" if run.workspace == "." else run.workspace
    message = f"completed run {run.artifact_id} ({what}, in {where}) is not covered by any valid distill_review"
    if listed_by_invalid:
        message += f"; it is listed by the invalid review {', '.join(listed_by_invalid)}"
        hint = f"fix {', '.join(listed_by_invalid)} (see its findings) so it covers this run"
    else:
        call = ("artifact.record(payload={kind: 'decision', action: 'distill_review', ...})" if encoding == "decision"
                else "artifact.record(payload={kind: 'report', report_type: 'distill_review', ...})")
        hint = f"run the distill skill, then record {call} with {run.artifact_id} in reviewed_run_ids"
    return COVERAGE_PENDING_RUN.at(
        run.path,
        message,
        hint=hint,
        subject=run.artifact_id,
        severity=severity,
    )
