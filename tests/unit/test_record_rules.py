"""Rules about one record on its own (``rules.records``), driven on in-memory documents."""

from __future__ import annotations

from typing import Any

import pytest

from ds_gate.kernel.layout import record_kind
from ds_gate.kernel.words import main_refusals
from ds_gate.model.findings import CONTRACT, DISCIPLINE
from ds_gate.rules.policy import level_of
from ds_gate.rules.records import check_record
from ds_gate.rules.vocabulary import DECISION_ACTIONS, KINDS, kind_finding

from rulecases import RUN_ID, document, fired, review_data

RUN = {"kind": "run", "artifact_id": RUN_ID, "run_id": "main-001", "run_kind": "main_experiment", "status": "completed"}
DECISION = {
    "kind": "decision",
    "artifact_id": "decision-2",
    "verdict": "good",
    "action": "launch_experiment",
    "reason": "go",
}

# (id, the record, the rules it must fire); an empty list is a passing case
CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("a valid run", RUN, []),
    # what main refuses is said once, in its words: the schema does not repeat it at the same field
    ("a run without run_kind", {k: v for k, v in RUN.items() if k != "run_kind"}, ["artifact.refused-by-main"]),
    ("a run with a blank run_kind", dict(RUN, run_kind=" "), ["run.schema"]),
    ("a valid decision", DECISION, []),
    ("a decision without reason", {k: v for k, v in DECISION.items() if k != "reason"}, ["artifact.refused-by-main"]),
    (
        "a decision without reason and a list for a verdict",
        dict({k: v for k, v in DECISION.items() if k != "reason"}, verdict=["good"]),
        ["artifact.refused-by-main", "decision.schema"],
    ),
    ("a valid review", review_data(), []),
    (
        "a review with no reviewed runs",
        review_data(reviewed_run_ids=[], cards_written=[], reason_if_empty="x"),
        ["review.schema"],
    ),
    ("an empty cards_written without a reason", review_data(cards_written=[]), ["review.schema"]),
    ("an empty cards_written with its reason", review_data(cards_written=[], reason_if_empty="nothing reusable"), []),
    (
        "a review card in an unknown scope",
        review_data(cards_written=[{"card_id": "k", "scope": "team", "action": "new", "target_run_id": RUN_ID}]),
        ["review.schema"],
    ),
    (
        "a card targeting a run the review does not list",
        review_data(
            cards_written=[{"card_id": "k", "scope": "global", "action": "new", "target_run_id": "run-00000000"}]
        ),
        ["review.target-not-reviewed"],
    ),
    (
        "a neighbour decision targeting an unlisted run",
        review_data(
            neighbor_decisions=[
                {"candidate_card_id": "k0", "decision": "new", "reason": "r", "target_run_id": "run-00000000"}
            ]
        ),
        ["review.target-not-reviewed"],
    ),
    (
        "a card without card_id (PR #60 accepts it)",
        review_data(cards_written=[{"scope": "global", "action": "new", "target_run_id": RUN_ID}]),
        ["review.card-id-missing"],
    ),
    (
        "a card with an empty card_id",
        review_data(cards_written=[{"card_id": " ", "scope": "global", "action": "new", "target_run_id": RUN_ID}]),
        ["review.card-id-missing"],
    ),
    ("a numeric reason_if_empty", review_data(cards_written=[], reason_if_empty=3), ["review.reason-not-text"]),
    ("a zero reason_if_empty", review_data(cards_written=[], reason_if_empty=0), ["review.schema"]),
    ("a false reason_if_empty", review_data(cards_written=[], reason_if_empty=False), ["review.schema"]),
    ("a null reason_if_empty", {**review_data(cards_written=[]), "reason_if_empty": None}, ["review.schema"]),
    ("a blank reason_if_empty", review_data(cards_written=[], reason_if_empty="  "), ["review.schema"]),
    (
        "a draft's placeholder left in reason_if_empty",
        review_data(cards_written=[], reason_if_empty="<FILL: why>"),
        ["review.placeholder"],
    ),
    (
        "a draft's placeholder in a neighbour decision",
        review_data(
            neighbor_decisions=[
                {"candidate_card_id": "k0", "decision": "new", "reason": " <FILL: why>", "target_run_id": RUN_ID}
            ]
        ),
        ["review.placeholder"],
    ),
    ("a placeholder left in reason_if_empty beside cards (never read)", review_data(reason_if_empty="<FILL: why>"), []),
    ("the word FILL inside a reason", review_data(cards_written=[], reason_if_empty="nothing; see <FILL: x>"), []),
    ("null neighbor_decisions (DeepScientist: none)", {**review_data(), "neighbor_decisions": None}, []),
    ("distill_review spelt in another case", dict(DECISION, action="Distill_Review"), ["decision.unknown-action"]),
    ("distill_review spelt with a space", dict(DECISION, action=" distill_review "), ["decision.unknown-action"]),
    ("an action of no DeepScientist", dict(DECISION, action="launch_rocket"), ["decision.unknown-action"]),
]
# issue 35: what DeepScientist main accepts (a truthy value) is discipline only; what it refuses is contract
MAIN_ACCEPTS = [
    dict(DECISION, reason=["faster", "cheaper"]),
    dict(DECISION, verdict=True),
    dict(DECISION, verdict={"a": 1}),
    dict(DECISION, reason=" "),
    dict(DECISION, reason="\u00a0"),
    dict(DECISION, verdict=float("nan")),
    dict(DECISION, reason=-5),
    dict(RUN, run_kind=" "),
    dict(RUN, run_kind=["main_experiment"]),
    dict(RUN, run_kind=float("nan")),
    dict(RUN, artifact_id=""),
    dict(RUN, artifact_id=123),
    dict(DECISION, artifact_id=False),
    dict(RUN, metrics={"loss": float("nan"), "acc": float("-inf")}),
]
MAIN_REFUSES = [
    (dict(DECISION, verdict=0), "artifact.refused-by-main"),
    (dict(DECISION, reason=-0.0), "artifact.refused-by-main"),
    (dict(DECISION, verdict=[]), "artifact.refused-by-main"),
    (dict(DECISION, reason={}), "artifact.refused-by-main"),
    (dict(DECISION, action=True), "artifact.refused-by-main"),
    (dict(DECISION, action=["continue"]), "artifact.refused-by-main"),
    (dict(DECISION, action=float("nan")), "artifact.refused-by-main"),
    (dict(DECISION, action=" "), "decision.unknown-action"),
    (dict(RUN, run_kind=0), "artifact.refused-by-main"),
    (dict(RUN, run_kind=""), "artifact.refused-by-main"),
    (dict(RUN, kind=None), "artifact.refused-by-main"),
    (dict(RUN, kind=["run"]), "artifact.refused-by-main"),
]


