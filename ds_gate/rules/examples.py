"""For each built-in rule, an example that fires and its fix: what ``ds-gate rule ID`` shows beside
the rule's own summary, level and severity (``rules.registry.explain``). A rule is named by the
constant it is declared as (``COVERAGE_PENDING_RUN``), since its id is spelt only in its
declaration; a test fails on a rule without its entry here, so a new rule cannot go unexplained.
"""

from __future__ import annotations

# the rule's constant -> (an example that fires, the fix)
EXAMPLES: dict[str, tuple[str, str]] = {
    "COVERAGE_PENDING_RUN": (
        'artifacts/runs/run-51c9ad07.json holds {"run_kind": "main_experiment", "status": "completed"} '
        "and no valid distill_review lists run-51c9ad07 in its reviewed_run_ids",
        "run the distill skill and record a review of the run (the call `ds-gate closure` prints), or write the "
        "review file and its index line by hand (docs/concepts.md#a-review-written-by-hand)",
    ),
    "REVIEW_UNKNOWN_RUN": (
        '"reviewed_run_ids": ["main-001"] (the experiment run_id, not the run artifact id run-51c9ad07)',
        "list run artifact ids (run-xxxxxxxx), as `ds-gate candidates` prints them, and record the review again",
    ),
    "REVIEW_UNINDEXED": (
        'artifacts/decisions/decision-674d8f0a.json is an RFC review ({"action": "distill_review"}) and '
        "artifacts/_index.jsonl has no line naming decision-674d8f0a",
        "record the review through artifact.record, or append the index line it would have written",
    ),
    "REVIEW_CARD_ID_MISSING": (
        '"cards_written": [{"scope": "global", "action": "new", "target_run_id": "run-51c9ad07"}]',
        "give each cards_written entry the card_id of the card it wrote",
    ),
    "REVIEW_PLACEHOLDER": (
        '"reason_if_empty": "<FILL: why no lesson of these runs is worth a card; ...>" (the draft, recorded as is)',
        "write the field in your own words (or delete it where it does not apply) and record the review again",
    ),
    "REVIEW_TARGET_NOT_REVIEWED": (
        '"reviewed_run_ids": ["run-51c9ad07"], "cards_written": [{..., "target_run_id": "run-0d9e1f2a"}]',
        "target a run the review lists, or add that run to reviewed_run_ids",
    ),
    "DECISION_UNKNOWN_ACTION": (
        '{"kind": "decision", "action": "launch_experimnt", "verdict": "good", "reason": "..."}',
        "use one of DeepScientist's actions (the did-you-mean names the closest); a fork's own: .ds-gate.yaml",
    ),
    "REVIEW_SCHEMA": (
        '{"action": "distill_review", "reviewed_run_ids": [], ...} (PR #60 needs a non-empty list)',
        "make the review match schemas/distill_review.schema.json as the message's pointer says",
    ),
    "DECISION_SCHEMA": (
        '{"kind": "decision", "action": "continue", "verdict": true, "reason": ["a", "b"]}',
        "write verdict, action and reason as non-blank text",
    ),
    "RUN_SCHEMA": ('{"kind": "run", "run_kind": " ", "status": "completed"}', "write run_kind as non-blank text"),
    "ARTIFACT_REFUSED_BY_MAIN": (
        '{"kind": "decision", "action": "continue", "verdict": "good", "reason": ""} '
        "(main: Decision artifact requires `reason`.)",
        "give the fields main asks for, as its own message (quoted) says",
    ),
    "ARTIFACT_ID_MISMATCH": (
        'artifacts/runs/run-51c9ad07.json holds "artifact_id": "run-0d9e1f2a"',
        "name the file after its artifact_id (main writes <artifact_id>.json)",
    ),
    "REVIEW_RUNS_NOT_CHECKED": (
        "ds-gate validate review.json, on a file outside any quest",
        "validate inside the quest (--quest, or a path in it) so the reviewed ids are checked against its runs",
    ),
    "REVIEW_REASON_NOT_TEXT": ('"cards_written": [], "reason_if_empty": 42', "write reason_if_empty as text"),
    "ARTIFACT_UNKNOWN_KIND": ('{"kind": "experment", ...} in artifacts/runs/', "use a kind DeepScientist records"),
    "ARTIFACT_INVALID_JSON": (
        'artifacts/runs/run-51c9ad07.json ends mid-object: {"kind": "run", "run_kind": "main_exp',
        "rewrite the record (record it again through artifact.record), or restore it from git",
    ),
    "ARTIFACT_TOO_DEEP": (
        'artifacts/runs/run-51c9ad07.json holds "run_kind": [[[[...]]]] nested 990 deep',
        "record the artifact again with flat values",
    ),
    "ARTIFACT_NOT_OBJECT": ('artifacts/runs/run-51c9ad07.json holds ["run"]', "the record must be one JSON object"),
    "ARTIFACT_UNREADABLE": (
        "artifacts/runs/ is not readable by the user running the gate (chmod 000)",
        "give the user read access to the file or folder",
    ),
    "INDEX_INVALID_LINE": ('a line of artifacts/_index.jsonl reads {"artifact_id": "run-1",', "remove the line"),
    "INDEX_PARTIAL_LINE": (
        "the last line of artifacts/_index.jsonl has no newline and is not JSON (a write in progress)",
        "let the write finish, or remove the fragment",
    ),
    "INDEX_MISSING_RECORD": (
        'an index line names "path": ".../artifacts/runs/run-51c9ad07.json" and no such file exists',
        "restore the record (git checkout), or remove its index line",
    ),
    "INDEX_RECORD_OUTSIDE_QUEST": (
        'an index line names "path": "/tmp/elsewhere/run-51c9ad07.json", and that file exists',
        "move the record into the quest (its workspace's artifacts/runs/) and fix the line",
    ),
    "QUEST_NO_QUEST_YAML": ("a quest folder without quest.yaml", "run the gate on the quest root, which has one"),
    "QUEST_YAML_INVALID": ("quest.yaml reads `status: [active`", "fix the YAML syntax"),
    "QUEST_TOGGLE_UNRECOGNISED": (
        "startup_contract: {experience_distill: 'yes'}",
        "write experience_distill: {mode: 'on'} (or true)",
    ),
    "QUEST_NOT_GIT": (
        "the quest belongs to another user, so git refuses it (safe.directory)",
        "run the gate as the quest's owner, or add it to git's safe.directory in your own git config",
    ),
    "QUEST_RESEARCH_STATE_INVALID": (".ds/research_state.json holds `{`", "let DeepScientist rewrite it"),
    "WORKSPACE_OUTSIDE_QUEST": (
        "git worktree list shows a worktree at /tmp/idea-a, outside the quest",
        "move it under .ds/worktrees/ (git worktree move)",
    ),
    "WORKSPACE_MISSING": (
        "a worktree registered in .git/worktrees whose folder was deleted, or replaced by a link to another "
        "worktree (its HEAD is read from git objects instead)",
        "git worktree prune (after `rm` of the link; first `git branch <name> <commit>` for a detached HEAD)",
    ),
    "WORKSPACE_HEAD_UNREADABLE": (
        "the folder of .ds/worktrees/idea-a was deleted and .git/worktrees/idea-a/HEAD names a commit the quest lacks",
        "git worktree prune (or restore the worktree's folder)",
    ),
    "PATH_SYMLINK_OUTSIDE_QUEST": (
        ".ds/worktrees/idea-a/artifacts is a symbolic link to /data/artifacts",
        "replace the link with the folder itself",
    ),
    "GIT_ONE_BRANCH": (
        "a CI clone made with the default fetch-depth: 1",
        "fetch every branch: actions/checkout with fetch-depth: 0, or git fetch --unshallow origin '+refs/heads/*:refs/heads/*'",
    ),
    "GIT_OBJECT_MISSING": (
        "a partial clone (--filter=blob:none) whose record blobs were never fetched",
        "fetch the objects (git fetch --refetch, or a full clone)",
    ),
    "GIT_HISTORY_TOO_LONG": (
        "a memory folder whose committed history holds more card versions than the gate reads",
        "delete the branches that pad it, or restore memory/ from a clean clone",
    ),
    "GIT_OBJECT_CORRUPT": ("a tree object of a branch tip is damaged", "git fsck, then re-fetch or re-clone"),
    "GIT_ALTERNATES_OUTSIDE_QUEST": (
        ".git/objects/info/alternates names /srv/shared/objects",
        "git repack -a -d, then remove objects/info/alternates",
    ),
    "GIT_SYMLINK_IN_TREE": (
        "a branch commits artifacts/runs as a symbolic link (mode 120000)",
        "commit the real folder in its place",
    ),
    "CARD_FRONTMATTER_INVALID": ("a card that starts ---\\ntitle: [a\\n---", "fix the YAML between the --- lines"),
    "CARD_TAGS_OVER_LIMIT": ("a card with 5,000 tags", "keep a card's tags few and short"),
    "CARD_UNREADABLE": ("memory/knowledge/ is not readable by the user running the gate", "give read access"),
    "INPUT_UNREADABLE": ("ds-gate validate missing.json", "name a file that exists and is readable"),
    "INPUT_TOO_LARGE": (
        "a 200 MB run record (with DS_GATE_MAX_FILE_MB at its default, 64)",
        "slim the record, or raise DS_GATE_MAX_FILE_MB in the environment you trust",
    ),
    "CARD_SCHEMA": ("a card whose frontmatter has tags: 42", "match schemas/knowledge_card.schema.json"),
    "CARD_EXPERIENCE_SCHEMA": (
        "an experience card with claim: '' or lineage: [{quest: '001'}] (no run)",
        "give a non-empty claim and lineage entries with quest and run",
    ),
    "CARD_QUEST_SCOPE_LESSON": (
        "memory/knowledge/router-temperature.md (scope: quest) has a claim and no global copy",
        "promote it from its quest: memory.promote_to_global(card_id='<its id>') (the finding names the call)",
    ),
    "CARD_HOME_MISSING": (
        "a review names a global card and the gate found no DeepScientist home",
        "pass --home DIR, or set DEEPSCIENTIST_HOME",
    ),
    "REVIEW_MISSING_CARD": (
        '"cards_written": [{"card_id": "knowledge-0000aaaa", "scope": "global", ...}] and no such card exists',
        "write the card (memory.write), or name the card that was written",
    ),
    "REVIEW_DUPLICATE_CARD": (
        'a "new" card whose body repeats knowledge-04942297, and no neighbor_decisions entry names it',
        "patch the existing card instead, or name it in neighbor_decisions as neighbor_but_separate",
    ),
    "REVIEW_NEIGHBOR_MISSING_CARD": (
        '"neighbor_decisions": [{"candidate_card_id": "sharedmemory::002::knowledge/router.md", ...}] in a home '
        "whose memory.read_visibility_mode is independent (or a card id no memory of the quest holds)",
        "name a card the quest can see, by its id or main's document_id, with the scope where it lies",
    ),
    "REVIEW_NEIGHBOR_PATCH_UNWRITTEN": (
        '{"candidate_card_id": "knowledge-04942297", "decision": "patch", ...} and no cards_written entry '
        '{"card_id": "knowledge-04942297", "action": "patch", ...}',
        "patch the card and list it in cards_written with action patch, or decide new or neighbor_but_separate",
    ),
    "REVIEW_NEAR_DUPLICATE_CARD": (
        'a "new" card tagged [Topic:Router, stage:experiment] claiming "lower router temperature stabilises '
        'training of the sparse mixture model on long runs", beside knowledge-04942297 tagged [topic:router, '
        'Stage: Experiment] claiming the same with "smaller" for "lower"; no neighbor_decisions entry names it',
        "name the existing card in neighbor_decisions (patch, new or neighbor_but_separate, with the reason), or "
        "patch it instead of writing a new card",
    ),
    "LINEAGE_NOT_ORIGIN": (
        "a card of quest 002 whose lineage starts with {quest: '001', run: ...}",
        "put the card's own quest first in its lineage",
    ),
    "LINEAGE_ORIGIN_UNKNOWN": ("a global card with no quest_id and no promoted_from", "give the card its quest_id"),
    "LINEAGE_UNKNOWN_QUEST": ("lineage: [{quest: '999', run: run-51c9ad07}]", "name a quest the home holds"),
    "LINEAGE_UNKNOWN_RUN": (
        "lineage: [{quest: '001', run: main-001}] (an experiment run_id)",
        "name the run's artifact id (run-xxxxxxxx)",
    ),
    "LINEAGE_REPEATED_ENTRY": ("the same {quest, run} pair twice in one lineage", "remove the repeated entry"),
    "PATCH_CLAIM_CHANGED": (
        "quest 002 rewrites the claim of a card quest 001 owns",
        "keep the claim; write a new card for the new claim",
    ),
    "PATCH_CONFIDENCE_RAISED": ("quest 002 raises confidence 0.6 -> 0.9 on quest 001's card", "keep or lower it"),
    "PATCH_LINEAGE_REWRITTEN": (
        "quest 002 removes the first lineage entry of quest 001's card",
        "only append lineage entries",
    ),
    "WAIVER_INVALID": (
        "waivers: [{rule: coverage.pending-run}] (no id or path, no reason)",
        "give each waiver a rule, an id or path, and a reason",
    ),
    "WAIVER_EXPIRED": ("a waiver with expires: 2020-01-01", "renew it with a new date, or fix what it waived"),
    "WAIVER_UNUSED": ("a waiver for run-0000dead, which no finding names", "remove the waiver"),
    "WAIVER_PROPOSED": (
        "the quest's own .ds-gate.yaml waives a pending run",
        "accept the quest's waivers from a trusted place (--accept-quest-waivers), or fix the finding",
    ),
    "WAIVER_UNWAIVABLE": ("a waiver of git.one-branch", "fix what the gate cannot see (the rule's own fix)"),
    "COVERAGE_BASELINED": (
        "baselines: [{quest: ~/DeepScientist/quests/001, commit: <the commit before the gate was turned on>, reason: "
        "finished before we adopted the gate}] in the trusted configuration; 5 of the 6 completed runs are in it",
        "nothing to fix: the 5 runs are reported as baselined, not pending; review the runs recorded since",
    ),
    "BASELINE_PROPOSED": (
        "the quest's own .ds-gate.yaml holds baselines: [{before: 2026-03-01, reason: ...}]",
        "if you own the quest, paste the trusted entry the hint prints into your configuration with your own reason "
        "(or accept the quest's waivers and baselines with --accept-quest-waivers); else remove it. A proposal "
        "naming a commit at which experience_distill was already on offers no entry: review its runs",
    ),
    "BASELINE_CHANGED": (
        "run-51c9ad07 was `running` in the baseline's commit and completed after it, or a new experiment was "
        "recorded over its id since (the record's blob differs from the commit's)",
        "review the run as any other (`ds-gate candidates` lists it)",
    ),
    "BASELINE_AFTER_ADOPTION": (
        "baselines[0].commit names a commit whose quest.yaml (or an earlier one) has experience_distill: on",
        "name the last commit before the toggle went on (git log --format='%H %s' -- quest.yaml), or remove the "
        "entry and review the runs",
    ),
    "BASELINE_COMMIT_UNREADABLE": (
        "baselines[0].commit names 3f2a… which this CI clone did not fetch (or a mistyped id)",
        "fetch the commit (fetch-depth: 0), or correct the id (git log --format=%H lists the quest's commits)",
    ),
    "INSTALL_FAILED": ("a quest of the home whose .git/hooks is read-only", "fix the permission, install again"),
}

