"""``validate_distill_review`` takes the agent's payload, which is untrusted: whatever it
holds, the answer is closure's (a dict fitting the tool's output schema, rule ids the gate
declares) or one ``QuestError``, never a traceback, and nothing is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ds_gate.agent import tools as agent_tools
from ds_gate.agent.toolspec import BY_NAME
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.errors import QuestError
from ds_gate.rules.registry import builtin_rules

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


@pytest.fixture(scope="module")
def quest(tmp_path_factory: pytest.TempPathFactory) -> tuple[ExampleQuest, Path, list[str]]:
    base = tmp_path_factory.mktemp("fuzz")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DEEPSCIENTIST_HOME", str(base / "DeepScientist"))
        q = ExampleQuest(base / "DeepScientist" / "quests" / "001").create()
        idea = q.worktree("idea-a", "idea/001-a")
        runs = [q.run(idea, "main-001"), q.run(q.root, "main-002", run_kind="analysis.slice")]
        q.card("global", "A lesson", claim="c", lineage=[{"quest": "001", "run": runs[0]}])
        q.checkpoint(idea, "record")
    return q, idea, runs


def values(runs: list[str]) -> st.SearchStrategy[Any]:
    ids = st.sampled_from([*runs, "main-001", "run-12345678", "<FILL: x>", "", " "])
    card = st.fixed_dictionaries(
        {},
        optional={
            "card_id": ids | JSON,
            "scope": st.sampled_from(["global", "quest", "team"]),
            "action": st.sampled_from(["new", "patch", "x"]),
            "target_run_id": ids,
        },
    )
    return st.one_of(JSON, ids, st.lists(ids, max_size=4), st.lists(card | JSON, max_size=3))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_payload_gets_closures_answer_or_one_error(quest, data, monkeypatch) -> None:
    q, idea, runs = quest
    monkeypatch.setenv("DEEPSCIENTIST_HOME", str(q.root.parent.parent))
    keys = [
        "reviewed_run_ids",
        "cards_written",
        "neighbor_decisions",
        "reason_if_empty",
        "summary",
        "artifact_id",
        "created_at",
        "updated_at",
        "status",
        "suppress_if_semantically_equivalent",
        "report_type",
        "kind",
    ]
    payload = {
        "kind": "report",
        "report_type": "distill_review",
        **data.draw(st.dictionaries(st.sampled_from(keys), values(runs), max_size=6)),
    }
    before = sorted(p.name for p in idea.rglob("*") if ".git" not in p.parts)
    try:
        answer = agent_tools.validate_distill_review(idea, payload)
    except QuestError as exc:
        assert "\n" not in str(exc)
        return
    finally:
        assert sorted(p.name for p in idea.rglob("*") if ".git" not in p.parts) == before  # nothing written
    jsonschema.validate(answer, BY_NAME["validate_distill_review"].output)
    known = {rule.id for rule in builtin_rules()}
    assert {f["rule"] for f in answer["findings"]} <= known
    assert set(answer["covers"]) <= set(runs)
    if answer["ok"]:
        assert answer["valid"] and answer["covers"] and not any(f["severity"] == "error" for f in answer["findings"])
