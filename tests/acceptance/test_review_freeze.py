"""Issue 25.1: one imperfect review never freezes a worktree.

DeepScientist main records any ``kind: report`` (its validator requires nothing of one), and
re-stages an uncommitted file at every checkpoint. So a review main accepted must never block
an ordinary checkpoint, an invalid review must stop failing ``closure`` once it is replaced or
superseded, and every failure ``closure`` reports must name a call the agent can make through
main's own tools. Real quests, real worktrees, the real installed hook; reviews recorded through
``ExampleQuest.artifact_record`` (main's validator) behind ``main_record``, which also answers
"semantically_equivalent" as main's dedupe does for a second review that does not switch it off.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from ds_gate import evaluate
from ds_gate.agent import tools as agent_tools
from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest

from helpers import commit, git, head_subject

RUN = "RUN"  # replaced by the run's artifact id


def report(run: str, **changes: Any) -> dict[str, Any]:
    """A review as main accepts it: a report, with every field the gate reads."""
    payload: dict[str, Any] = {
        "kind": "report",
        "report_type": "distill_review",
        "reviewed_run_ids": [run],
        "cards_written": [],
        "reason_if_empty": "a smoke run, nothing reusable",
        "suppress_if_semantically_equivalent": False,
    }
    payload.update(json.loads(json.dumps(changes).replace(f'"{RUN}"', json.dumps(run))))
    return payload


# a review as an agent easily gets it wrong -> the rule that finds it; main records every one of them
MISTAKES: dict[str, tuple[dict[str, Any], str]] = {
    "an experiment id for a run id": ({"reviewed_run_ids": ["main-001"]}, "review.unknown-run"),
    "an unknown run id": ({"reviewed_run_ids": ["run-12345678"]}, "review.unknown-run"),
    "an empty reason_if_empty and no cards": ({"reason_if_empty": ""}, "review.schema"),
    "no reviewed run": ({"reviewed_run_ids": []}, "review.schema"),
    "a card in no scope": (
        {"cards_written": [{"card_id": "k", "scope": "team", "action": "new", "target_run_id": RUN}]},
        "review.schema",
    ),
    "a card for a run not reviewed": (
        {"cards_written": [{"card_id": "k", "scope": "global", "action": "new", "target_run_id": "run-ffffffff"}]},
        "review.target-not-reviewed",
    ),
    "a card without card_id": (
        {"cards_written": [{"scope": "global", "action": "new", "target_run_id": RUN}]},
        "review.card-id-missing",
    ),
    "the draft's placeholder": ({"reason_if_empty": "<FILL: why no lesson is worth a card>"}, "review.placeholder"),
}


def records_of(root: Path, folder: str) -> list[Path]:
    return sorted([*root.glob(f"artifacts/{folder}/*.json"), *root.glob(f".ds/worktrees/*/artifacts/{folder}/*.json")])


def main_record(quest: ExampleQuest, workspace: Path, payload: dict[str, Any]) -> dict[str, Any]:
    """``artifact.record(payload=...)`` as main answers it, its semantic dedupe included: a
    decision or report that does not set ``suppress_if_semantically_equivalent: False`` is
    dropped when one of the same type exists (main compares the stage too; here it never
    differs, the stricter case)."""
    kind = payload.get("kind")
    if kind in ("decision", "report") and payload.get("suppress_if_semantically_equivalent", True) is not False:
        same = "report_type" if kind == "report" else "action"
        for path in records_of(quest.root, f"{kind}s"):
            if json.loads(path.read_text()).get(same) == payload.get(same):
                return {"ok": True, "status": "semantically_equivalent", "artifact_id": path.stem}
    return quest.artifact_record(workspace, payload)


@pytest.fixture
def hooked(make_quest):
    """A quest with the hook installed and an idea worktree holding one committed, completed run."""
    quest = make_quest()
    assert main(["install", str(quest.root)]) == 0
    idea = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(idea, "main-001")
    assert commit(idea, "experiment: record main main-001").returncode == 0
    return quest, idea, run


def checkpoint(workspace: Path, message: str) -> str:
    """A DeepScientist checkpoint through the real hook; it must commit."""
    done = commit(workspace, message)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and head_subject(workspace) == message, output
    return output


# ---------------------------------------------------------------- the policy corpus, report encoding


@pytest.mark.slow
@pytest.mark.parametrize("case", list(MISTAKES), ids=list(MISTAKES))
def test_a_report_main_accepted_never_blocks_a_checkpoint(hooked, case, tmp_path) -> None:
    quest, idea, run = hooked
    changes, rule = MISTAKES[case]
    recorded = main_record(quest, idea, report(run, **changes))
    assert recorded["ok"] and "status" not in recorded  # main wrote it
    said = checkpoint(idea, f"artifact: report {recorded['artifact_id']}")
    assert f"warning [{rule}]" in said and "error [" not in said
    assert "the review covers no run: record it again under its artifact_id" in said  # what checkpoint.stderr says
    (idea / "notes.md").write_text("later\n")
    checkpoint(idea, "later checkpoint")  # and the worktree goes on committing
    # the pre-commit framework's hook judges it alike
    assert main(["validate", "--checkpoint", str(records_of(quest.root, "reports")[0])]) == 0
    # the gate as a whole still fails on it: it covers nothing
    report_ = evaluate(quest.root, "closure")
    assert not report_.ok and report_.pending_run_ids == [run] and [r.valid for r in report_.reviews] == [False]
    assert any(f.rule == rule and f.fails for f in report_.findings)


@pytest.mark.parametrize("case", list(MISTAKES), ids=list(MISTAKES))
def test_the_rfc_encoding_of_the_same_review_never_reaches_a_main_quest(make_quest, case) -> None:
    """Where main is the judge the decision encoding is refused before anything is written,
    so its rules stay contract: there is no recorded file for them to freeze."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    changes, _ = MISTAKES[case]
    payload = {
        **report(run, **changes),
        "kind": "decision",
        "action": "distill_review",
        "verdict": "covered",
        "reason": "r",
    }
    payload.pop("report_type")
    assert main_record(quest, quest.root, payload)["errors"] == ["Unknown decision action: distill_review"]
    assert records_of(quest.root, "decisions") == []


