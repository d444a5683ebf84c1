"""The CLI's commands, in one table, in ``ds-gate --help``'s order. A command's module has
``arguments(parser, name)`` and ``run(args) -> int``; ``cli.main`` imports only the one at hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from ds_gate.reporters.registry import FORMATS, GITHUB, JSON, MARKDOWN, TEXT

# A listing (recall, recent) or a diagnosis (doctor, validate-review) has no findings to annotate
# or scan, install has nothing to scan, the demo is a story told in steps, and mcp speaks JSON-RPC.
LISTING = (TEXT, JSON)
HEALTH = (TEXT, JSON, MARKDOWN)  # ds-gate report: a home's table, as closure --all-quests prints one


@dataclass(frozen=True, slots=True)
class Command:
    """One command: ``formats`` are those its ``--help`` lists and it accepts (others: exit 2);
    one that offers every format (``FORMATS``) also takes a format a plugin adds."""

    name: str
    module: str  # ds_gate.cli.<module>: arguments(parser, name) and run(args)
    help: str
    example: str  # shown under its --help
    formats: tuple[str, ...] = FORMATS
    description: str | None = None  # its --help's opening, where it says more than ``help``

    @property
    def takes_plugin_formats(self) -> bool:
        return self.formats == FORMATS

    def format_help(self) -> str:
        plugins = ", or one a plugin adds" if self.takes_plugin_formats else ""
        return f"output format: {', '.join(self.formats)}{plugins} (default: {TEXT})"


COMMANDS = (
    Command(
        "check",
        "check",
        "validate every decision and report distill coverage (fails on invalid artifacts only)",
        "ds-gate check ~/DeepScientist/quests/001 --format json",
    ),
    Command(
        "closure",
        "check",
        "the finalization gate: fails while any completed run lacks a distill_review",
        "ds-gate closure .            # before submit_paper_bundle / complete_quest",
    ),
    Command("candidates", "check", "list the completed runs no distill_review covers yet", "ds-gate candidates . -q"),
    Command(
        "doctor",
        "doctor",
        "check that a quest is guarded (hooks, pre-commit config per branch, worktrees, clone, home, toggles)",
        "ds-gate doctor ~/DeepScientist/quests/001 --home ~/DeepScientist",
        LISTING,
    ),
    Command(
        "lineage",
        "lineage",
        "check the lineage chains of the experience cards of a home and of the given quests",
        "ds-gate lineage --home ~/DeepScientist ~/DeepScientist/quests/001",
        description="Check every experience card of the home's global memory and of the given quests: schema, "
        "lineage back to the origin quest, every entry a real run. With --since, also check every card changed "
        "since a git revision of the global memory against the cross-quest patch rules.",
    ),
    Command(
        "recall",
        "recall",
        "recall lessons with their content: memory cards (and ScienceClaw JSONL records) ranked "
        "by tag overlap, then recency (the RFC's list_knowledge_summaries), or with --query by full-text relevance "
        "(docs/recall-ranking.md)",
        "ds-gate recall --tags stage:experiment,topic:routing --limit 10",
        LISTING,
    ),
    Command(
        "recent",
        "recent",
        "the quest's artifacts from every workspace, newest first",
        "ds-gate recent . --kind decision --limit 5",
        LISTING,
    ),
    Command(
        "validate",
        "validate",
        "validate the given run/decision artifact files and memory cards",
        "ds-gate validate artifacts/decisions/decision-1.json   # or a folder: ds-gate validate .",
    ),
    Command(
        "validate-review",
        "validate_review",
        "what closure would say about a distill review payload before it "
        "is recorded (the MCP tool validate_distill_review)",
        "ds-gate validate-review review.json --quest .ds/worktrees/idea-a   # or - for stdin",
        LISTING,
    ),
    Command(
        "report",
        "report",
        "a home's distillation health, per quest: runs reviewed and pending, cards written global "
        "against quest scope, lessons not promoted, reviews that wrote no card",
        "ds-gate report --home ~/DeepScientist --format markdown   # for $GITHUB_STEP_SUMMARY",
        HEALTH,
        description="A report, not a gate: it exits 0 whenever it is made (2 when the home's quests cannot be "
        "listed). Each quest is judged as `ds-gate closure QUEST --home HOME` judges it, one at a time; one "
        "that cannot be read is a row saying why. --format json lists each memory.promote_to_global call and "
        "each empty review's reason_if_empty; markdown is for $GITHUB_STEP_SUMMARY.",
    ),
    Command(
        "rule",
        "rule",
        "explain one rule: what it checks, its level and why, an example that fires, the fix",
        "ds-gate rule coverage.pending-run   # or --all for every rule",
        LISTING,
    ),
    Command(
        "commit-check",
        "commit_check",
        "the commit hook: validate staged artifacts; gate finalization commits (run by hooks)",
        "ds-gate commit-check   # run by the hook `ds-gate install` writes",
    ),
    Command(
        "pre-push",
        "pre_push",
        "the pre-push hook: gate a push that sends a finalization commit (run by hooks)",
        "ds-gate pre-push origin URL < pushed-refs   # run by the pre-push hook",
        description="Reads the pushed refs from git's pre-push input; under pre-commit, which names one ref at most "
        "(PRE_COMMIT_TO_REF), judges every local branch, tag and HEAD the remote (PRE_COMMIT_REMOTE_NAME) lacks. "
        "When the push finalizes the quest, runs the closure gate over every branch tip plus the pushed commits.",
    ),
    Command(
        "install",
        "install",
        "install the git hooks into a quest (or every quest of a home), or with --agent the distill skill",
        "ds-gate install --home ~/DeepScientist",
        (TEXT, JSON, GITHUB),
    ),
    Command(
        "mcp",
        "mcp",
        "serve the agent's read-only tools over MCP (stdio): candidates, recall, recent, closure, review draft",
        "ds-gate mcp --quest ~/DeepScientist/quests/001   # stdio; usually started by the agent's runner",
        (TEXT,),
    ),
    Command(
        "demo",
        "demo",
        "build an example quest and show the gate reject, then pass",
        "ds-gate demo --dir /tmp/ds-gate-demo",
        (TEXT,),
    ),
)
BY_NAME = {command.name: command for command in COMMANDS}
