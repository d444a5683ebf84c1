"""Every rule ds-gate declares, collected from the objects: the rules table is derived,
never kept in step by hand. Rule ids are part of the JSON output's API: never renamed."""

from __future__ import annotations

import importlib

from ds_gate.model.findings import Rule, declared_rules

# The modules that declare rules, in the order the table lists them.
MODULES = (
    "ds_gate.rules.coverage",
    "ds_gate.rules.records",
    "ds_gate.rules.vocabulary",
    "ds_gate.sources.problems",
    "ds_gate.rules.cards",
    "ds_gate.rules.lineage",
    "ds_gate.rules.patch",
    "ds_gate.config.waivers",
    "ds_gate.hooks.install",
)


def all_rules() -> list[Rule]:
    """ds-gate's own rules (and any a loaded plugin declared), grouped by module."""
    order = {rule.id: i for i, rule in enumerate(builtin_rules())}
    rules = declared_rules()
    return sorted(rules.values(), key=lambda r: (order.get(r.id, len(order)), r.id))


def builtin_rules() -> list[Rule]:
    """ds-gate's own rules only, whatever plugins are loaded."""
    found: dict[str, Rule] = {}
    for module in MODULES:
        for name, value in vars(importlib.import_module(module)).items():
            if isinstance(value, Rule) and not name.startswith("_"):
                found.setdefault(value.id, value)
    return list(found.values())


def markdown_table() -> str:
    """The README's rules table: id, severity, level, what it means."""
    lines = ["| rule | severity | level | what it means |", "|---|---|---|---|"]
    for rule in builtin_rules():
        lines.append(f"| `{rule.id}` | {rule.severity} | {rule.level} | {rule.summary.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # python -m ds_gate.rules.registry: the table for the README
    print(markdown_table(), end="")
