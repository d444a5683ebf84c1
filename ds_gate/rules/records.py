"""Rules about one artifact record on its own: its schema, and what must agree inside it.

Pure functions of one ``Document`` (the parsed record, its bytes and where it lies), called
for every record a source reads, as a plugin's ``ds_gate_check_record`` is. Rules that need
the rest of the quest (does a reviewed run exist?) live in ``coverage``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import Any

from ds_gate.kernel.jsondoc import place, pointer
from ds_gate.kernel.triage import record_is_fine
from ds_gate.kernel.words import main_refusals, unknown_action, unknown_kind
from ds_gate.model.findings import (
    CONTRACT,
    DISCIPLINE,
    ERROR,
    INFO,
    WARNING,
    Finding,
    Rule,
)
from ds_gate.model.records import (
    REPORT_ENCODING,
    REVIEW_ACTION,
    Document,
    encoding_note,
    review_encoding,
    review_fields,
)
from ds_gate.rules.policy import as_accepted
from ds_gate.rules.reviews import (
    REVIEW_CARD_ID_MISSING,
    REVIEW_PLACEHOLDER,
    REVIEW_TARGET_NOT_REVIEWED,
    review_discipline,
    targets_reviewed,
)
from ds_gate.rules.schema import schema_findings
from ds_gate.rules.vocabulary import (
    DECISION_ACTIONS,
    DECISION_UNKNOWN_ACTION,
    action_finding,
)

REVIEW_SCHEMA = Rule("review.schema", ERROR, CONTRACT, "a distill_review breaks `schemas/distill_review.schema.json`")
DECISION_SCHEMA = Rule(
    "decision.schema",
    ERROR,
    DISCIPLINE,
    "a decision breaks `schemas/decision.schema.json` (`verdict`, `action`, `reason` as non-blank text, a text "
    "`artifact_id`): stricter than DeepScientist, which asks only that they be truthy",
)
RUN_SCHEMA = Rule(
    "run.schema",
    ERROR,
    DISCIPLINE,
    "a run record breaks `schemas/run.schema.json` (`run_kind` as non-blank text, a text `artifact_id`): stricter "
    "than DeepScientist, which asks only for a truthy `run_kind`",
)
ARTIFACT_REFUSED_BY_MAIN = Rule(
    "artifact.refused-by-main",
    ERROR,
    CONTRACT,
    "DeepScientist's `artifact.record` refuses this run or decision (`validate_artifact_payload`: a falsy `verdict`, "
    "`action`, `reason` or `run_kind`, an action or kind it does not take); main's own words",
)
# what each refused field needs, in the words of the schemas' x-hint
REFUSAL_HINTS = {
    "kind": "set kind to the record's kind, e.g. run or decision",
    "verdict": "give verdict a value: say what was decided, e.g. good or covered",
    "action": "use one of DeepScientist's decision actions, e.g. continue; a fork's own go in .ds-gate.yaml "
    "decision_actions",
    "reason": "give reason a value: say why, in one sentence",
    "run_kind": "record the run kind: main_experiment, analysis.slice or experiment",
}
ARTIFACT_ID_MISMATCH = Rule("artifact.id-mismatch", WARNING, DISCIPLINE, "`artifact_id` differs from the file name")
REVIEW_RUNS_NOT_CHECKED = Rule(
    "review.runs-not-checked", INFO, DISCIPLINE, "`validate` outside a quest could not check reviewed ids against runs"
)

# The rules whose error makes a review cover nothing: PR #60's validator, and a card that
# cannot be found. A plugin's rule fails the gate but leaves the coverage alone.
INVALIDATE_REVIEW = frozenset(
    rule.id
    for rule in (
        REVIEW_SCHEMA,
        DECISION_SCHEMA,
        REVIEW_TARGET_NOT_REVIEWED,
        DECISION_UNKNOWN_ACTION,
        REVIEW_CARD_ID_MISSING,
        REVIEW_PLACEHOLDER,
    )
)
RULE_FOR_SCHEMA = {
    "distill_review": REVIEW_SCHEMA,
    "distill_review_report": REVIEW_SCHEMA,
    "decision": DECISION_SCHEMA,
    "run": RUN_SCHEMA,
}
AS_REPORT = encoding_note(REPORT_ENCODING)


def record_schema_findings(name: str, data: dict[str, Any], raw: bytes | None, display: str) -> list[Finding]:
    return schema_findings(name, data, display, lambda anchor: place(raw, anchor), RULE_FOR_SCHEMA[name])


def check_decision(doc: Document, actions: Collection[str] = DECISION_ACTIONS) -> list[Finding]:
    """A decision on its own: its schema (a review's, for a distill_review), an action
    DeepScientist does not accept, and review entries that target runs the review does not list."""
    data, raw, display = doc.data, doc.raw, doc.display
    action = data.get("action")
    is_review = action == REVIEW_ACTION
    found = refused_and_schema(doc, actions, "distill_review" if is_review else "decision")
    unknown = action_finding(action, actions, raw, display)
    if unknown is not None:
        found.append(unknown)
    if not is_review:
        return found
    reviewed = review_fields(data).reviewed_run_ids
    found.extend(targets_reviewed(data, set(reviewed), raw, display))
    found.extend(review_discipline(data, raw, display))
    return found


def check_review_report(doc: Document) -> list[Finding]:
    """A review in main's encoding: the same review rules as a distill_review decision, with
    the same ids; each message says which encoding it read. Main requires nothing else of a
    report, so there is no verdict, action or reason to check, and nothing found here is
    main's contract (``rules.policy.as_accepted``): it never blocks a checkpoint."""
    data, raw, display = doc.data, doc.raw, doc.display
    found = record_schema_findings("distill_review_report", data, raw, display)
    found.extend(targets_reviewed(data, set(review_fields(data, "report").reviewed_run_ids), raw, display))
    found.extend(review_discipline(data, raw, display))
    return [as_accepted(replace(f, message=f.message + AS_REPORT)) for f in found]


def check_run(doc: Document) -> list[Finding]:
    return refused_and_schema(doc, (), "run")


def refused_and_schema(doc: Document, actions: Collection[str], schema: str) -> list[Finding]:
    """Main's refusals, then the schema's findings at the fields main does not already refuse:
    one finding per cause, so a refused checkpoint does not also call the same field a warning
    DeepScientist accepts."""
    refused = refused_by_main(doc, actions)
    taken = {f.pointer for f in refused}
    return refused + [
        f for f in record_schema_findings(schema, doc.data, doc.raw, doc.display) if f.pointer not in taken
    ]


def refused_by_main(doc: Document, actions: Collection[str]) -> list[Finding]:
    """What DeepScientist main refuses in this run or decision (``kernel.words.main_refusals``,
    its acceptance), less what ``artifact.unknown-kind`` and ``decision.unknown-action`` say
    with a did-you-mean: the one contract finding a plain run or decision can get besides them.
    A review decision is left to its own contract rules (main refuses its action anyway)."""
    data, raw = doc.data, doc.raw
    if data.get("action") == REVIEW_ACTION and doc.kind == "decision":
        return []
    found = []
    for field, error in main_refusals(data, actions):
        if (field == "kind" and unknown_kind(data.get("kind"))) or (
            field == "action" and unknown_action(data.get("action"), actions)
        ):
            continue
        found.append(
            ARTIFACT_REFUSED_BY_MAIN.at(
                doc.display,
                f"DeepScientist refuses this {doc.kind} record: {error}",
                hint=REFUSAL_HINTS.get(field),
                pointer=pointer((field,)) if field else "",
                line=place(raw, (field,) if field else ()),
            )
        )
    return found


def check_record(doc: Document, actions: Collection[str] = DECISION_ACTIONS) -> list[Finding]:
    """The built-in record rules, by kind; other kinds have none. ``actions``: the decision
    actions this quest's DeepScientist accepts (its plugins and ``.ds-gate.yaml`` add some).
    Built on the kernel's triage: a record it calls fine has no finding, and the rules below
    only word what it doubted (the commit hook asks the same triage, ``kernel.checkpoint``)."""
    if record_is_fine(doc.kind, doc.data, actions):
        return []
    if doc.kind == "run":
        return check_run(doc)
    if doc.kind == "decision":
        return check_decision(doc, actions)
    if doc.kind == "report" and review_encoding(doc.data, "report") is not None:
        return check_review_report(doc)
    return []
