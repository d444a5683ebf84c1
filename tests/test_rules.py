"""Rule ids are an API: everything emitted is registered, everything registered is documented."""

from __future__ import annotations

import re

from helpers import REPO

from ds_gate.checks.documents import RULE_FOR_SCHEMA
from ds_gate.rules import RULES


def emitted_rule_ids() -> set[str]:
    found: set[str] = set(RULE_FOR_SCHEMA.values())
    for path in (REPO / "ds_gate").rglob("*.py"):
        text = path.read_text()
        found.update(re.findall(r'rule="([a-z0-9.-]+)"', text))
        found.update(re.findall(r'"([a-z]+\.[a-z-]+)" if ', text))  # rule="a" if cond else "b"
        found.update(re.findall(r'else "([a-z]+\.[a-z-]+)"', text))
        found.update(re.findall(r'Finding\("([a-z]+\.[a-z-]+)"', text))
        found.update(re.findall(r'\badd\(\s*"([a-z]+\.[a-z-]+)"', text))
        found.update(re.findall(r'rule: str = "([a-z]+\.[a-z-]+)"', text))  # a helper's default rule  # a check's local add(rule, ...)
        found.update(re.findall(r'_review_finding\(\s*review,\s*"([a-z]+\.[a-z-]+)"', text))
    return found


def test_every_emitted_rule_id_is_registered() -> None:
    emitted = emitted_rule_ids()
    assert len(emitted) > 20
    assert emitted - set(RULES) == set()
    assert set(RULES) - emitted == set(), "registered but never emitted"


def test_every_rule_id_is_documented_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text()
    assert [rule for rule in RULES if f"`{rule}`" not in readme] == []