# ---------------------------------------------------------------- the freeze of issue 25, end to end


@pytest.mark.slow
def test_an_imperfect_review_then_a_corrected_one_never_freezes_the_worktree(hooked) -> None:
    """Fails on the code before issue 25: the first checkpoint was refused, main re-stages the
    file at every later one, so none committed, the corrected review's included."""
    quest, idea, run = hooked
    wrong = main_record(quest, idea, report("main-001"))
    assert wrong["ok"]
    said = checkpoint(idea, f"artifact: report {wrong['artifact_id']}")
    assert "warning [review.unknown-run]" in said and f"did you mean {run}?" in said
    right = main_record(quest, idea, report(run))
    checkpoint(idea, f"artifact: report {right['artifact_id']}")
    for i in range(3):
        (idea / "notes.md").write_text(f"progress {i}\n")
        checkpoint(idea, f"checkpoint {i}")
    # the invalid review covers nothing, says why, and no longer fails the gate: a valid one covers its run
    closure = evaluate(quest.root, "closure")
    assert closure.ok and closure.pending == []
    [old] = [f for f in closure.findings if f.rule == "review.unknown-run"]
    assert old.severity == "warning" and f"superseded ({right['artifact_id']} covers every run it names)" in old.message
    assert [(r.artifact_id, r.valid) for r in closure.reviews] == sorted(
        [(wrong["artifact_id"], False), (right["artifact_id"], True)]
    )
    # and the finalization the review was for goes through
    (idea / "paper").mkdir()
    (idea / "paper" / "paper_bundle_manifest.json").write_text('{"package_type": "paper_draft_checkpoint"}\n')
    checkpoint(idea, "paper: bundle")


def test_an_invalid_review_supersedes_nothing_while_a_run_it_means_is_pending(hooked) -> None:
    quest, idea, run = hooked
    other = quest.run(idea, "main-002")
    main_record(quest, idea, report("main-001", reviewed_run_ids=["main-001", "main-002"]))
    main_record(quest, idea, report(run))  # covers main-001 only
    closure = evaluate(quest.root, "closure")
    assert closure.pending_run_ids == [other] and not closure.ok
    assert [f.severity for f in closure.findings if f.rule == "review.unknown-run"] == ["error", "error"]


