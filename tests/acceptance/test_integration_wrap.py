"""Issue 25.2: the integration's wrapping, in process, on classes shaped like main's (and not).

The end-to-end tests (``test_integration.py``) run it inside a stand-in DeepScientist; these
pin what each wrapper asks and when, that an unknown shape wraps nothing, and that no answer
from ds-gate's side (however malformed) escapes as an exception into DeepScientist.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ds_gate.demo.service import ArtifactService
from ds_gate.integration import service as service_wrappers
from ds_gate.integration import wrap


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wrap, "_STATE", {"state": "idle", "reason": None, "wrapped": [], "problems": []})
    monkeypatch.setattr(wrap, "_ORIGINALS", [])
    monkeypatch.setattr(wrap, "_JUDGE", [])


def shaped_like_main() -> type:
    """A fresh class with main's four method shapes, recording what reaches main."""

    class Service(ArtifactService):
        pass

    calls: list[str] = []
    for name in service_wrappers.SERVICE_SHAPES:
        original = getattr(ArtifactService, name)

        def stub(self: Any, *args: Any, _name: str = name, **kwargs: Any) -> dict[str, Any]:
            calls.append(_name)
            return {"ok": True, "status": "main"}

        stub.__signature__ = __import__("inspect").signature(original)  # type: ignore[attr-defined]
        setattr(Service, name, stub)
    Service.calls = calls  # type: ignore[attr-defined]
    return Service


def test_each_wrapper_asks_only_where_the_agent_finalizes_or_records_a_review() -> None:
    cls = shaped_like_main()
    assert service_wrappers.wrap_service_class(cls) == []
    asked: list[dict[str, Any]] = []
    wrap.set_judge(lambda request: asked.append(request) or {"allow": True})
    service = cls.__new__(cls)
    service.home = Path("/home")
    root = Path("/q")
    service.record(root, {"kind": "progress"})
    service.record(root, {"kind": "report", "report_type": "paper_bundle"})
    service.interact(root, kind="progress", message="hi")
    assert asked == []  # ordinary calls never start ds-gate
    service.record(root, {"kind": "report", "report_type": "distill_review"})
    service.record(root, {"kind": "decision", "action": "distill_review"})
    service.interact(root, kind="decision_request", reply_schema={"decision_type": "quest_completion_approval"})
    service.complete_quest(root, summary="s")
    service.submit_paper_bundle(root, outline_path="o")
    assert [(r["op"], r["tool"]) for r in asked] == [
        ("review", "record"),
        ("review", "record"),
        ("finalization", "interact"),
        ("finalization", "complete_quest"),
        ("finalization", "submit_paper_bundle"),
    ]
    assert {r["root"] for r in asked} == {"/q"} and {r["home"] for r in asked} == {"/home"}
    asked_before = len(asked)
    assert asked_before == 5
    assert cls.calls.count("complete_quest") == 1  # allowed: main ran
    with wrap.tool_asked(root):  # the submit_paper_bundle tool asked already: its service call does not ask again
        service.submit_paper_bundle(root, outline_path="o")
    service.submit_paper_bundle(Path("/other"), outline_path="o")
    assert [r["root"] for r in asked[5:]] == ["/other"] and cls.calls.count("submit_paper_bundle") == 3


def test_a_refusal_is_returned_instead_of_calling_main() -> None:
    cls = shaped_like_main()
    service_wrappers.wrap_service_class(cls)
    refusal = {"ok": False, "status": "distill_review_required", "pending_run_ids": ["run-1"]}
    wrap.set_judge(lambda request: {"allow": False, "refusal": refusal})
    service = cls.__new__(cls)
    answered = service.complete_quest(Path("/q"), summary="")
    assert {key: answered[key] for key in refusal} == refusal
    assert "complete_quest" not in cls.calls