@pytest.mark.parametrize("data", MAIN_ACCEPTS, ids=[repr(d)[-60:] for d in MAIN_ACCEPTS])
def test_what_main_accepts_is_never_contract(data: dict[str, Any]) -> None:
    found = check_record(document(data, display="artifacts/x/y.json"))
    assert all(level_of(f) == DISCIPLINE for f in found), [(f.rule, f.message) for f in found]


@pytest.mark.parametrize(("data", "rule"), MAIN_REFUSES, ids=[repr(d)[-60:] for d, _ in MAIN_REFUSES])
def test_what_main_refuses_is_contract_in_its_own_words(data: dict[str, Any], rule: str) -> None:
    doc = document(data, record_kind(data, "runs"), display="artifacts/runs/y.json")  # a kind not text: its folder's
    found = [f for f in check_record(doc) if level_of(f) == CONTRACT]
    assert [f.rule for f in found] == [rule], [(f.rule, f.message) for f in found]
    refusal = main_refusals(data, DECISION_ACTIONS)
    assert refusal and all(f.hint for f in found)
    if rule == "artifact.refused-by-main":
        assert any(error in found[0].message for _, error in refusal)


FAILS = {rule for _, _, rules in CASES for rule in rules} | {"artifact.unknown-kind"}
PASSES = {
    "review.placeholder",
    "review.card-id-missing",
    "review.reason-not-text",
    "artifact.unknown-kind",
    "run.schema",
    "decision.schema",
    "review.schema",
    "review.target-not-reviewed",
    "decision.unknown-action",
}


@pytest.mark.parametrize(("data", "expected"), [(d, e) for _, d, e in CASES], ids=[c[0] for c in CASES])
def test_record_rules(data: dict[str, Any], expected: list[str]) -> None:
    assert fired(check_record(document(data))) == expected


def test_a_finding_is_placed_on_the_line_of_its_pointer() -> None:
    data = review_data(cards_written=[{"card_id": "k", "scope": "global", "action": "new", "target_run_id": "run-0"}])
    [finding] = check_record(document(data))
    assert finding.pointer == "/cards_written/0/target_run_id"
    assert finding.line == document(data).raw.decode().splitlines().index('      "target_run_id": "run-0"') + 1


def test_other_kinds_have_no_built_in_record_rules() -> None:
    assert check_record(document({"kind": "idea", "title": 3}, display="artifacts/ideas/i.json")) == []


def test_a_forks_actions_are_accepted_when_given() -> None:
    fork = dict(DECISION, action="controller_backoff_pending")
    assert fired(check_record(document(fork))) == ["decision.unknown-action"]
    assert check_record(document(fork), actions={"controller_backoff_pending", "continue"}) == []


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("decision", None),
        ("science.claim", None),
        ("decisions", "decision"),
        ("Decision", "decision"),
        ("runs", "run"),
        ("zzz", None),
    ],
)
def test_unknown_kinds_get_a_did_you_mean(kind: str, expected: str | None) -> None:
    finding = kind_finding(kind, None, "x.json")
    if kind in ("decision", "science.claim"):
        assert finding is None
    else:
        assert finding is not None and finding.rule == "artifact.unknown-kind"
        assert (
            finding.hint == (f"did you mean {expected}?" if expected else finding.hint) and finding.pointer == "/kind"
        )


def test_an_empty_reason_says_so_in_words() -> None:
    [finding] = check_record(document(review_data(cards_written=[], reason_if_empty="")))
    assert (finding.pointer, finding.message) == ("/reason_if_empty", "`reason_if_empty` must not be empty")


@pytest.mark.parametrize("action", sorted(DECISION_ACTIONS))
def test_every_action_deepscientist_accepts_is_accepted(action: str) -> None:
    data = review_data() if action == "distill_review" else dict(DECISION, action=action)
    assert check_record(document(data)) == []


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_deepscientist_accepts_is_accepted(kind: str) -> None:
    assert kind_finding(kind, None, "x.json") is None
