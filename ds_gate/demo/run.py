"""``ds-gate demo``: the gate, start to finish, on a real example quest.

It builds a real git quest with worktrees, installs the hook and the skill, and tells the story
step by step (the steps it prints are the story): finalization rejected while runs are pending,
then a review recorded and everything passing. It exits non-zero if any step does not behave so,
so CI can run it as a check.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from ds_gate.agent import tools as agent_tools
from ds_gate.agent.skill import install_skill
from ds_gate.demo.example_quest import CheckpointRejected, ExampleQuest
from ds_gate.demo.practice import STAND_IN, keep_pending
from ds_gate.demo.prompt_step import build_prompt, ds_gate_lines, priority_section
from ds_gate.demo.service import QUEST_COMPLETION_DECISION_TYPE, ArtifactService
from ds_gate.engine.gate import evaluate
from ds_gate.engine.lineage import evaluate_lineage
from ds_gate.integration import service, wrap
from ds_gate.integration.call import answer
from ds_gate.integration.review import judge_review
from ds_gate.kernel.counting import counted
from ds_gate.kernel.errors import shown
from ds_gate.reporters import registry as reporters
from ds_gate.setup.install import install

if TYPE_CHECKING:
    from collections.abc import Callable

    from ds_gate.model.reports import Report


def _say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _indent(text: str) -> str:
    return textwrap.indent(text.rstrip(), "    | ", lambda _line: True)


def wrapped_service(quest: ExampleQuest) -> ArtifactService:
    """The stand-in service over the example quest, wrapped by the integration's own code, which asks
    ds-gate in process (``call.answer``): the requests and answers that travel over DeepScientist's pipe."""
    if "ArtifactService.record" not in wrap.status()["wrapped"]:  # once per process
        problems = service.wrap_service_class(ArtifactService)
        if problems:
            raise RuntimeError("; ".join(problems))
    wrap.set_judge(answer)
    return ArtifactService(quest.home or quest.root.parent.parent, new_id=quest.new_id, now=quest.now)


def _agent_review(quest: ExampleQuest, workspace: Path, runs: list[str], render: Callable[[Report], str]) -> bool:
    """The agent's side: ``complete_quest`` refused by the integration, then the ``ds-gate mcp``
    server's calls (made here in Python, so the demo needs no extra) and the review recorded."""
    root = quest.root
    service = wrapped_service(quest)
    quest_yaml = (root / "quest.yaml").read_bytes()
    early = service.complete_quest(root, summary="done")
    untouched = (root / "quest.yaml").read_bytes() == quest_yaml
    _say(
        f"\n[5] with ds-gate's DeepScientist integration the agent's artifact.complete_quest() -> ok: {early['ok']},"
        f" status {early.get('status')},"
    )
    _say(f"    pending {', '.join(early.get('pending_run_ids', []))}: refused before anything is recorded or marked.")
    verdict = agent_tools.check_closure(root)
    _say(
        f"    the agent asks the ds-gate MCP server: check_closure() -> {verdict['verdict']}, pending "
        f"{', '.join(verdict['pending_run_ids'])}"
    )
    draft = agent_tools.draft_distill_review(root, verdict["pending_run_ids"])
    payload = draft["payload"]
    refused = quest.artifact_record(
        workspace, {**payload, "kind": "decision", "action": "distill_review", "verdict": "covered", "reason": "r"}
    )
    _say(
        f"    draft_distill_review() -> a kind={shown(payload['kind'])}, report_type={shown(payload.get('report_type'))} payload: "
        "DeepScientist main"
    )
    _say(f"    refuses the RFC's decision ({'; '.join(refused.get('errors', []))}) but stores a report.")
    payload["cards_written"] = quest.lessons(verdict["pending_run_ids"])
    checked = judge_review(root, payload)
    _say(
        f"    the skill writes two global lessons, fills cards_written; validate_distill_review(payload) -> accepted: "
        f"{checked['accepted']};"
    )
    recorded = service.record(root, payload, workspace_root=workspace)  # main checkpoints a report
    _say(
        f"    artifact.record(payload=...): {recorded.get('artifact_id')} is recorded in the idea worktree, covering both "
        "runs (one"
    )
    after = agent_tools.check_closure(root)
    _say(
        f"    recorded in another worktree); check_closure() -> {after['verdict']}. ds-gate closure (the cards exist, "
        "their lineage resolves):"
    )
    report = evaluate(root, "closure")
    _say(_indent(render(report)))
    return (
        untouched
        and early.get("status") == "distill_review_required"
        and sorted(early.get("pending_run_ids", [])) == sorted(runs)
        and checked["accepted"]
        and bool(recorded.get("ok"))
        and recorded["checkpoint"]["committed"]
        and "errors" in refused
        and after["ok"]
        and report.ok
        and not report.pending
    )


