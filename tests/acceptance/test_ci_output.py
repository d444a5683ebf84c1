"""Issue 39, CI output: what a CI job reads from ds-gate holds whatever the quest holds.

SARIF: every result has a location (``github/codeql-action/upload-sarif`` rejects a file with one
without: "expected at least one location"), a branch tip's too, the ordinary case in a CI clone
with ``fetch-depth: 0``; each validated against the SARIF 2.1.0 schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ds_gate.cli.main import main

from helpers import git

SARIF_SCHEMA = json.loads((Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json").read_text())


def _sarif(capsys, *argv: str) -> tuple[int, list[dict]]:
    code = main([*argv, "--format", "sarif"])
    log = json.loads(capsys.readouterr().out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    results = log["runs"][0]["results"]
    for result in results:  # what upload-sarif asks of each result: a physical location naming a file
        [location] = result["locations"]
        assert location["physicalLocation"]["artifactLocation"]["uri"], result
    return code, results


def test_every_sarif_result_has_a_location_branch_tips_too(make_quest, tmp_path, capsys) -> None:
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(idea, "main-001")
    quest.record(idea, "decision", {"action": "stop", "reason": "r"})  # artifact.refused-by-main, on the branch
    quest.checkpoint(idea, "experiment: main-001")
    clone = tmp_path / "ci"  # what actions/checkout with fetch-depth: 0 leaves: main out, the idea a remote branch
    git(tmp_path, "clone", "-q", f"file://{quest.root}", str(clone))

    code, results = _sarif(capsys, "closure", str(clone))
    assert code == 1
    pending = next(r for r in results if r["ruleId"] == "coverage.pending-run")
    location = pending["locations"][0]
    uri = location["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("artifacts/runs/") and uri.endswith(".json") and run in pending["message"]["text"]
    assert location["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert pending["properties"] == {"branch": "idea/001-a", "ref": "refs/remotes/origin/idea/001-a"}
    [logical] = location["logicalLocations"]
    assert logical["name"] == "idea/001-a" and logical["fullyQualifiedName"] == f"refs/remotes/origin/idea/001-a:{uri}"
    refused = next(r for r in results if r["ruleId"] == "artifact.refused-by-main")
    assert refused["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1

    single = tmp_path / "single"  # a finding about the whole quest (git.one-branch) is placed at quest.yaml
    git(tmp_path, "clone", "-q", "--single-branch", f"file://{quest.root}", str(single))
    code, results = _sarif(capsys, "check", str(single))
    whole = next(r for r in results if r["ruleId"] == "git.one-branch")
    assert whole["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "quest.yaml"

    git(quest.root, "worktree", "remove", "--force", str(idea))  # the quest itself, the branch read from git
    code, results = _sarif(capsys, "closure", str(quest.root))
    assert code == 1 and next(r for r in results if r["ruleId"] == "coverage.pending-run")["properties"]["branch"]


@pytest.mark.slow
def test_both_whole_home_routes_judge_the_same_things(make_quest, home, tmp_path, capsys) -> None:
    """``closure --all-quests`` and ``pytest --ds-gate=HOME`` give each quest and the home's global
    cards (``home::lineage``) the same verdict; on main the summary passed a home whose global card
    breaks lineage, which pytest failed. The ``errors`` column no longer counts pending runs."""
    import subprocess
    import sys
    import xml.etree.ElementTree as ET

    first = make_quest("001")
    covered = first.run(first.root, "main-001")
    first.review(first.root, [covered], cards=[], reason_if_empty="nothing reusable")
    second = make_quest("002")
    waiting = second.run(second.root, "main-001")  # pending
    first.card("global", "A borrowed lesson", claim="c", lineage=[{"quest": "001", "run": "run-nowhere"}])

    def routes() -> tuple[dict[str, bool], dict[str, bool], dict]:
        main(["closure", "--all-quests", "--home", str(home), "--format", "json"])
        data = json.loads(capsys.readouterr().out)
        summary = {row["quest"]: row["ok"] for row in data["quests"]} | {"home": data["home_lineage"]["ok"]}
        xml = tmp_path / "ds-gate.xml"
        (tmp_path / "run").mkdir(exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "--noconftest",
                "--rootdir=.",
                f"--ds-gate={home}",
                f"--junitxml={xml}",
            ],
            cwd=tmp_path / "run",
            capture_output=True,
            check=False,
        )
        items: dict[str, bool] = {}
        for case in ET.parse(xml).getroot().iter("testcase"):
            unit = case.get("classname", "").removeprefix("quest-")
            items[unit] = items.get(unit, True) and case.find("failure") is None
        return summary, items, data

    summary, items, data = routes()
    assert summary == items == {"001": True, "002": False, "home": False}, (summary, items)
    assert data["exit_code"] == 1 and data["home_lineage"]["errors"] >= 1
    assert [row["errors"] for row in data["quests"]] == [0, 0] and data["totals"]["pending"] == 1
    main(["closure", "--all-quests", "--home", str(home)])
    text = capsys.readouterr().out
    assert any(line.split()[:1] == ["home::lineage"] and line.split()[-1] == "failed" for line in text.splitlines())
    assert f"ds-gate lineage --home {home}" in text

    next((home / "memory").rglob("*.md")).unlink()  # the broken card gone, 002 reviewed: both routes pass
    second.review(second.root, [waiting], cards=[], reason_if_empty="nothing reusable")
    summary, items, data = routes()
    assert summary == items == {"001": True, "002": True, "home": True}, (summary, items)