@pytest.mark.slow
def test_the_same_artifact_id_recorded_again_replaces_the_invalid_review(hooked) -> None:
    quest, idea, run = hooked
    wrong = main_record(quest, idea, report(run, reason_if_empty=""))
    checkpoint(idea, "artifact: report")
    [finding] = [f for f in evaluate(quest.root, "closure").findings if f.rule == "review.schema"]
    call = call_in(finding.hint or "")
    assert call["artifact_id"] == wrong["artifact_id"] and call["reviewed_run_ids"] == [run]
    assert call["suppress_if_semantically_equivalent"] is False
    # without the flag main's dedupe answers "semantically_equivalent" and writes nothing
    dropped = main_record(
        quest, idea, {k: v for k, v in report(run).items() if k != "suppress_if_semantically_equivalent"}
    )
    assert dropped["status"] == "semantically_equivalent"
    again = main_record(quest, idea, {**report(run), "artifact_id": wrong["artifact_id"]})
    assert again["artifact_id"] == wrong["artifact_id"] and len(records_of(quest.root, "reports")) == 1
    checkpoint(idea, "artifact: report again")
    closure = evaluate(quest.root, "closure")
    assert closure.ok and closure.findings == [] and [r.valid for r in closure.reviews] == [True]


@pytest.mark.slow
def test_the_draft_recorded_as_it_is_blocks_nothing_and_covers_nothing(hooked) -> None:
    quest, idea, run = hooked
    drafted = agent_tools.draft_distill_review(idea, [run])["payload"]
    assert drafted["reason_if_empty"].startswith("<FILL: ") and drafted["suppress_if_semantically_equivalent"] is False
    recorded = main_record(quest, idea, drafted)
    assert recorded["ok"]
    said = checkpoint(idea, "artifact: report draft")
    assert "warning [review.placeholder]" in said
    closure = agent_tools.check_closure(idea)
    assert not closure["ok"] and closure["pending_run_ids"] == [run]
    [placeholder] = [f for f in closure["findings"] if f["rule"] == "review.placeholder"]
    assert "still holds the draft's placeholder" in placeholder["message"] and "'artifact_id'" in placeholder["hint"]


# ---------------------------------------------------------------- every failure names its fix, and the fix works


def call_in(text: str) -> dict[str, Any]:
    """The ``artifact.record(payload={...})`` call a message names, as the fields it gives."""
    start = text.rindex("artifact.record(payload={")
    body = text[start:]
    fields: dict[str, Any] = {}
    for key in ("kind", "report_type", "action", "artifact_id"):
        found = re.search(rf"'{key}': '([^']*)'", body)
        if found:
            fields[key] = found.group(1)
    ids = re.search(r"'reviewed_run_ids': (\[[^\]]*\])", body)
    assert ids is not None, body
    fields["reviewed_run_ids"] = ast.literal_eval(ids.group(1))
    if "'suppress_if_semantically_equivalent': False" in body:
        fields["suppress_if_semantically_equivalent"] = False
    return fields


def make_pending(quest, idea, run) -> None:
    """No review at all."""


def make_duplicate(quest, idea, run) -> None:
    """A new card repeating an existing card's body, with no neighbour decision."""
    body = "Context: lr sweep.\n\nObservation: above 1e-3 the experts collapse."
    quest.card(
        "global",
        "Routing collapses",
        claim="lr above 1e-3 collapses experts.",
        body=body,
        lineage=[{"quest": quest.quest_id, "run": run}],
    )
    twin = quest.new_id("knowledge")
    quest.card(
        "global",
        "Experts collapse",
        card_id=twin,
        claim="Same.",
        body=body,
        lineage=[{"quest": quest.quest_id, "run": run}],
    )
    main_record(
        quest,
        idea,
        report(run, cards_written=[{"card_id": twin, "scope": "global", "action": "new", "target_run_id": run}]),
    )


def make_missing_card(quest, idea, run) -> None:
    main_record(
        quest,
        idea,
        report(
            run,
            cards_written=[{"card_id": "knowledge-deadbeef", "scope": "global", "action": "new", "target_run_id": run}],
        ),
    )


def make_empty_claim(quest, idea, run) -> None:
    """A lesson written with memory.write, its claim left empty, named by a valid review."""
    card = quest.card("global", "Experts collapse", claim="", lineage=[{"quest": quest.quest_id, "run": run}])
    main_record(
        quest,
        idea,
        report(run, cards_written=[{"card_id": card, "scope": "global", "action": "new", "target_run_id": run}]),
    )