def _complete(quest: ExampleQuest) -> bool:
    """Runs covered: the user approves main's blocking request, and complete_quest goes through."""
    service = wrapped_service(quest)
    try:
        asked = service.interact(
            quest.root,
            kind="decision_request",
            reply_mode="blocking",
            message="May I complete?",
            reply_schema={"decision_type": QUEST_COMPLETION_DECISION_TYPE},
        )
        reply = quest.root / ".ds" / "replies" / f"{asked['interaction_id']}.txt"
        reply.parent.mkdir(parents=True, exist_ok=True)
        reply.write_text("approve\n")
        done = service.complete_quest(quest.root, summary="done")
    finally:
        wrap.set_judge(None)
    committed = (done.get("decision") or {}).get("checkpoint", {}).get("committed")
    _say("\n[7] the agent asks the user to approve completing the quest (a blocking request), the user approves;")
    _say(
        f"    the agent's artifact.complete_quest() again -> ok: {done['ok']}, status {done.get('status')}: "
        "DeepScientist's own answer;"
    )
    _say(f"    its quest-completion decision passed the hook (committed: {committed}).")
    return done.get("status") == "completed" and committed is True


def _prompt(home: Path, base: Path, runs: list[str]) -> bool:
    """The prompt main builds for a finalize turn: with runs pending ds-gate's rule names them, then none."""
    prompt = build_prompt(home, base, "001")
    added = ds_gate_lines(prompt)
    rule = [line for line in added if line.startswith("- distill_required_rule")]
    if runs:
        _say("    with install --deepscientist --prompts, the prompt main builds for the agent's finalize turn says it")
        _say("    first (its priority-memory section; ds-gate's distill skill is among the companion skill paths):")
        _say(_indent(priority_section(prompt)))
        _say(_indent("Companion skill paths: ... " + " ".join(x for x in added if x.startswith("- distill: "))))
        return len(rule) == 1 and all(run in rule[0] for run in runs) and any("- distill: " in x for x in added)
    _say("    the prompt for the next finalize turn no longer carries distill_required_rule.")
    return not rule


