"""Every rule ds-gate declares, collected from the objects: the rules table is derived,
never kept in step by hand. Rule ids are part of the JSON output's API: never renamed."""

from __future__ import annotations

import sys
from pathlib import Path

from ds_gate.config import waiver_file, waivers
from ds_gate.model.findings import Rule
from ds_gate.rules import cards, coverage, lineage, patch, records, reviews, vocabulary
from ds_gate.setup import install
from ds_gate.sources import problems

# The docs site's rules page, from the top of a source checkout (the generator writes it; a test
# compares). Relative, not beside the package: an installed ds-gate has no docs folder of its own.
PAGE = Path("docs") / "rules.md"

_INTRO = """# Rules

<!-- generated from the Rule objects by `python -m ds_gate.rules.registry`: edit the rules, not this page -->

Rule ids are stable: each is declared once, as a `Rule` object in the module that checks it, and
this table is generated from them (`python -m ds_gate.rules.registry` writes this page;
`--check` exits 1 when it is out of date, and a test keeps it in step). A rule's *level* says
whether DeepScientist itself would refuse what it finds (`contract`) or it is ds-gate's own,
stricter discipline (`discipline`); what an error of each level does to a commit is the table
in [the hooks page](hooks.md#what-blocks-what). A finding may carry a lower severity than its
rule's where the context says so (a pending run is an error only where the gate is enforced).
A plugin's rules (see [plugins](plugins.md)) are not listed here.

"""

# The modules that declare rules, in the order the table lists them.
MODULES = (coverage, records, reviews, vocabulary, problems, cards, lineage, patch, waiver_file, waivers, install)


def builtin_rules() -> list[Rule]:
    """ds-gate's own rules, grouped by module, whatever plugins are loaded."""
    found: dict[str, Rule] = {}
    for module in MODULES:
        for name, value in vars(module).items():
            if isinstance(value, Rule) and not name.startswith("_"):
                found.setdefault(value.id, value)
    return list(found.values())


def markdown_table() -> str:
    """The rules table: id, severity, level, what it means."""
    lines = ["| rule | severity | level | what it means |", "|---|---|---|---|"]
    for rule in builtin_rules():
        lines.append(f"| `{rule.id}` | {rule.severity} | {rule.level} | {rule.summary.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def rules_page() -> str:
    """``docs/rules.md`` as it must read: generated, so a new rule cannot go undocumented."""
    return _INTRO + "<!-- rules-table:start -->\n" + markdown_table() + "<!-- rules-table:end -->\n"


def main(argv: list[str], page: Path = PAGE) -> int:
    """Write ``page`` (``--check``: exit 1 if it differs; ``--stdout``: print it instead)."""
    text = rules_page()
    if "--stdout" in argv:
        sys.stdout.write(text)
        return 0
    if not page.parent.is_dir():
        print(f"{page.parent}/ not found: run this from the top of a ds-gate checkout", file=sys.stderr)
        return 2
    current = page.read_text(encoding="utf-8") if page.is_file() else None
    if "--check" in argv:
        if current != text:
            print(f"{page} is out of date: run python -m ds_gate.rules.registry", file=sys.stderr)
            return 1
        return 0
    if current != text:
        page.write_text(text, encoding="utf-8")
    print(f"{page}: {'unchanged' if current == text else 'written'}")
    return 0


if __name__ == "__main__":  # python -m ds_gate.rules.registry: writes docs/rules.md
    sys.exit(main(sys.argv[1:]))
