"""The CLI's commands, one module each: ``register(subparsers, common)`` and ``run(args) -> int``.

``COMMANDS`` names them in the order ``ds-gate --help`` lists them. Names, not modules:
the pytest plugin imports ``commands.flags`` and ``commands.options`` through this package,
and should not pay for every command's module to do so.
"""

from __future__ import annotations

COMMANDS = ("check", "lineage", "recall", "recent", "validate", "commit_check", "pre_push", "install", "demo")