def run_demo(directory: str | None = None, *, fmt: str = reporters.TEXT, pending: bool = False) -> int:
    """The demo's git calls and hook see its home and no user git config; the caller's environment
    is restored afterwards (the API may be called from a longer process). ``pending``: stop after the
    rejection and keep the quest, its runs pending, to practise on (``demo.practice``)."""
    if pending and not directory:
        _say("ds-gate demo: --pending keeps the quest to practise on: give the folder, --dir DIR")
        return 2
    names = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "DEEPSCIENTIST_HOME")
    saved = {name: os.environ.get(name) for name in names}
    try:
        return _run_demo(directory, fmt, pending)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _run_demo(directory: str | None, fmt: str, pending: bool = False) -> int:
    # the demo's own git calls ignore the user's global/system git config (hooksPath, signing)
    os.environ["GIT_CONFIG_GLOBAL"] = os.devnull
    os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
    base = Path(directory).resolve() if directory else Path(tempfile.mkdtemp(prefix="ds-gate-demo-"))
    home = base / "DeepScientist"
    root = home / "quests" / "001"
    os.environ["DEEPSCIENTIST_HOME"] = str(home)  # the hook finds the demo's home, not yours
    if root.exists():
        _say(f"ds-gate demo: {root} already exists; pass an empty --dir")
        return 2
    render = reporters.get(fmt).render
    held: list[bool] = []
    _say("\n".join(textwrap.wrap(f"[0] {STAND_IN}", 100, subsequent_indent="    ")))
    try:
        quest = ExampleQuest(root).create()
        for item in install(root):
            _say(f"[1] {item.describe()}")

        _, skills = install_skill(root)
        _say(
            f"[1] ds-gate install --agent: the distill skill for the agent runner, {counted(len(skills), 'file')} "
            "(.codex/.opencode/.kimi/skills/ds-gate-distill/SKILL.md)"
        )
        idea = quest.worktree("idea-idea-dac323e6", "idea/001-idea-dac323e6")
        main_run = quest.run(idea, "main-001")
        quest.checkpoint(idea, "experiment: record main main-001")
        slice_ws = quest.worktree(
            "analysis-camp1-slice-a", "analysis/idea-dac323e6/camp1-slice-a", "idea/001-idea-dac323e6"
        )
        slice_run = quest.run(slice_ws, "camp1:slice-a", run_kind="analysis.slice")
        quest.checkpoint(slice_ws, "experiment: record analysis slice camp1:slice-a")
        quest.run(root, "main-000", status="failed")
        quest.checkpoint(root, "experiment: record main main-000")
        _say(f"[2] built quest 001 at {root} (experience_distill: on)")
        _say(f"    completed runs {main_run} (main-001, idea worktree) and {slice_run} (camp1:slice-a, analysis")
        _say("    worktree), a failed run in the root; each checkpointed through the hook: ordinary")
        _say("    checkpoints pass while runs are pending.")
        held.append(True)

        paper = quest.worktree("paper-main-001", "paper/main-001", "idea/001-idea-dac323e6")
        (paper / "paper").mkdir(exist_ok=True)
        (paper / "paper" / "paper_bundle_manifest.json").write_text('{"package_type": "paper_draft_checkpoint"}\n')
        _say("\n[3] the agent writes paper/paper_bundle_manifest.json and checkpoints: a finalization commit")
        try:
            quest.checkpoint(paper, "paper: bundle")
            _say("    !! the commit went through, but it should have been rejected")
            held.append(False)
        except CheckpointRejected as rejected:
            _say("    the hook rejects it:")
            _say(_indent(rejected.output))
            held.append(True)

        _say("\n[4] ds-gate closure says the same, before submit_paper_bundle / complete_quest:")
        before = evaluate(root, "closure")
        _say(_indent(render(before)))
        held.append(not before.ok and before.pending_run_ids == sorted([main_run, slice_run]))
        held.append(_prompt(home, base, [main_run, slice_run]))
        if pending and all(held):
            _say("\n" + "\n".join(keep_pending(base, root, paper, before.pending_run_ids)))
            return 0
        if pending:
            raise CheckpointRejected("the example quest was not built as described above")

        held.append(_agent_review(quest, idea, [main_run, slice_run], render))
        held.append(_prompt(home, base, []))

        quest.checkpoint(paper, "paper: bundle")
        _say("\n[6] the same paper-bundle checkpoint now passes the hook and is committed.")
        held.append(True)
        held.append(_complete(quest))

        lineage = evaluate_lineage(home)
        _say("\n[8] ds-gate lineage: every lesson in the home's global memory leads back to the run it came from:")
        _say(_indent(render(lineage)))
        held.append(lineage.ok and sum(card.is_experience for card in lineage.cards) == 2)
    except CheckpointRejected as rejected:
        _say("ds-gate demo: a checkpoint was rejected unexpectedly:\n" + _indent(rejected.output))
        held.append(False)
    finally:
        if directory is None:
            shutil.rmtree(base, ignore_errors=True)
    if all(held):
        _say(
            "\nds-gate demo: OK - the gate rejected finalization while runs were pending and passed once they were covered."
        )
        if directory:
            _say(f"the example quest is kept at {root}")
        return 0
    _say("\nds-gate demo: FAILED - some step did not behave as described above.")
    return 1
