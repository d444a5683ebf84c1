"""Every built-in rule has a failing and a passing case in the unit tests: a new rule
without them fails here. Each unit test module says what it covers in ``FAILS`` and
``PASSES`` (the cases themselves assert it); the rules only a real git repository or folder
can produce are driven on the smallest real one (``test_repository_rules.py``)."""

from __future__ import annotations

import importlib
from pathlib import Path

from ds_gate.rules.registry import builtin_rules

HERE = Path(__file__).resolve().parent


def _covered(name: str) -> set[str]:
    found: set[str] = set()
    for path in sorted(HERE.glob("test_*.py")):
        found |= getattr(importlib.import_module(path.stem), name, set())
    return found


def test_every_rule_fails_and_passes_in_a_unit_test() -> None:
    rules = {rule.id for rule in builtin_rules()}
    assert rules - _covered("FAILS") == set()
    assert rules - _covered("PASSES") == set()
