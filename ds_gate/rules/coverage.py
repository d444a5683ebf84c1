"""Which completed runs no valid distill_review covers: the heart of the closure gate.

The rules are PR #60's (see the quest-formats reference, section 6): a run is identified
by its ``artifact_id``; a review covers the ids in its ``reviewed_run_ids`` only when it
is valid, and it is valid only when every id it lists is a run of this quest.

DeepScientist main records a review as a report whatever it holds and has no call that
deletes a record, so an invalid review must never fail the gate for good. Its errors name
the call that replaces it (the same ``artifact_id`` recorded again: main writes the file
anew, ``model.review_call.rerecord_call``), and once valid reviews cover every run it
means, it is *superseded*: it still covers nothing, and its errors become warnings.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ds_gate.kernel.errors import shown
from ds_gate.kernel.jsondoc import place, pointer
from ds_gate.model.findings import CONTRACT, DISCIPLINE, ERROR, WARNING, Finding, Rule, then_hint
from ds_gate.model.records import (
    REPORT_ENCODING,
    Decision,
    Quest,
    Review,
    Run,
    encoding_note,
)
from ds_gate.model.review_call import HAND_DOC, rerecord_call
from ds_gate.rules.policy import as_accepted
from ds_gate.rules.records import INVALIDATE_REVIEW

COVERAGE_PENDING_RUN = Rule("coverage.pending-run", ERROR, DISCIPLINE, "a completed run no valid distill_review covers")
REVIEW_UNKNOWN_RUN = Rule(
    "review.unknown-run", ERROR, CONTRACT, "a reviewed id is not a run artifact id of the quest (with a did-you-mean)"
)
REVIEW_UNINDEXED = Rule(
    "review.unindexed",
    ERROR,
    DISCIPLINE,
    "a review in the RFC's decision encoding that no `_index.jsonl` line names: PR #60's gate reaches reviews only "
    "through the index, so it covers nothing",
)

COMPLETED_RUN_KINDS = frozenset({"main_experiment", "analysis.slice", "experiment"})
COMPLETED_STATUSES = frozenset({"completed", "success", "succeeded", "done"})


def completed_state(run_kind: str | None, status: str | None) -> bool:
    """PR #60's ``_is_distill_candidate`` (``status.strip().lower()``), with ``run_kind``
    read as main's run readers read it (``str(run_kind).strip().lower()``): either reading
    counts the run, so the gate does (docs/reading-the-quest.md)."""
    return (run_kind or "").strip().casefold() in COMPLETED_RUN_KINDS and (
        status or ""
    ).strip().casefold() in COMPLETED_STATUSES


def is_completed(run: Run) -> bool:
    """A run counted from its index line alone has no ``run_kind`` to read (the line carries
    none): its completed-like status is enough (stricter than PR #60, which skips such lines)."""
    if run.from_index:
        return (run.status or "").strip().casefold() in COMPLETED_STATUSES
    return completed_state(run.run_kind, run.status)


@dataclass(slots=True)
class Coverage:
    completed: list[Run]
    pending: list[Run]
    reviews: list[Review]
    findings: list[Finding] = field(default_factory=list)  # every decision's and the reviewed ids', as reported
    listed_by_invalid: dict[str, list[str]] = field(default_factory=dict)  # run id -> invalid reviews naming it
    superseded: dict[str, list[str]] = field(default_factory=dict)  # invalid review -> valid reviews covering its runs


class RunIndex:
    """The quest's runs by artifact id and by experiment run_id, for reviewed-id checks."""

    def __init__(self, quest: Quest) -> None:
        self.runs = quest.runs
        self.indexed = quest.indexed_run_ids  # an index line proves a run existed, its record gone or not
        self.by_run_id: dict[str, list[str]] = defaultdict(list)
        for run in quest.runs.values():
            if run.run_id:
                self.by_run_id[run.run_id].append(run.artifact_id)

    def unknown(
        self, reviewed_run_ids: tuple[str, ...], path: str, raw: bytes | None, encoding: str | None = None
    ) -> list[Finding]:
        """One finding per reviewed id that is not a run of the quest, with a did-you-mean;
        ``encoding``: the review's (a report's findings are never main's contract)."""
        found = [
            self._finding(rid, i, path, raw)
            for i, rid in enumerate(reviewed_run_ids)
            if rid not in self.runs and rid not in self.indexed
        ]
        if encoding == REPORT_ENCODING:
            found = [as_accepted(replace(f, message=f.message + encoding_note(encoding))) for f in found]
        return found

    def meant(self, reviewed_run_ids: tuple[str, ...]) -> list[str]:
        """The runs a review's list means: the ids that are runs, and for the others what the
        did-you-mean names (the runs whose experiment run_id it gives, or the closest id), in
        order, once each."""
        out: dict[str, None] = {}
        for rid in reviewed_run_ids:
            for run in [rid] if rid in self.runs or rid in self.indexed else self._guess(rid):
                out.setdefault(run)
        return list(out)

    def _guess(self, run_id: str) -> list[str]:
        return self.by_run_id.get(run_id) or difflib.get_close_matches(run_id, list(self.runs), n=1, cutoff=0.8)

    def _finding(self, run_id: str, index: int, path: str, raw: bytes | None) -> Finding:
        where = ("reviewed_run_ids", index)
        same = self.by_run_id.get(run_id, [])
        if same:
            guess = " or ".join(same)
            message = (
                f"reviewed_run_ids[{index}] is {shown(run_id)}, the experiment run_id of {guess}, not a run artifact id"
            )
            hint = f"did you mean {guess}? reviewed_run_ids holds run artifact ids (run-xxxxxxxx)"
        else:
            close = self._guess(run_id)
            message = f"reviewed_run_ids[{index}] is {shown(run_id)}, which is not a run of this quest"
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


def coverage(
    quest: Quest, completed: Callable[[Run], bool] = is_completed, encoding: str = REPORT_ENCODING
) -> Coverage:
    """``completed``: the completed-run rule (the plugins' answer; PR #60's by default);
    ``encoding``: how the quest's DeepScientist records a review, for the calls the hints name."""
    index = RunIndex(quest)
    reviews: list[Review] = []
    valid_of: dict[str, bool] = {}
    unknown_of: dict[str, list[Finding]] = {}
    covered: dict[str, list[str]] = defaultdict(list)  # run -> the valid reviews covering it
    listed_by_invalid: dict[str, list[str]] = defaultdict(list)
    for decision in quest.decisions.values():
        if not decision.is_review:
            continue
        unknown = index.unknown(decision.reviewed_run_ids, decision.path, decision.raw, decision.encoding)
        unknown += _unindexed(quest, decision)
        unknown_of[decision.artifact_id] = unknown
        accepted = not any(f.severity == ERROR and f.rule in INVALIDATE_REVIEW for f in decision.findings)
        valid = valid_of[decision.artifact_id] = accepted and not unknown
        reviews.append(
            Review(decision.artifact_id, decision.path, decision.workspace, valid, decision.reviewed_run_ids)
        )
        for rid in decision.reviewed_run_ids:
            (covered[rid] if valid else listed_by_invalid[rid]).append(decision.artifact_id)

    done = [run for run in quest.runs.values() if completed(run)]
    pending = [run for run in done if run.artifact_id not in covered]
    valid_ids = sorted(r.artifact_id for r in reviews if r.valid)
    findings: list[Finding] = []
    superseded: dict[str, list[str]] = {}
    for decision in quest.decisions.values():
        own = [*decision.findings, *unknown_of.get(decision.artifact_id, ())]
        if decision.is_review and not valid_of[decision.artifact_id]:
            meant = index.meant(decision.reviewed_run_ids)
            if all(rid in covered for rid in meant) and (meant or not pending):
                by = sorted({r for rid in meant for r in covered[rid]}) if meant else valid_ids
                superseded[decision.artifact_id] = by
                own = [_superseded(f, by) for f in own]
            else:  # nothing it means: the runs still pending are what a review is for
                ids = meant or [run.artifact_id for run in pending[:5]]
                own = [_replace_hint(f, decision, ids, encoding) for f in own]
        findings.extend(own)
    return Coverage(done, pending, reviews, findings, dict(listed_by_invalid), superseded)


def _unindexed(quest: Quest, decision: Decision) -> list[Finding]:
    """PR #60 finds reviews by opening each ``kind: decision`` index line's record: a decision
    review no index line names is a review its gate never sees, so its runs stay pending there
    and here (main's report encoding has no such gate: main's collector globs the files)."""
    if (
        decision.encoding == REPORT_ENCODING
        or quest.indexed_decision_ids is None
        or decision.artifact_id in quest.indexed_decision_ids
    ):
        return []
    return [
        REVIEW_UNINDEXED.at(
            decision.path,
            f"no artifacts/_index.jsonl line names review {decision.artifact_id}, so DeepScientist's distill "
            "gate (PR #60) never reads it and its runs stay pending there",
            hint="record the review through artifact.record, which writes its index line (or append the line "
            "artifact.record would have written to the workspace's artifacts/_index.jsonl)",
            subject=decision.artifact_id,
        )
    ]


def _superseded(finding: Finding, by: list[str]) -> Finding:
    """An invalid review's error once valid reviews cover every run it means: a warning."""
    if finding.severity != ERROR:
        return finding
    what = (
        f"{', '.join(by)} cover{'s' if len(by) == 1 else ''} every run it names"
        if by
        else "no completed run is pending"
    )
    return replace(
        finding,
        severity=WARNING,
        message=f"{finding.message}; superseded ({what}): the review covers nothing and no longer fails the gate",
    )


def _replace_hint(finding: Finding, decision: Decision, meant: list[str], encoding: str) -> Finding:
    """An invalid review's error, its hint ending in the call that replaces the review."""
    if finding.severity != ERROR:
        return finding
    if decision.encoding == encoding:
        how = f"then record it again under its id, {rerecord_call(decision.artifact_id, meant, encoding)}"
    else:  # a review this quest's DeepScientist cannot record (the RFC's on main): a new one covers its runs
        how = f"then record its runs' review as this quest's DeepScientist accepts it, {rerecord_call(None, meant, encoding)}"
    return replace(finding, hint=then_hint(finding.hint, how))


def pending_finding(run: Run, listed_by_invalid: list[str], severity: str = ERROR, encoding: str = "report") -> Finding:
    """``encoding``: how the quest's DeepScientist records a review (``model.review_call``)."""
    what = ", ".join(x for x in (run.run_id, run.run_kind) if x)
    where = "the quest root" if run.workspace == "." else run.workspace
    if run.from_index:
        what = f"status {shown(run.status)} on its index line: its record file is found nowhere the gate reads"
    message = f"completed run {run.artifact_id} ({what}, in {where}) is not covered by any valid distill_review"
    if listed_by_invalid:
        message += f"; it is listed by the invalid review {', '.join(listed_by_invalid)}"
        fixes = " or ".join(rerecord_call(review, [run.artifact_id], encoding) for review in listed_by_invalid[:2])
        hint = (
            f"fix {', '.join(listed_by_invalid)} as its findings say and record it again under its id: {fixes} "
            "(main writes it over the invalid one); or record a new review covering this run"
        )
    else:
        hint = (
            f"run the distill skill, then record {rerecord_call(None, [run.artifact_id], encoding)}; "
            f"or, with no agent, write the review file and its index line by hand ({HAND_DOC})"
        )
    return COVERAGE_PENDING_RUN.at(
        run.path,
        message,
        hint=hint,
        subject=run.artifact_id,
        severity=severity,
    )
