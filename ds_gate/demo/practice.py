"""``ds-gate demo --dir DIR --pending``: the example quest kept with its runs pending, to practise on.

The full demo ends with a closed quest, where nothing is left to try. This stops after the
rejection (the paper bundle is staged in its worktree, refused by the hook) and leaves a draft
review beside the quest, outside it: the newcomer runs the hooks, ``closure``, ``validate-review``
and the MCP tools on a quest that still needs its review, and covers it by hand or as the agent would.
"""

from __future__ import annotations

import json
from pathlib import Path

from ds_gate.agent.tools import draft_distill_review

# what the newcomer is told the demo's "DeepScientist" is (both modes print it)
STAND_IN = (
    "the demo's \"DeepScientist\" is a stand-in: ds-gate's own re-implementation of main's artifact.record and "
    "complete_quest (ds_gate/demo/service.py), not DeepScientist itself; the git repository, the hooks, the gate "
    "and the MCP tools are the real ones"
)
HAND_REVIEW_DOC = "docs/concepts.md#a-review-written-by-hand"


def keep_pending(base: Path, root: Path, paper: Path, pending: list[str]) -> list[str]:
    """Write the draft review beside the quest and return what to try, one line each. The draft
    goes to ``base`` (outside the quest: nothing of it is committed by a checkpoint)."""
    draft = draft_distill_review(root, pending)["payload"]
    review = base / "review.json"
    review.write_text(json.dumps(draft, indent=2) + "\n", encoding="utf-8")
    idea = root / ".ds" / "worktrees" / "idea-idea-dac323e6"
    return [
        f"ds-gate demo: kept quest 001 with {len(pending)} completed runs pending distill review, at",
        f"  {root}",
        "practise on it (any path inside the quest works; the hooks are installed):",
        f"  cd {root}",
        "  ds-gate closure .                       # REJECTED: the pending runs and the call that covers them",
        "  ds-gate candidates .                    # the completed runs no review covers",
        f"  git -C {paper.relative_to(root)} commit -m 'paper: bundle'",
        "                                          # the hook refuses the staged paper bundle (a finalization)",
        f"  ds-gate validate-review {review} --quest {idea.relative_to(root)}",
        "                                          # the agent's draft: fill its <FILL: ...> fields, validate again",
        "  ds-gate mcp --quest .                   # the agent's read-only tools over stdio (pip install '.[mcp]')",
        "  ds-gate doctor .                        # is the quest guarded?",
        "cover the runs by hand: write the review file and its index line in a worktree, then commit there",
        f"  ({HAND_REVIEW_DOC}); then closure passes and the paper bundle commits.",
    ]