def make_mistake(case: str):
    def make(quest, idea, run) -> None:
        main_record(quest, idea, report(run, **MISTAKES[case][0]))

    return make


CLASSES = {
    "coverage.pending-run": make_pending,
    "review.missing-card": make_missing_card,
    "review.duplicate-card": make_duplicate,
    "card.experience-schema (an empty claim)": make_empty_claim,
    **{MISTAKES[case][1] + f" ({case})": make_mistake(case) for case in MISTAKES},
}


def card_call_in(text: str) -> dict[str, str]:
    """The ``memory.write(kind=..., title=..., scope=...)`` call a message names."""
    body = text[text.rindex("memory.write(") :]
    return {
        key: ast.literal_eval(re.search(rf"{key}=('(?:[^'\\]|\\.)*')", body).group(1))  # type: ignore[union-attr]
        for key in ("kind", "title", "scope")
    }


def the_call(closure: dict[str, Any]) -> dict[str, Any]:
    """The call the first failing finding names (or, for the pending runs, ``next_call``)."""
    failing = [f for f in closure["findings"] if f["severity"] == "error"]
    assert failing, closure
    for finding in failing:
        if "memory.write(kind=" in (finding["hint"] or ""):
            return {"memory.write": card_call_in(finding["hint"]), "finding": finding}
        if "artifact.record(payload={" in (finding["hint"] or ""):
            return call_in(finding["hint"])
    assert {f["rule"] for f in failing} == {"coverage.pending-run"}, failing
    return call_in("\n".join(closure["next_call"]))


@pytest.mark.slow
@pytest.mark.parametrize("failure", list(CLASSES), ids=list(CLASSES))
def test_each_failure_closure_reports_is_fixed_by_the_call_its_message_names(hooked, home, failure) -> None:
    quest, idea, run = hooked
    CLASSES[failure](quest, idea, run)
    (idea / "status.md").write_text("distilling\n")
    checkpoint(idea, "as the agent left it")
    closure = agent_tools.check_closure(idea)
    assert not closure["ok"] and failure.split(" ")[0] in {
        f["rule"] for f in closure["findings"] if f["severity"] == "error"
    }
    for _ in range(3):
        if closure["ok"]:
            break
        call = the_call(closure)
        if "memory.write" in call:  # the card written again under its title, its claim now given
            write, finding = call["memory.write"], call["finding"]
            quest.card(
                write["scope"],
                write["title"],
                kind=write["kind"],
                card_id=finding["subject"],
                claim="Above lr 1e-3 the experts collapse.",
                lineage=[{"quest": quest.quest_id, "run": run}],
            )
            closure = agent_tools.check_closure(idea)
            continue
        runs = call["reviewed_run_ids"]
        payload = {**call, "cards_written": quest.lessons(runs)}  # the skill's cards, written with memory.write
        assert agent_tools.validate_distill_review(idea, payload)["ok"]
        recorded = main_record(quest, idea, payload)
        assert recorded["ok"] and recorded.get("status") != "semantically_equivalent", recorded
        checkpoint(idea, f"artifact: report {recorded['artifact_id']}")
        closure = agent_tools.check_closure(idea)
    assert closure["ok"] and closure["verdict"] == "passed", closure


# ---------------------------------------------------------------- validate_distill_review is closure's own answer


@pytest.mark.slow
@pytest.mark.parametrize("case", [*MISTAKES, "valid"], ids=[*MISTAKES, "valid"])
def test_validate_answers_what_closure_says_once_the_review_is_recorded(hooked, home, case) -> None:
    quest, idea, run = hooked
    payload = {**report(run, **(MISTAKES[case][0] if case != "valid" else {})), "artifact_id": "report-0000beef"}
    answer = agent_tools.validate_distill_review(idea, payload)
    assert answer["path"] == ".ds/worktrees/idea-a/artifacts/reports/report-0000beef.json"
    assert list(idea.glob("artifacts/reports/*")) == []  # nothing written
    main_record(quest, idea, payload)
    closure = agent_tools.check_closure(idea)
    said = [
        f
        for f in closure["findings"]
        if f["path"] == answer["path"] or (f["rule"] == "coverage.pending-run" and f["subject"] in answer["runs_meant"])
    ]
    assert answer["runs_meant"] == ([] if case in ("an unknown run id", "no reviewed run") else [run])

    def key(f: dict[str, Any]) -> tuple[Any, ...]:  # the line too, but for the one field main adds (head_commit)
        return (f["rule"], f["severity"], f["path"], f["pointer"], f["message"], f["hint"], f["line"] is None)

    assert sorted(map(key, answer["findings"])) == sorted(map(key, said))
    assert answer["ok"] == (case == "valid") and answer["valid"] == (case == "valid")
    assert answer["covers"] == ([run] if case == "valid" else [])
    assert answer["pending_after"] == closure["pending_run_ids"] and answer["closure_ok_after"] == closure["ok"]


