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

from helpers import git, pytest_ds_gate

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
        pytest_ds_gate(tmp_path / "run", [home], xml)
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


def test_a_hook_whose_python_is_gone_prints_how_ds_gate_was_installed(make_quest, tmp_path, monkeypatch) -> None:
    """Both hooks said ``pip install ds-gate && ds-gate install``: ds-gate is not on the package
    index, so that failed (or installed whoever took the name). They print what the install
    recorded: the interpreter, its virtual environment made again, and the source pip had."""
    import subprocess
    import sys

    from ds_gate.setup.install import install, reinstall_command

    quest = make_quest()
    install(quest.root)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(quest.root, "remote", "add", "origin", str(remote))
    for name in ("pre-commit", "pre-push"):
        hook = quest.root / ".git" / "hooks" / name
        text = hook.read_text()
        gone = text.split("DS_GATE_PYTHON=", 1)[1].split("\n", 1)[0]
        hook.write_text(text.replace(gone, "'/gone/venv/bin/python'", 1))
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")  # no ds-gate on PATH
    hint = reinstall_command(sys.executable)
    assert hint.startswith(
        f"{getattr(sys, '_base_executable', 'python3')} -m venv {sys.prefix} && {sys.executable} -m pip install "
    )
    assert hint.endswith(f"{Path(sys.executable).parent / 'ds-gate'} install") and "pip install ds-gate" not in hint
    (quest.root / "notes.md").write_text("n\n")
    git(quest.root, "add", "-A")
    done = subprocess.run(["git", "commit", "-q", "-m", "notes"], cwd=quest.root, capture_output=True, text=True)
    assert done.returncode == 0 and hint in done.stderr and "pip install ds-gate" not in done.stderr, done.stderr
    pushed = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=quest.root, capture_output=True, text=True)
    assert pushed.returncode != 0 and hint in pushed.stderr and "pip install ds-gate" not in pushed.stderr


def test_the_install_snippets_sha_is_one_line_on_a_mirror_that_is_a_clone(make_quest, tmp_path) -> None:
    """The README's ``git ls-remote URL HEAD | cut -f1`` gave two lines on a non-bare mirror (its
    ``refs/remotes/origin/HEAD`` matches too), and pip was handed both."""
    import subprocess

    quest = make_quest()
    mirror = tmp_path / "mirror"
    git(tmp_path, "clone", "-q", str(quest.root), str(mirror))
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    [line] = [line for line in readme.splitlines() if line.startswith("sha=$(git ls-remote ")]
    snippet = line.split("    #", 1)[0].replace("https://github.com/ds-gate/ds-gate", str(mirror))
    done = subprocess.run(["sh", "-c", f'{snippet} && printf "%s" "$sha"'], capture_output=True, text=True, check=True)
    assert done.stdout == git(mirror, "rev-parse", "HEAD").stdout.strip()


def test_doctor_in_ci_weighs_a_missing_hook_as_nothing_and_a_shallow_clone_as_a_failure(
    make_quest, tmp_path, monkeypatch, capsys
) -> None:
    """In a CI clone no commit is made, so no hook is needed; a shallow clone makes closure stop.
    On main doctor failed the first and only warned of the second, and took no ``--ci``."""
    quest = make_quest()
    full, shallow = tmp_path / "full", tmp_path / "shallow"
    git(tmp_path, "clone", "-q", f"file://{quest.root}", str(full))
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{quest.root}", str(shallow))

    def doctor(*argv: str) -> tuple[int, dict[str, str]]:
        code = main(["doctor", *argv, "--home", str(quest.home), "--format", "json"])
        checks = json.loads(capsys.readouterr().out)["checks"]
        return code, {check["name"]: check["status"] for check in checks}

    code, status = doctor(str(shallow), "--ci")
    assert code == 1 and status["clone"] == "fail" and status["hook"] == "ok" and status["context"] == "ok"
    code, status = doctor(str(full), "--ci")
    assert code == 0 and status["clone"] == "ok" and status["hook"] == "ok", status
    monkeypatch.setenv("CI", "true")  # what GitHub Actions and GitLab set
    assert doctor(str(full)) == (code, status)
    assert doctor(str(shallow))[1]["clone"] == "fail"
    code, status = doctor(str(shallow), "--no-ci")  # a developer's machine that happens to set CI
    assert code == 1 and status["hook"] == "fail" and status["clone"] == "warn" and "context" not in status
    monkeypatch.setenv("CI", "false")
    assert doctor(str(full))[1]["hook"] == "fail"
