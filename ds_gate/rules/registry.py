"""Every rule ds-gate declares, collected from the objects: the rules table is derived,
never kept in step by hand. Rule ids are part of the JSON output's API: never renamed."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from ds_gate.config import baselines, waiver_file, waivers
from ds_gate.model.findings import CONTRACT, Rule
from ds_gate.rules import cards, coverage, lineage, neighbours, patch, records, reviews, vocabulary
from ds_gate.rules.examples import EXAMPLES, WHY
from ds_gate.rules.policy import CHECKPOINT, FINALIZATION, POLICY, WARN
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
rule's where the context says so (a pending run is an error only where the gate is enforced;
the neighbour rules, {closure}, are errors where the gate closes and warnings in `check`; the
near-duplicate measure is in [concepts](concepts.md#memory-cards-and-lineage)).
A plugin's rules (see [plugins](plugins.md)) are not listed here. The words ([the RFC](glossary.md#the-rfc),
[PR #60](glossary.md#pr-60), the two review encodings) are in the [glossary](glossary.md).

[`ds-gate rule ID`](cli.md#rule) explains one rule, as `ruff rule` does: what it checks, its
level and why, an example that fires, and the fix (`ds-gate rule coverage.pending-run`).

""".replace("{closure}", ", ".join(f"`{rule.id}`" for rule in neighbours.AT_CLOSURE))

# The modules that declare rules, in the order the table lists them.
MODULES = (
    coverage,
    records,
    reviews,
    vocabulary,
    problems,
    cards,
    neighbours,
    lineage,
    patch,
    waiver_file,
    waivers,
    baselines,
    install,
)


def builtin_rules() -> list[Rule]:
    """ds-gate's own rules, grouped by module, whatever plugins are loaded."""
    return list(_declared().values())


def declared_names() -> dict[str, str]:
    """Each built-in rule's id -> the constant it is declared as (``rules.examples``' keys)."""
    return {rule.id: name for name, rule in _declared().items()}


def _declared() -> dict[str, Rule]:
    """The constant each rule is declared as -> the rule, in the table's order (a rule a module
    re-exports is counted where it is first found)."""
    found: dict[str, Rule] = {}
    seen: set[str] = set()
    for module in MODULES:
        for name, value in vars(module).items():
            if isinstance(value, Rule) and not name.startswith("_") and value.id not in seen:
                found[name] = value
                seen.add(value.id)
    return found


def find_rule(rule_id: str) -> tuple[Rule | None, list[str]]:
    """The built-in rule of that id, or None and the ids closest to it (a did-you-mean)."""
    rules = {rule.id: rule for rule in builtin_rules()}
    if rule_id in rules:
        return rules[rule_id], []
    close = difflib.get_close_matches(rule_id, list(rules), n=3, cutoff=0.6)
    return None, close or [r for r in rules if r.startswith(rule_id.split(".", 1)[0] + ".")][:3]


def _why(rule: Rule) -> str:
    """Why the rule exists (``rules.examples.WHY``, else its level in words), and what a finding
    of it does, from ``rules.policy``'s table."""
    if rule.level == CONTRACT:
        why = "contract: DeepScientist main itself refuses or fails on what it finds"
    else:
        why = "discipline: ds-gate's own rule, stricter than DeepScientist main, which accepts what it finds"
    name = declared_names()[rule.id]
    if name in WHY:
        why = f"{WHY[name]} ({rule.level})"
    if rule.severity != "error":
        effect = f"As a {rule.severity} it fails neither check nor a commit"
        if "closure stops" in rule.summary:
            effect += "; but closure, finalization commits and pre-push stop (exit 2): the gate cannot see past it"
        return f"{why}. {effect}."
    checkpoint = "shows it as a warning" if POLICY[(CHECKPOINT, rule.level)] == WARN else "is refused"
    final = "is refused" if POLICY[(FINALIZATION, rule.level)] != WARN else "shows it as a warning"
    if rule is coverage.COVERAGE_PENDING_RUN:
        return f"{why}: a finalization commit {final}, and closure and pre-push fail on it."
    if rule in neighbours.AT_CLOSURE:  # rules.policy.at_closure
        return (
            f"{why}. An ordinary checkpoint never judges it and check shows it as a warning; closure, "
            "a finalization commit and pre-push fail on it."
        )
    return f"{why}. An ordinary checkpoint {checkpoint}; a finalization commit {final}; check and closure fail on it."


def explain(rule: Rule) -> dict[str, str]:
    """What ``ds-gate rule ID`` says, as ``ruff rule`` does: what it checks, its level and why, an
    example that fires, the fix; from the rule object and ``rules.examples``."""
    example, fix = EXAMPLES[declared_names()[rule.id]]
    return {
        "id": rule.id,
        "severity": rule.severity,
        "level": rule.level,
        "checks": rule.summary,
        "why": _why(rule),
        "example": example,
        "fix": rule.hint or fix,
        "docs": "docs/rules.md",
    }


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
