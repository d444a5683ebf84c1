"""The CLI's commands, one module each: ``register(subparsers, common)`` and ``run(args) -> int``.

``COMMANDS`` names them in the order ``ds-gate --help`` lists them. Names, not modules:
the pytest plugin imports ``commands.flags`` and ``commands.options`` through this package,
and should not pay for every command's module to do so.
"""

from __future__ import annotations

COMMANDS = ("check", "doctor", "lineage", "recall", "recent", "validate", "commit_check", "pre_push", "install", "mcp",
            "demo")

# The module that registers each command name, so a run of one command (the commit hook on
# every commit) imports that module only; ``ds-gate --help`` and a misspelt name build all.
MODULE_OF = {
    "check": "check", "closure": "check", "doctor": "doctor", "candidates": "check", "lineage": "lineage", "recall": "recall",
    "recent": "recent", "validate": "validate", "validate-review": "validate", "commit-check": "commit_check", "pre-push": "pre_push",
    "install": "install", "mcp": "mcp", "demo": "demo",
}

# The output formats each command accepts: its ``--help`` lists these and nothing else, and a
# format outside them is refused (exit 2). ``FORMATS``: every built-in reporter, and a command
# that offers them all also takes one a plugin adds. The rest offer fewer: a listing (recall,
# recent) or a diagnosis (doctor, validate-review) has no findings to annotate or scan, install
# has nothing to scan, the demo is a story told in steps, and mcp speaks JSON-RPC on stdio.
FORMATS = ("text", "json", "github", "sarif")
LISTING_FORMATS = ("text", "json")
FORMATS_OF: dict[str, tuple[str, ...]] = {
    "check": FORMATS, "closure": FORMATS, "candidates": FORMATS, "lineage": FORMATS, "validate": FORMATS,
    "commit-check": FORMATS, "pre-push": FORMATS,
    "doctor": ("text", "json"), "validate-review": ("text", "json"), "recall": LISTING_FORMATS, "recent": LISTING_FORMATS,
    "install": ("text", "json", "github"), "mcp": ("text",), "demo": ("text",),
}


def takes_plugin_formats(command: str) -> bool:
    """A command that offers every built-in format takes a plugin's too (it renders a report
    like any other); one that offers fewer takes only those."""
    return FORMATS_OF.get(command) == FORMATS


def format_help(command: str) -> str:
    """``--format``'s help for ``command``: the formats it accepts, and no other."""
    offered = ", ".join(FORMATS_OF.get(command, FORMATS))
    return f"output format: {offered}, or one a plugin adds (default: text)" if takes_plugin_formats(command) else (
        f"output format: {offered} (default: text)")


# One example per command, shown under its ``--help`` (``ds-gate CMD --help``).
EXAMPLES = {
    "check": "ds-gate check ~/DeepScientist/quests/001 --format json",
    "closure": "ds-gate closure .            # before submit_paper_bundle / complete_quest",
    "candidates": "ds-gate candidates . -q",
    "lineage": "ds-gate lineage --home ~/DeepScientist ~/DeepScientist/quests/001",
    "recall": "ds-gate recall --tags stage:experiment,topic:routing --limit 10",
    "recent": "ds-gate recent . --kind decision --limit 5",
    "validate": "ds-gate validate artifacts/decisions/decision-1.json   # or a folder: ds-gate validate .",
    "validate-review": "ds-gate validate-review review.json --quest .ds/worktrees/idea-a   # or - for stdin",
    "commit-check": "ds-gate commit-check   # run by the hook `ds-gate install` writes",
    "pre-push": "ds-gate pre-push origin URL < pushed-refs   # run by the pre-push hook",
    "install": "ds-gate install --home ~/DeepScientist",
    "demo": "ds-gate demo --dir /tmp/ds-gate-demo",
    "doctor": "ds-gate doctor ~/DeepScientist/quests/001 --home ~/DeepScientist",
    "mcp": "ds-gate mcp --quest ~/DeepScientist/quests/001   # stdio; usually started by the agent's runner",
}
