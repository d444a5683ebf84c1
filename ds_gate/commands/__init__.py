"""The CLI's commands, one module each: ``register(subparsers, common)`` and ``run(args) -> int``.

``COMMANDS`` names them in the order ``ds-gate --help`` lists them. Names, not modules:
the pytest plugin imports ``commands.flags`` and ``commands.options`` through this package,
and should not pay for every command's module to do so.
"""

from __future__ import annotations

COMMANDS = ("check", "lineage", "recall", "recent", "validate", "commit_check", "pre_push", "install", "mcp", "demo")

# The module that registers each command name, so a run of one command (the commit hook on
# every commit) imports that module only; ``ds-gate --help`` and a misspelt name build all.
MODULE_OF = {
    "check": "check", "closure": "check", "candidates": "check", "lineage": "lineage", "recall": "recall",
    "recent": "recent", "validate": "validate", "commit-check": "commit_check", "pre-push": "pre_push",
    "install": "install", "mcp": "mcp", "demo": "demo",
}
