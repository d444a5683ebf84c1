"""``rule ID``: explain one rule, as ``ruff rule`` does, from the rule registry (``rules.registry.explain``)."""

from __future__ import annotations

import sys
import textwrap
from typing import TYPE_CHECKING

from ds_gate.cli._shared import EXIT_OK, write, write_file
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.reporters.escape import json_text
from ds_gate.reporters.registry import JSON
from ds_gate.reporters.view import columns
from ds_gate.rules.registry import builtin_rules, explain, find_rule

if TYPE_CHECKING:
    import argparse

LABELS = (("checks", "What it checks"), ("why", "Why"), ("example", "An example that fires"), ("fix", "The fix"))


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("rule_id", metavar="ID", nargs="?", help="a rule id, as findings name it (coverage.pending-run)")
    p.add_argument("--all", action="store_true", help="every rule, one after another")


def text(entry: dict[str, str], width: int) -> str:
    lines = [f"{entry['id']}  ({entry['severity']}, {entry['level']})", ""]
    for key, label in LABELS:
        wrapped = textwrap.wrap(entry[key], width, initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False)
        lines += [f"{label}:", *wrapped, ""]
    lines.append(f"Every rule: {entry['docs']}, or ds-gate rule --all")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.all:
        entries = [explain(rule) for rule in builtin_rules()]
    else:
        if not args.rule_id:
            raise QuestError("rule: name a rule id (ds-gate rule coverage.pending-run), or --all for every rule")
        rule, close = find_rule(args.rule_id)
        if rule is None:
            guess = f"; did you mean {' or '.join(close)}?" if close else ""
            raise QuestError(f"rule: no rule {shown(args.rule_id)}{guess} (ds-gate rule --all lists them)")
        entries = [explain(rule)]
    if args.format == JSON:
        body = {"schema_version": 1, "rules": entries}
        out = json_text(body) + "\n"
    else:
        width = min(columns(sys.stdout), 100)
        out = "\n".join(text(entry, width) for entry in entries)
    if args.output:
        write_file(args.output, out)
    else:
        write(sys.stdout, out, "utf-8")
    return EXIT_OK