def test_another_shape_wraps_nothing_and_what_was_wrapped_is_put_back() -> None:
    good = shaped_like_main()
    before = {name: good.__dict__[name] for name in service_wrappers.SERVICE_SHAPES}
    assert service_wrappers.wrap_service_class(good) == []
    assert all(good.__dict__[name] is not before[name] for name in before)

    class Other(good):  # type: ignore[misc, valid-type]
        def complete_quest(self, quest_root: Path, *, summary: str = "", force: bool = False) -> dict[str, Any]:
            return {}

    problems = service_wrappers.wrap_service_class(Other)
    assert problems and "complete_quest has parameters (self, quest_root, summary, force)" in problems[0]
    assert "complete_quest" in Other.__dict__ and Other.__dict__["complete_quest"].__name__ == "complete_quest"
    wrap.refuse("; ".join(problems))
    assert {name: good.__dict__[name] for name in before} == before
    assert wrap.status()["state"] == "refused" and wrap.status()["wrapped"] == []


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(answer=JSONISH | st.fixed_dictionaries({"allow": JSONISH, "refusal": JSONISH}), raises=st.booleans())
def test_no_answer_from_ds_gate_escapes_as_an_exception(answer: Any, raises: bool) -> None:
    def judge(request: dict[str, Any]) -> Any:
        if raises:
            raise OSError("broken pipe")
        return answer

    wrap.set_judge(judge)
    result = wrap.ask(object(), "/q", {"op": "finalization", "tool": "complete_quest"})
    allowed = not raises and isinstance(answer, dict) and answer.get("allow") is True
    if allowed:
        assert result is None
    else:
        assert isinstance(result, dict) and result["ok"] is False
        if raises or not isinstance(answer, dict) or not isinstance(answer.get("refusal"), dict):
            assert result["status"] == wrap.STATUS_ERROR and "nothing was recorded" in result["message"]


@given(payload=JSONISH)
def test_is_review_never_raises(payload: Any) -> None:
    assert service_wrappers.is_review(payload) in (True, False)


def test_the_tools_go_on_the_quest_artifact_server_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Main's special profiles build an artifact server with one tool; ds-gate adds nothing there."""
    from types import SimpleNamespace

    from ds_gate.agent.mcp_server import server_class
    from ds_gate.integration import tools

    def names(server: Any) -> set[str]:
        return {tool.name for tool in server._tool_manager.list_tools()}

    context = SimpleNamespace(home=Path("/home"), require_quest_root=lambda: Path("/q"))
    profile = server_class()("artifact")
    profile.add_tool(lambda: {}, name="prepare_github_issue")
    assert tools.add_tools("build_artifact_server", profile, context, {}) == []
    assert names(profile) == {"prepare_github_issue"}
    quest = server_class()("artifact")
    for name in ("record", "complete_quest", "submit_paper_bundle"):
        quest.add_tool(lambda: {}, name=name)
    assert tools.add_tools("build_artifact_server", quest, context, {}) == []
    assert names(quest) == {
        "record",
        "complete_quest",
        "submit_paper_bundle",
        "list_distill_candidates",
        "list_recent",
        "validate_distill_review",
    }
    # a tool main already has under one of these names is left alone, and said so
    again = tools.add_tools("build_artifact_server", quest, context, {})
    assert len(again) == 3 and all("exists in this DeepScientist" in line for line in again)


