"""Issue 39: ``ds-gate rule ID`` explains one rule as ``ruff rule`` does (what it checks, its level and
why, an example that fires, the fix), generated from the rule registry; a mistyped command or flag
gets a did-you-mean (``closur``, ``--requre``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.rules.examples import EXAMPLES, WHY
from ds_gate.rules.registry import builtin_rules, declared_names

REPO = Path(__file__).resolve().parents[2]


def test_rule_explains_one_rule_from_the_registry(capsys) -> None:
    assert main(["rule", "review.unknown-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("review.unknown-run  (error, contract)\n")
    for label in ("What it checks:", "Why:", "An example that fires:", "The fix:"):
        assert f"\n{label}\n" in out
    assert "not a run artifact id of the quest" in out and '"main-001"' in out
    assert "covers nothing (contract)" in " ".join(out.split())  # why it exists, and its level
    assert main(["rule", "decision.unknown-action"]) == 0
    assert "DeepScientist main itself refuses" in " ".join(capsys.readouterr().out.split())  # a contract rule's why


def test_rule_json_is_the_registry_for_every_rule(capsys) -> None:
    assert main(["rule", "--all", "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    rules = builtin_rules()
    assert body["schema_version"] == 1 and [r["id"] for r in body["rules"]] == [rule.id for rule in rules]
    for entry, rule in zip(body["rules"], rules, strict=True):
        assert (entry["severity"], entry["level"], entry["checks"]) == (rule.severity, rule.level, rule.summary)
        assert entry["example"] and entry["fix"] and entry["why"]


def test_every_rule_has_an_example_and_no_example_names_a_rule_that_is_gone() -> None:
    names = set(declared_names().values())
    assert len(names) == len(builtin_rules()) and set(EXAMPLES) == names and set(WHY) <= names


def test_a_discipline_error_says_what_it_blocks_and_a_fail_closed_warning_says_closure_stops(capsys) -> None:
    assert main(["rule", "decision.schema", "--format", "json"]) == 0
    why = json.loads(capsys.readouterr().out)["rules"][0]["why"]
    assert "ordinary checkpoint shows it as a warning" in why and "finalization commit is refused" in why
    assert main(["rule", "git.one-branch", "--format", "json"]) == 0
    assert "stop (exit 2)" in json.loads(capsys.readouterr().out)["rules"][0]["why"]


def test_an_unknown_rule_exits_2_with_a_did_you_mean(capsys) -> None:
    assert main(["rule", "covrage.pending-run"]) == 2
    assert "did you mean coverage.pending-run?" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["closur", "."], "did you mean closure?"),
        (["closure", "--requre", "."], "did you mean --require?"),
        (["candidates", "--fromgit"], "did you mean --from-git?"),
    ],
)
def test_a_mistyped_command_or_flag_gets_a_did_you_mean(argv, meant, capsys) -> None:
    assert main(argv) == 2
    assert meant in capsys.readouterr().err
    assert main([*argv, "--format", "json"]) == 2
    assert meant in json.loads(capsys.readouterr().out)["error"]


def test_nothing_close_gets_no_guess(capsys) -> None:
    assert main(["xyzzy"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_the_rules_page_links_to_the_rule_command() -> None:
    page = (REPO / "docs" / "rules.md").read_text()
    assert "[`ds-gate rule ID`](cli.md#rule)" in page
    assert "\n### rule\n" in (REPO / "docs" / "cli.md").read_text()
