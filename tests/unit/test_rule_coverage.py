"""Every built-in rule has a failing and a passing case in the unit tests: a new rule
without them fails here. Each unit test module says what it covers in ``FAILS`` and
``PASSES`` (the cases themselves assert it); the few rules only a real git repository or a
dropped privilege can produce are listed with the acceptance test that covers them."""

from __future__ import annotations

import importlib
from pathlib import Path

from ds_gate.rules.registry import builtin_rules

HERE = Path(__file__).resolve().parent
ACCEPTANCE_ONLY: dict[str, str] = {}  # none left: test_repository_rules.py drives the git and folder rules too


def _covered(name: str) -> set[str]:
    found: set[str] = set()
    for path in sorted(HERE.glob("test_*.py")):
        found |= getattr(importlib.import_module(path.stem), name, set())
    return found


def test_every_rule_fails_and_passes_in_a_unit_test() -> None:
    rules = {rule.id for rule in builtin_rules()} - set(ACCEPTANCE_ONLY)
    assert rules - _covered("FAILS") == set()
    assert rules - _covered("PASSES") == set()


def test_acceptance_only_rules_are_tested_there() -> None:
    tests = "".join(p.read_text() for p in (HERE.parent / "acceptance").glob("test_*.py"))
    assert {rule for rule in ACCEPTANCE_ONLY if rule not in tests} == set()
    assert set(ACCEPTANCE_ONLY) <= {rule.id for rule in builtin_rules()}
