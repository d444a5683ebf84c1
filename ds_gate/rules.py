"""Every rule id ds-gate emits: part of the JSON output's API, so ids are never renamed.

``tests/test_rules.py`` checks that the code emits no id missing here and that the
README documents each one.
"""

from __future__ import annotations

RULES: dict[str, str] = {
    # the closure gate
    "coverage.pending-run": "a completed run no valid distill_review covers (fails `closure` and finalization commits)",
    # artifact records
    "review.schema": "a distill_review breaks schemas/distill_review.schema.json",
    "review.target-not-reviewed": "a cards_written or neighbor_decisions entry targets a run the review does not list",
    "review.unknown-run": "a reviewed id is not the artifact id of a run of the quest (with a did-you-mean)",
    "review.action-spelling": "an action that is distill_review in another case or spacing, so it reviews nothing",
    "review.runs-not-checked": "`validate` outside a quest: reviewed ids could not be checked against runs",
    "decision.schema": "a decision breaks schemas/decision.schema.json (verdict, action, reason)",
    "run.schema": "a run record breaks schemas/run.schema.json (run_kind)",
    "artifact.invalid-json": "a record file is not UTF-8 JSON (truncated, mis-encoded, too deeply nested)",
    "artifact.not-object": "a record file holds JSON that is not an object",
    "artifact.unreadable": "a record file or folder cannot be read (permissions)",
    "artifact.id-mismatch": "a record's artifact_id differs from its file name",
    # the artifact index
    "index.invalid-line": "an _index.jsonl line is not a JSON object; skipped (the record files are still read)",
    "index.partial-line": "the last _index.jsonl line is incomplete, a write in progress; skipped",
    "index.missing-record": "an indexed run or decision has no record file",
    # the quest and its workspaces
    "quest.no-quest-yaml": "no quest.yaml at the quest root; the toggles count as off",
    "quest.yaml-invalid": "quest.yaml cannot be read or parsed; the toggles count as off",
    "quest.toggle-unrecognised": "a toggle value DeepScientist reads as off that was probably meant as on",
    "quest.not-git": "git cannot read the quest; workspaces were found from folders only",
    "quest.research-state-invalid": ".ds/research_state.json cannot be read",
    "workspace.outside-quest": "a worktree outside the quest folder; never read",
    "workspace.missing": "a registered worktree whose folder is gone",
    "path.symlink-outside-quest": "a symbolic link out of the quest; never followed",
    # the git source (branch tips, for CI clones)
    "git.one-branch": "the clone shows one branch at most: runs recorded on other branches are not visible",
    "git.object-missing": "a branch tip, tree or record is not in this clone (partial or shallow); not read",
    # memory cards
    "card.frontmatter-invalid": "a card's YAML frontmatter cannot be read (syntax, not a mapping, never closed, not UTF-8)",
    "card.schema": "a card's frontmatter breaks schemas/knowledge_card.schema.json",
    "card.experience-schema": "an experience card (claim or lineage) breaks schemas/experience_card.schema.json",
    "card.unreadable": "a card file or memory folder cannot be read (permissions)",
    "card.quest-scope-lesson": "a lesson kept in quest scope and never promoted to global memory",
    "card.home-missing": "no DeepScientist home, so global cards named by reviews were not checked",
    "review.missing-card": "a cards_written entry names a card that does not exist in the scope it claims",
    "review.duplicate-card": "a new card repeats an existing card (body or title) and no neighbor decision names it",
    # lineage chains
    "lineage.not-origin": "an experience card's first lineage entry is not the quest the card came from",
    "lineage.origin-unknown": "a card with neither quest_id nor promoted_from: its origin cannot be checked",
    "lineage.unknown-quest": "a lineage entry names a quest the home does not hold",
    "lineage.unknown-run": "a lineage entry names a run that is not a run record of its quest (with a did-you-mean)",
    "lineage.repeated-entry": "a lineage entry repeats an earlier (quest, run) pair",
    # cross-quest patches
    "patch.claim-changed": "a quest that does not own a card changed its claim",
    "patch.confidence-raised": "a quest that does not own a card raised its confidence",
    "patch.lineage-rewritten": "a quest that does not own a card changed or removed earlier lineage entries",
    # waivers (.ds-gate.yaml)
    "waiver.invalid": ".ds-gate.yaml or one of its waivers breaks schemas/ds_gate_config.schema.json (a waiver needs a reason); it waives nothing",
    "waiver.expired": "a waiver past its expires date; it no longer waives anything",
    "waiver.unused": "a waiver that matches no finding",
    # command input
    "input.unreadable": "a file named on the command line cannot be read (exit 2)",
    "install.failed": "a hook could not be installed into a quest of the home",
}
