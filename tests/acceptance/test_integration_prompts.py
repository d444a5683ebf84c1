"""Issue 37.1: ``install --deepscientist --prompts`` end to end, in a stand-in DeepScientist's own Python.

The runtime of ``test_integration.py`` (a real venv with the stand-in installed by pip, whose
``deepscientist.prompts.builder`` and ``deepscientist.skills.registry`` are ds_gate/demo/builder.py
and skill_registry.py), the real install, and prompts built by ``PromptBuilder.build`` in that
Python, as main's daemon builds them for every runner.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from test_integration import PASSED_ON, _swap, call, install, quest, review, runtime, tree_hash, undo

from ds_gate.cli.main import main

pytestmark = pytest.mark.slow
__all__ = ["runtime"]  # the module's fixture, shared

BUILD = (
    "import json, sys\nfrom pathlib import Path\nfrom deepscientist.prompts.builder import PromptBuilder\n"
    "from deepscientist.skills.registry import discover_skill_bundles\n"
    "repo, home, quest, skill = sys.argv[1:5]\n"
    "prompt = PromptBuilder(Path(repo), Path(home)).build(quest_id=quest, skill_id=skill, user_message='go', model='m')\n"
    "print(json.dumps({'prompt': prompt, 'skills': [b.skill_id for b in discover_skill_bundles(Path(repo))]}))\n"
)


def checkout(home: Path) -> Path:
    repo = home.parent / "checkout"
    for skill_id, role in (("experiment", "stage"), ("finalize", "stage"), ("review", "companion")):
        folder = repo / "src" / "skills" / skill_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(f"---\nname: {skill_id}\nskill_role: {role}\n---\n")
    return repo


def build(rt: dict[str, Path], root: Path, skill: str = "finalize") -> tuple[str, list[str], str]:
    env = {name: os.environ[name] for name in PASSED_ON if name in os.environ}
    done = subprocess.run(
        [str(rt["python"]), "-c", BUILD, str(checkout(rt["home"])), str(rt["home"]), root.name, skill],
        capture_output=True,
        text=True,
        env=env,
        cwd=rt["home"],
        check=False,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    out = json.loads(done.stdout)
    return out["prompt"], out["skills"], done.stderr


def ours(prompt: str) -> list[str]:
    return [line for line in prompt.splitlines() if "(ds-gate)" in line or line.startswith("- distill: ")]


def doctor_line(rt: dict[str, Path], root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    capsys.readouterr()
    main(["doctor", str(root), "--home", str(rt["home"]), "--format", "json"])
    [check] = [c for c in json.loads(capsys.readouterr().out)["checks"] if c["name"] == "deepscientist integration"]
    return check  # type: ignore[no-any-return]


def test_the_rule_names_the_pending_runs_until_a_review_lands_and_the_skill_is_listed(runtime, capsys) -> None:
    q, root, run = quest(runtime["home"], "q-prompt")
    never, _, _ = build(runtime, root)
    install(runtime["home"])
    without, _, _ = build(runtime, root)
    assert without == never  # installed without --prompts: the prompt is main's, byte for byte
    assert "prompts: off" in doctor_line(runtime, root, capsys)["message"]
    install(runtime["home"], "--prompts")
    try:
        check = doctor_line(runtime, root, capsys)
        assert check["status"] == "ok" and "prompts: on" in check["message"], check
        prompt, skills, _ = build(runtime, root)
        [rule] = [line for line in prompt.splitlines() if line.startswith("- distill_required_rule (ds-gate)")]
        assert run in rule and "artifact.complete_quest" in rule
        skill = runtime["site"] / "_ds_gate_ds_distill.md"
        assert f"- distill: primary={skill}" in prompt and skill.is_file()
        assert "distill" not in skills  # main's registry untouched: its sync copies nothing of ds-gate's into quests
        assert ours(build(runtime, root, "review")[0]) == [f"- distill: primary={skill}"]  # a companion turn: no rule
        _, recorded = call(runtime, root, [("record", {"payload": review([run])})])
        assert recorded["ok"] is True, recorded
        after, _, _ = build(runtime, root)
        assert "distill_required_rule" not in after and "(ds-gate)" not in after
    finally:
        undo(runtime["home"])
    assert build(runtime, root)[0] == never


def test_an_unknown_shape_adds_nothing_says_so_and_the_tool_wraps_still_refuse(runtime, capsys) -> None:
    q, root, run = quest(runtime["home"], "q-prompt-shape")
    never, _, _ = build(runtime, root)
    install(runtime["home"], "--prompts")
    module = runtime["site"] / "deepscientist" / "prompts" / "builder.py"
    original = _swap(
        module,
        "*, skill_id: str, active_anchor: str, user_message: str) -> str:",
        "*, skill_id: str, active_anchor: str, user_message: str, extra: str = '') -> str:",
    )
    try:
        prompt, _, err = build(runtime, root)
        assert prompt == never and ours(prompt) == []  # nothing of ds-gate's
        lines = [line for line in err.splitlines() if line.startswith("ds-gate")]
        assert len(lines) == 1 and "prompts add nothing" in lines[0] and "_priority_memory_block" in lines[0], err
        check = doctor_line(runtime, root, capsys)
        assert check["status"] == "warn" and "prompts: on but adds nothing" in check["message"], check
        _, refused = call(runtime, root, [("complete_quest", {})])
        assert refused["status"] == "distill_review_required"  # the tool wraps are independent of the prompt's
    finally:
        module.write_text(original)
        undo(runtime["home"])


def test_ds_gate_gone_is_one_note_and_undo_is_exact(runtime) -> None:
    q, root, run = quest(runtime["home"], "q-prompt-gone")
    never, _, _ = build(runtime, root)
    before = tree_hash(runtime["env"])  # after main's own bytecode of this build exists
    install(runtime["home"], "--prompts", "--memory-global-scope")
    config = runtime["site"] / "_ds_gate_ds.json"
    settings = json.loads(config.read_text())
    try:
        config.write_text(json.dumps({**settings, "python": "/nonexistent/python"}))
        prompt, _, _ = build(runtime, root)
        [note] = [line for line in prompt.splitlines() if line.startswith("- ds_gate_note:")]
        assert "is gone" in note and "still refuse while runs are pending" in note
        config.write_text(json.dumps(settings))
        install(runtime["home"])  # the switch off again: the skill file goes
        assert not (runtime["site"] / "_ds_gate_ds_distill.md").exists()
        install(runtime["home"], "--prompts")
    finally:
        undo(runtime["home"])
    assert tree_hash(runtime["env"]) == before
    assert build(runtime, root)[0] == never
