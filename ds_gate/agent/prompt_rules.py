"""The RFC's prompt rules for one turn of a quest, as ds-gate's integration adds them to main's prompt.

PR #60 put ``recall_priors_rule`` and ``distill_required_rule`` into ``PromptBuilder._priority_memory_block``
and the global-scope nudge into the stage skills' prose; ``install --deepscientist --prompts`` adds
the same rules from outside (``integration/prompts.py`` asks for them with ``{"op": "prompt"}``).
Each line is built from what the gate and recall already say (``check_closure``, the stage-entry
tags), so the prompt never says anything the closure tools would contradict. One ``- name (ds-gate):
...`` line each, quest text collapsed to one line; an empty list when both toggles are off.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ds_gate.agent.tools import check_closure
from ds_gate.model.review_call import record_call
from ds_gate.recall.stage import stage_entry_tags

SHOWN_IDS = 20  # pending run ids named in the rule; the rest are counted
SHOWN_FINDINGS = 3
# the anchors at which a run's lesson is written (PR #60's finalize/idea/decision nudges, and the stages that run)
LESSON_ANCHORS = ("idea", "experiment", "analysis-campaign", "optimize", "decision", "write", "finalize")


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())[:400]  # quest text: one line, bounded


_PLAIN = re.compile(r"[\w.:-]{1,128}", re.ASCII)


def _token(run_id: str) -> str:
    """A run id as it may stand in a prompt: the quest writes it, so anything but a plain id (a newline
    that would start a line of its own, quotes, a long text) is shown as a JSON string, one line."""
    return run_id if _PLAIN.fullmatch(run_id) else json.dumps(run_id[:200])


def distill_lines(verdict: dict[str, Any]) -> list[str]:
    """``distill_required_rule`` while runs are pending; ``distill_closure_rule`` when none is but closure fails."""
    if not verdict["enforced"] or verdict["ok"]:
        return []
    pending: list[str] = verdict["pending_run_ids"]
    count = int(verdict["pending_count"])
    if count:
        shown = pending[:SHOWN_IDS]
        rest = count - len(shown)
        more = f", and {rest} more (artifact.list_distill_candidates() lists them)" if rest else ""
        plain = not rest and all(_PLAIN.fullmatch(run_id) for run_id in shown)  # else no call to copy: its ids are odd
        call = " ".join(line.strip() for line in record_call(shown, verdict["encoding"])) if plain else ""
        return [
            f"- distill_required_rule (ds-gate): experience_distill is on and {count} completed run(s) have no "
            f"covering distill review: {', '.join(map(_token, shown))}{more}. Until a review covering them is recorded, "
            "artifact.complete_quest, artifact.submit_paper_bundle and the completion-approval artifact.interact "
            "refuse. Follow the `distill` companion skill, check the review with "
            "artifact.validate_distill_review(payload=...), then record it"
            + (f": {call}" if call else " with artifact.record(payload=...) listing every pending run id")
        ]
    errors = [f for f in verdict["findings"] if f.get("severity") == "error"][:SHOWN_FINDINGS]
    shown_findings = "; ".join(_one_line(f"{f.get('message')} ({f.get('rule')})") for f in errors)
    return [
        "- distill_closure_rule (ds-gate): no run is pending but the closure gate fails, so artifact.complete_quest "
        f"and artifact.submit_paper_bundle refuse: {shown_findings or 'see artifact.complete_quest refusal'}"
    ]


def prompt_lines(
    root: Path | str, home: Path | str | None, active_anchor: str | None, global_default: bool = False
) -> list[str]:
    """ds-gate's lines for a stage turn of the quest at ``root`` whose active anchor is ``active_anchor``."""
    verdict = check_closure(root, home=home)
    lines = distill_lines(verdict)
    stage = stage_entry_tags(root, active_anchor or None)
    if stage.recall_priors:
        tags = ", ".join(repr(tag) for tag in stage.tags)
        lines.append(
            f"- recall_priors_rule (ds-gate): recall_priors is on: at stage entry call "
            f"memory.list_knowledge_summaries(domain_tags=[{tags}]) ({_one_line(stage.describe())}), adding tool: "
            "and type: tags for what you are about to run; read (memory.read) the cards that look relevant before "
            "planning; if none match, say so and proceed."
        )
    if (verdict["enforced"] or stage.recall_priors) and (active_anchor or "") in LESSON_ANCHORS:
        default = " (scope='global' is already memory.write's default here)" if global_default else ""
        lines.append(
            "- global_scope_rule (ds-gate): write a reusable lesson (what worked, what was falsified, a framework "
            f"pitfall) with memory.write(kind='knowledge', scope='global', ...){default}, with metadata claim and "
            "lineage; keep scope='quest' for quest-internal tracking such as checkpoint memory."
        )
    return lines
