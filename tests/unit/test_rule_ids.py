"""Rule ids are an API: each is declared once, as an object, and the docs' rules page
(``docs/rules.md``) is derived from those objects."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from ds_gate.model.findings import ERROR, Rule, RuleConflict
from ds_gate.rules.registry import PAGE, builtin_rules, main, markdown_table, rules_page

REPO = Path(__file__).resolve().parents[2]


def _calls(name: str) -> list[tuple[str, ast.Call]]:
    found = []
    for path in sorted((REPO / "ds_gate").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
                found.append((str(path.relative_to(REPO)), node))
    return found


def test_each_rule_id_is_declared_exactly_once_in_the_code() -> None:
    ids = [node.args[0].value for _, node in _calls("Rule") if node.args and isinstance(node.args[0], ast.Constant)]
    assert len(ids) > 40
    assert [rule for rule, n in Counter(ids).items() if n > 1] == []
    assert sorted(ids) == sorted(rule.id for rule in builtin_rules())


def _reads_one_back(node: ast.Call) -> bool:
    """``Finding(**data)``: a finding read back from JSON (the pytest plugin's workers)."""
    return not node.args and [k.arg for k in node.keywords] == [None]


def test_findings_are_made_only_from_rule_objects() -> None:
    """No loose rule strings: a finding comes from ``Rule.at``, which ``model/findings.py`` defines."""
    loose = [
        (path, node.lineno)
        for path, node in _calls("Finding")
        if path != "ds_gate/model/findings.py" and not _reads_one_back(node)
    ]
    assert loose == []


def test_the_rules_page_is_the_generated_one() -> None:
    """The whole page, not only its table, so a hand edit anywhere on it is caught too."""
    page = (REPO / "docs" / "rules.md").read_text()
    assert page == rules_page(), "regenerate it: python -m ds_gate.rules.registry"
    table = page.split("<!-- rules-table:start -->\n", 1)[1].split("<!-- rules-table:end -->", 1)[0]
    assert table == markdown_table() and all(f"| `{rule.id}` |" in table for rule in builtin_rules())


def test_the_generator_writes_the_page_and_its_check_sees_a_stale_one(tmp_path, capsys) -> None:
    """``python -m ds_gate.rules.registry --check`` fails on a page out of step; a run rewrites it
    (on a copy: the real page stays as it is for the other tests)."""
    assert Path("docs") / "rules.md" == PAGE and main(["--check"], REPO / PAGE) == 0
    page = tmp_path / "rules.md"
    page.write_text((REPO / PAGE).read_text().replace("| `coverage.pending-run` |", "| `coverage.pending` |"))
    assert main(["--check"], page) == 1 and "out of date" in capsys.readouterr().err
    assert main([], page) == 0 and page.read_text() == (REPO / PAGE).read_text()
    assert main(["--check"], page) == 0


def test_a_rule_id_cannot_be_declared_twice_differently() -> None:
    first = Rule("test.twice", ERROR, "discipline", "first meaning")
    assert Rule("test.twice", ERROR, "discipline", "first meaning") == first  # a re-import is fine
    with pytest.raises(RuleConflict, match=r"test\.twice"):
        Rule("test.twice", ERROR, "contract", "another meaning")


def test_a_rule_needs_a_known_severity_and_level() -> None:
    with pytest.raises(ValueError, match="level"):
        Rule("test.level", ERROR, "strict", "x")
    with pytest.raises(ValueError, match="severity"):
        Rule("test.severity", "fatal", "contract", "x")
