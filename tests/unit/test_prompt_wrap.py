"""Issue 37.1: ``install --deepscientist --prompts``, in process, on the stand-in of main's PromptBuilder.

The end-to-end tests (``tests/acceptance/test_integration_prompts.py``) run it inside a stand-in
DeepScientist; these pin the rules' text from a real quest, where they go in main's prompt, the
fail-safe line, and that an unknown shape adds nothing and leaves the tool wraps alone.
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pytest
import yaml

from ds_gate.agent.prompt_rules import prompt_lines
from ds_gate.demo import builder, prompt_step
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.integration import prompts, wrap
from ds_gate.integration.call import answer

SKILLS = (("scout", "stage"), ("experiment", "stage"), ("finalize", "stage"), ("review", "companion"))


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wrap, "_STATE", {"state": "idle", "reason": None, "wrapped": [], "problems": []})
    monkeypatch.setattr(wrap, "PROMPTS", {"state": "not loaded", "reason": None, "wrapped": []})
    monkeypatch.setattr(prompts, "_PROMPT_ORIGINALS", [])
    monkeypatch.setattr(wrap, "_JUDGE", [])


def repo(tmp_path: Path, extra: tuple[tuple[str, str], ...] = ()) -> Path:
    for skill_id, role in SKILLS + extra:
        folder = tmp_path / "repo" / "src" / "skills" / skill_id
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {skill_id}\nskill_role: {role}\n---\n")
    return tmp_path / "repo"


def shaped_like_main(**methods: Any) -> types.ModuleType:
    """A module like main's ``prompts/builder.py`` with a fresh ``PromptBuilder`` (wrapping it leaves the stand-in alone)."""
    module = types.ModuleType("builder_like_main")
    module.PromptBuilder = type("PromptBuilder", (builder.PromptBuilder,), dict(methods))  # type: ignore[attr-defined]
    module.current_standard_skills = builder.current_standard_skills  # type: ignore[attr-defined]
    return module


def example(
    tmp_path: Path, anchor: str = "finalize", distill: Any = None, **contract: Any
) -> tuple[ExampleQuest, list[str]]:
    home = tmp_path / "home"
    toggle = {"experience_distill": distill} if distill is not None else {}
    q = ExampleQuest(home / "quests" / "q1", "q1", home=home, **toggle).create()
    runs = [q.run(q.root, "main-001"), q.run(q.root, "main-002")]
    meta = yaml.safe_load((q.root / "quest.yaml").read_text())
    meta["active_anchor"] = anchor
    meta["startup_contract"].update(contract)
    (q.root / "quest.yaml").write_text(yaml.safe_dump(meta))
    q.checkpoint(q.root, "experiment: record main main-001, main-002")
    return q, runs


def build(module: types.ModuleType, repo_root: Path, home: Path, skill_id: str) -> str:
    prompt: str = module.PromptBuilder(repo_root, home).build(
        quest_id="q1", skill_id=skill_id, user_message="go", model="m"
    )
    return prompt


def test_a_stage_turn_carries_the_rules_before_selected_memory_and_a_companion_turn_none(tmp_path) -> None:
    q, runs = example(tmp_path)
    module = shaped_like_main()
    plain = build(module, repo(tmp_path), q.home, "finalize")  # type: ignore[arg-type]
    assert prompts.wrap_builder_module(module) == []
    wrap.set_judge(answer)
    prompt = build(module, tmp_path / "repo", q.home, "finalize")  # type: ignore[arg-type]
    memory = prompt[prompt.index("## Priority Memory") :]
    rule = next(line for line in memory.splitlines() if line.startswith("- distill_required_rule (ds-gate)"))
    assert all(run in rule for run in runs) and "artifact.validate_distill_review" in rule
    assert "artifact.record(payload={'kind': 'report'" in rule  # the call main 1.6.0 accepts
    assert memory.index(rule) < memory.index("- selected_memory:")  # PR #60's place
    assert "- global_scope_rule (ds-gate)" in memory  # finalize writes lessons
    assert f"- distill: primary={prompts.skill_path()}" in prompt and prompts.skill_path().is_file()
    # what ds-gate added is all that changed
    assert [line for line in prompt.splitlines() if line not in plain.splitlines()] == [
        line for line in prompt.splitlines() if "(ds-gate)" in line or line.startswith("- distill: ")
    ]
    companion = build(module, tmp_path / "repo", q.home, "review")  # type: ignore[arg-type]
    assert "(ds-gate)" not in companion
    assert builder.PromptBuilder._priority_memory_block is not module.PromptBuilder._priority_memory_block


def test_the_skill_file_is_a_companion_skill_in_mains_frontmatter_shape() -> None:
    text = (Path(prompts.__file__).with_name("distill.md")).read_text()
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta["name"] == "distill" and meta["skill_role"] == "companion" and meta["description"]
    for tool in (
        "artifact.list_distill_candidates",
        "memory.list_knowledge_summaries",
        "artifact.validate_distill_review",
    ):
        assert tool in text