@pytest.fixture(scope="module")
def small_quest(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    from ds_gate.demo.example_quest import ExampleQuest

    q = ExampleQuest(tmp_path_factory.mktemp("wrap") / "quests" / "001").create()
    run = q.run(q.root, "main-001")
    q.checkpoint(q.root, "experiment: record main main-001")
    return q.root, run


REVIEW_FIELDS = st.fixed_dictionaries(
    {"kind": st.just("report"), "report_type": st.just("distill_review")},
    optional={
        "reviewed_run_ids": JSONISH | st.lists(st.sampled_from(["run-x", "main-001"]) | st.text(max_size=4)),
        "cards_written": JSONISH,
        "neighbor_decisions": JSONISH,
        "reason_if_empty": JSONISH,
        "summary": st.text(),
    },
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(payload=REVIEW_FIELDS)
def test_any_review_payload_gets_a_verdict_never_an_error(
    small_quest: tuple[Path, str], payload: dict[str, Any]
) -> None:
    """ds-gate's side of artifact.record: whatever the agent sends (lone surrogates included)
    is judged (allowed or refused with findings), never an internal error."""
    from ds_gate.integration.call import answer

    root, _ = small_quest
    verdict = answer({"op": "review", "root": str(root), "payload": payload})
    assert "error" not in verdict, verdict
    assert verdict["allow"] is True or (
        verdict["refusal"]["status"] == "distill_review_invalid" and verdict["refusal"]["errors"]
    )


def test_a_valid_review_is_allowed_and_an_experiment_id_is_refused_with_the_fix(small_quest: tuple[Path, str]) -> None:
    from ds_gate.integration.call import answer

    root, run = small_quest
    review = {
        "kind": "report",
        "report_type": "distill_review",
        "reviewed_run_ids": [run],
        "cards_written": [],
        "reason_if_empty": "nothing reusable",
    }
    assert answer({"op": "review", "root": str(root), "payload": review}) == {"allow": True}
    refused = answer({"op": "review", "root": str(root), "payload": {**review, "reviewed_run_ids": ["main-001"]}})
    assert any(f"did you mean {run}?" in line for line in refused["refusal"]["errors"])


def test_recall_takes_the_mcp_tools_arguments_and_names_a_wrong_one(small_quest: tuple[Path, str]) -> None:
    """``list_knowledge_summaries`` through the integration takes what ``ds-gate mcp``'s takes
    (query, max_chars, order), checked the same way: a wrong one is an error naming it."""
    from ds_gate.integration.call import answer

    root, _ = small_quest
    asked = {"domain_tags": ["topic:x"], "query": "warmup drift", "max_chars": 100, "order": "relevance", "limit": 5}
    got = answer({"op": "tool", "root": str(root), "tool": "list_knowledge_summaries", "args": asked})
    assert got["result"]["request"] == {
        "domain_tags": ["topic:x"],
        "kind": None,
        "limit": 5,
        "query": "warmup drift",
        "max_chars": 100,
        "order": "relevance",
    }
    for name, wrong, said in (
        ("query", 7, "query must be a string"),
        ("max_chars", "9", "max_chars must be an integer"),
        ("order", "newest", "order must be 'rfc' or 'relevance'"),
    ):
        refused = answer({"op": "tool", "root": str(root), "tool": "list_knowledge_summaries", "args": {name: wrong}})
        assert said in refused["error"], refused


@pytest.mark.slow
def test_the_bridge_answers_json_for_text_no_encoding_holds(small_quest: tuple[Path, str]) -> None:
    """The request as DeepScientist's process sends it, over the real pipe to ds-gate's
    interpreter: a reviewed id with a lone surrogate (valid JSON) is refused with a reason, not a crash."""
    import json
    import subprocess
    import sys

    root, _ = small_quest
    request = (
        '{"op": "review", "root": ' + json.dumps(str(root)) + ', "payload": {"kind": "report", '
        '"report_type": "distill_review", "reviewed_run_ids": ["run-\\ud800"], "summary": "\\udcff"}}'
    )
    done = subprocess.run([sys.executable, "-c", wrap.BRIDGE], input=request.encode(), capture_output=True, check=True)
    answer = json.loads(done.stdout)
    assert answer["allow"] is False and answer["refusal"]["status"] == "distill_review_invalid", answer
    # main's write_json (ensure_ascii=False, then UTF-8) cannot write a lone surrogate: refused, saying so
    assert any("not JSON DeepScientist can write" in line for line in answer["refusal"]["errors"]), answer


@pytest.mark.parametrize(
    "spelt", [" quest_completion_approval ", "quest_completion_approval\n", "\tquest_completion_approval"]
)
def test_the_approval_is_read_as_main_reads_it(spelt: str) -> None:
    """Issue 35: main strips ``reply_schema.decision_type`` (``_interaction_decision_type``), so
    each of these is the completion approval to main, and must be asked about here."""
    cls = shaped_like_main()
    service_wrappers.wrap_service_class(cls)
    asked: list[dict[str, Any]] = []
    wrap.set_judge(lambda request: asked.append(request) or {"allow": False, "refusal": {"status": "refused"}})
    service = cls.__new__(cls)
    service.home = Path("/home")
    answer = service.interact(Path("/q"), kind="decision_request", reply_schema={"decision_type": spelt})
    assert [(r["op"], r["tool"]) for r in asked] == [("finalization", "interact")]
    assert answer["ok"] is False and "interact" not in cls.calls
    service.interact(Path("/q"), kind="decision_request", reply_schema={"decision_type": "Quest_Completion_Approval"})
    assert len(asked) == 1 and cls.calls == ["interact"]  # main compares case exactly: not the approval there either