def test_validate_names_what_main_would_refuse_or_drop(hooked) -> None:
    quest, idea, run = hooked
    first = main_record(quest, idea, report(run))
    plain = {k: v for k, v in report(run).items() if k != "suppress_if_semantically_equivalent"}
    answer = agent_tools.validate_distill_review(idea, {**plain, "artifact_id": first["artifact_id"]})
    assert any("semantically_equivalent" in note for note in answer["notes"])
    assert any(f"artifact_id {first['artifact_id']} is recorded already" in note for note in answer["notes"])
    rfc = {**report(run), "kind": "decision", "action": "distill_review", "verdict": "covered", "reason": "r"}
    answer = agent_tools.validate_distill_review(idea, rfc)
    assert not answer["ok"] and answer["valid"]  # ds-gate reads the RFC's encoding; main refuses to record it
    assert any("refuses kind 'decision' with action 'distill_review'" in note for note in answer["notes"])


def test_the_cli_validates_a_review_payload_from_a_file_or_stdin(hooked, tmp_path, capsys, monkeypatch) -> None:
    quest, idea, run = hooked
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(report(run)))
    bad.write_text(json.dumps(report("main-001")))
    assert main(["validate-review", str(good), "--quest", str(idea)]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["validate-review", str(bad), "--quest", str(idea), "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out == agent_tools.validate_distill_review(idea, report("main-001"))
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(report(run)).encode())))
    monkeypatch.chdir(idea)
    assert main(["validate-review", "-"]) == 0
    capsys.readouterr()
    bad.write_text("{not json")
    assert main(["validate-review", str(bad), "--quest", str(idea)]) == 2
    assert "bad.json" in capsys.readouterr().err


def test_the_cli_cites_the_payload_file_and_puts_the_typo_first(hooked, tmp_path, capsys) -> None:
    """Issue 39: a typo in reviewed_run_ids, with cards listed before it, is the first finding,
    cited at its line in the payload file (the record main would write does not exist yet),
    and its did-you-mean reads as a sentence."""
    quest, idea, run = hooked
    typo = run[:-1] + ("0" if run[-1] != "0" else "1")
    cards = [{"card_id": f"k{i}", "scope": "global", "action": "new", "target_run_id": run} for i in range(2)]
    payload = {"kind": "report", "report_type": "distill_review", "cards_written": cards, **report(typo)}
    payload["cards_written"] = cards
    file = tmp_path / "review.json"
    file.write_text(json.dumps(payload, indent=2))
    assert main(["validate-review", str(file), "--quest", str(idea)]) == 1
    out = capsys.readouterr().out
    typo_line = file.read_text().splitlines().index(f'    "{typo}"') + 1
    first = out.splitlines()[1]
    assert first.startswith(f"{file}:{typo_line}: error [review.unknown-run]"), out
    assert "<new>" not in out and "?;" not in out
    assert f"did you mean {run}? Then record it" in out
    card_line = file.read_text().splitlines().index(f'      "target_run_id": "{run}"') + 1
    assert f"{file}:{card_line}: error [review.target-not-reviewed]" in out


@pytest.mark.slow
def test_git_sees_the_replaced_review_once(hooked) -> None:
    """Main writes the same file again: the history holds both, the tree one."""
    quest, idea, run = hooked
    wrong = main_record(quest, idea, report("main-001"))
    checkpoint(idea, "artifact: report")
    main_record(quest, idea, {**report(run), "artifact_id": wrong["artifact_id"]})
    checkpoint(idea, "artifact: report again")
    tree = git(idea, "ls-tree", "-r", "--name-only", "HEAD", "artifacts/reports").stdout.split()
    assert tree == [f"artifacts/reports/{wrong['artifact_id']}.json"]
    assert evaluate(quest.root, "closure", source="git").ok