def test_mains_own_distill_skill_wins(tmp_path) -> None:
    q, _ = example(tmp_path)
    module = shaped_like_main()
    root = repo(tmp_path, (("distill", "companion"),))
    prompts.wrap_builder_module(module)
    wrap.set_judge(lambda request: {"lines": []})
    lines = [line for line in build(module, root, q.home, "finalize").splitlines() if line.startswith("- distill:")]  # type: ignore[arg-type]
    assert lines == [f"- distill: primary={(root / 'src/skills/distill/SKILL.md').resolve()}"]


def test_recall_priors_and_the_global_scope_nudge_follow_the_toggles_and_the_anchor(tmp_path) -> None:
    q, _ = example(tmp_path, anchor="experiment", distill={"mode": "off"}, recall_priors=True)
    meta = yaml.safe_load((q.root / "quest.yaml").read_text())
    meta["startup_contract"]["brief"] = {"domains": ["Sparse Routing"]}
    (q.root / "quest.yaml").write_text(yaml.safe_dump(meta))
    lines = prompt_lines(q.root, q.home, "experiment", global_default=True)
    assert [line.split(" ", 2)[1] for line in lines] == ["recall_priors_rule", "global_scope_rule"]
    assert "'stage:experiment'" in lines[0] and "sparse" in lines[0].lower()
    assert "already memory.write's default here" in lines[1]
    assert [line.split(" ", 2)[1] for line in prompt_lines(q.root, q.home, "scout")] == ["recall_priors_rule"]
    meta["startup_contract"]["recall_priors"] = False
    (q.root / "quest.yaml").write_text(yaml.safe_dump(meta))
    assert prompt_lines(q.root, q.home, "experiment") == []  # both toggles off: nothing


@pytest.mark.parametrize(
    "judged",
    [
        RuntimeError("ds-gate's interpreter is gone"),
        {"lines": "not a list"},
        {"lines": ["no dash"]},
        {"lines": ["- x"] * 9},
        {"lines": ["- " + "x" * 5000]},
        {},
    ],
)
def test_whatever_ds_gate_answers_the_prompt_is_built_with_one_note(tmp_path, judged: Any) -> None:
    q, _ = example(tmp_path)
    module = shaped_like_main()
    prompts.wrap_builder_module(module)

    def judge(request: dict[str, Any]) -> dict[str, Any]:
        if isinstance(judged, Exception):
            raise judged
        return judged  # type: ignore[no-any-return]

    wrap.set_judge(judge)
    prompt = build(module, repo(tmp_path), q.home, "finalize")  # type: ignore[arg-type]
    notes = [line for line in prompt.splitlines() if line.startswith("- ds_gate_note:")]
    assert len(notes) == 1 and "still refuse while runs are pending" in notes[0] and "ds-gate doctor" in notes[0]


def test_control_characters_from_an_answer_never_break_the_prompt_lines() -> None:
    assert prompts.clean(["- a\nb\x1bc"]) == ["- a b c"]


def test_an_unknown_shape_adds_nothing_and_leaves_the_tool_wraps_alone(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(wrap, "version_problem", lambda: None)  # a known DeepScientist

    def renamed(self: Any, quest_root: Any, *, skill_id: str, anchor: str, user_message: str) -> str:
        return "- selected_memory:"

    module = shaped_like_main(_priority_memory_block=renamed)
    wrap._STATE.update(state="wrapped", wrapped=["ArtifactService.record"])
    prompts.patch(module)
    assert wrap.PROMPTS["state"] == "refused" and wrap.PROMPTS["wrapped"] == []
    assert "PromptBuilder._priority_memory_block has parameters" in wrap.PROMPTS["reason"]
    assert module.PromptBuilder._priority_memory_block is renamed
    assert module.PromptBuilder._companion_skill_paths_block is builder.PromptBuilder._companion_skill_paths_block
    assert wrap._STATE["state"] == "wrapped" and wrap._STATE["wrapped"] == ["ArtifactService.record"]
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "prompts add nothing" in err[0] and "ds-gate doctor" in err[0]


def test_without_the_switch_the_builder_is_never_wrapped(tmp_path) -> None:
    module = shaped_like_main()
    original = module.PromptBuilder._priority_memory_block
    wrap.patch(wrap.BUILDER, module)  # no _ds_gate_ds.json here: --prompts is off
    assert module.PromptBuilder._priority_memory_block is original and wrap.PROMPTS["state"] == "not loaded"
    assert wrap.status()["prompts"] == {"state": "off"}


def test_the_demos_prompt_build_leaves_the_stand_in_as_it_found_it(tmp_path) -> None:
    """CI ran the suite in one process: a demo run in process left main's stand-in wrapped, so every later
    wrap added its rules, skill line and fail-safe note twice."""
    q, _ = example(tmp_path)
    before = {name: builder.PromptBuilder.__dict__[name] for name in prompts.METHOD_SHAPES}
    prompt = prompt_step.build_prompt(q.home, tmp_path, "q1")
    assert prompt_step.ds_gate_lines(prompt)  # the demo's build carried the rules
    assert {name: builder.PromptBuilder.__dict__[name] for name in prompts.METHOD_SHAPES} == before
    assert wrap.PROMPTS["wrapped"] == [] and prompts._PROMPT_ORIGINALS == []
    test_whatever_ds_gate_answers_the_prompt_is_built_with_one_note(tmp_path / "after", {})