# why a rule exists, where its level alone does not say it (``rules.registry.explain`` adds the level's effect)
WHY: dict[str, str] = {
    "COVERAGE_PENDING_RUN": "the RFC's closure gate: a quest must not be finalized while a completed run's lessons "
    "were never distilled. Pending runs never block an ordinary checkpoint, only a finalization",
    "REVIEW_UNKNOWN_RUN": "PR #60 matches runs by artifact id; a review naming anything else covers nothing",
    "REVIEW_UNINDEXED": "PR #60's gate reaches decision reviews only through index lines, so it never sees this one",
    "REVIEW_PLACEHOLDER": "a draft recorded as it is says nothing of what was learned, so it covers no run",
    "REVIEW_MISSING_CARD": "a review must point at the lessons it wrote; a card that does not exist is no lesson",
    "GIT_ONE_BRANCH": "runs recorded on branches the clone lacks are invisible: passing would be a guess. The "
    "original quest (no remote, no fetched branch, a history begun by a local commit) has no other copy whose "
    "branches it could lack, so one branch there is the whole quest and the rule stays quiet",
    "ARTIFACT_REFUSED_BY_MAIN": "DeepScientist's own artifact.record refuses this record, in its own words",
    "REVIEW_NEIGHBOR_MISSING_CARD": "a neighbour decision records that a lesson was weighed against a card; "
    "one naming no card the quest can see weighed nothing (and a quest must not lean on cards its home keeps private)",
    "REVIEW_NEAR_DUPLICATE_CARD": "the RFC asks the distill skill to weigh each new lesson against its neighbours; "
    "a card with the same tags (normalised as recall does) and a claim equal once normalised, or sharing at least "
    "0.8 of its words (Jaccard index of the \\w+ word sets), is a neighbour the review should have named",
    "LINEAGE_NOT_ORIGIN": "a lesson must lead back to the quest and run it was learned from",
    "COVERAGE_BASELINED": "turning experience_distill on in a quest with finished runs makes every one pending; a "
    "baseline the user trusts names them once, instead of a waiver per run, and every verdict still shows it",
    "BASELINE_PROPOSED": "the quest's agent writes .ds-gate.yaml, so a baseline there could hide any run from the gate: "
    "only the quest's owner adopts it, in words of their own",
    "BASELINE_CHANGED": "an artifact id is not the run: a run completed, or recorded again, after the baseline's "
    "commit was not finished before the gate was adopted",
    "BASELINE_AFTER_ADOPTION": "a baseline is for runs finished before the gate was adopted; the runs of a commit "
    "under the gate were recorded while it asked for their review",
}
