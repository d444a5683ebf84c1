"""Issue 39, CI output: what a CI job reads from ds-gate holds whatever the quest holds.

SARIF: every result has a location (``github/codeql-action/upload-sarif`` rejects a file with one
without: "expected at least one location"), a branch tip's too, the ordinary case in a CI clone
with ``fetch-depth: 0``; each validated against the SARIF 2.1.0 schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

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
