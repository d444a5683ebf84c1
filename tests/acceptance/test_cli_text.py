"""Issue 27, the CLI's rough edges: counts in the singular, doctor wrapped, listings with no
trailing space, ``candidates`` not "OK" over errors, ``recent --kind`` spellings, ``lineage``
without a home, SARIF's address and its locations under ``--from-git``."""

from __future__ import annotations

import json
import re
import sys

import pytest

from ds_gate.cli.main import main
from ds_gate.kernel.counting import counted
from ds_gate.kernel.version import HOMEPAGE

from helpers import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli, a dependency there
    import tomli as tomllib


def text_of(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_counted_says_one_in_the_singular() -> None:
    assert [counted(n, "memory card") for n in (0, 1, 2)] == ["0 memory cards", "1 memory card", "2 memory cards"]
    assert counted(1, "branch", "branches") == "1 branch" and counted(3, "branch", "branches") == "3 branches"


def test_a_count_of_one_is_singular_in_what_the_commands_print(one_run_quest, capsys) -> None:
    """It said "1 memory cards", "of 1 files", "1 worktree(s)" and "1 of 1 completed runs"."""
    quest = one_run_quest
    run_file = next((quest.root / "artifacts" / "runs").glob("run-*.json"))
    card = quest.card("quest", "A lesson", claim="c", lineage=[{"quest": "001", "run": run_file.stem}])
    card_file = next((quest.root / "memory" / "knowledge").glob("*.md"))
    assert card
    code, out = text_of(capsys, "validate", str(run_file), str(card_file))
    assert code == 0 and "note: 1 run or decision record and 1 memory card of 2 files were validated" in out
    code, out = text_of(capsys, "validate", str(card_file))
    assert "0 run or decision records and 1 memory card of 1 file were validated" in out
    code, out = text_of(capsys, "closure", str(quest.root))
    assert code == 1 and "pending distill review (1 of 1 completed run):" in out
    assert out.splitlines()[-1].startswith("ds-gate closure: REJECTED - 1 of 1 completed run pending distill review")
    code, out = text_of(capsys, "doctor", str(quest.root))
    assert "worktrees: 1 worktree, every link intact" in out
    everything = out + text_of(capsys, "check", str(quest.root))[1]
    assert "(s)" not in everything and not re.search(
        r"\b1 [a-z ]*?(runs|cards|files|worktrees|errors|warnings)\b", everything
    )


def test_doctor_wraps_its_lines_at_the_width(make_quest, capsys, monkeypatch) -> None:
    """A check with its fix ran to 195 columns on one line."""
    quest = make_quest()  # no hook: a failed check with a fix
    monkeypatch.setenv("COLUMNS", "80")
    code, out = text_of(capsys, "doctor", str(quest.root))
    assert code == 1
    lines = out.splitlines()
    # a line is longer only when it is one word (a deep path), never split
    assert [line for line in lines if len(line) > 80 and " " in line.strip()] == []
    fix = next(n for n, line in enumerate(lines) if line.startswith("      fix: "))
    assert lines[fix + 1].startswith(" " * 11) and not lines[fix + 1].startswith(" " * 12)  # under the fix's text
    assert any(line.startswith("      ") and not line.startswith("       ") for line in lines[2:fix])  # the message's


def test_candidates_does_not_call_errors_ok(one_run_quest, capsys) -> None:
    quest = one_run_quest
    code, out = text_of(capsys, "candidates", str(quest.root))
    assert code == 0 and out.splitlines()[-1].startswith("ds-gate candidates: OK - ")
    quest.decision(quest.root, "continue", reason="")  # an error: DeepScientist refuses it
    code, out = text_of(capsys, "candidates", str(quest.root))
    last = out.splitlines()[-1]
    assert code == 0 and "OK" not in last
    assert last == (
        "ds-gate candidates: ERRORS (listed; exit 0) - 1 of 1 completed run pending distill review, "
        "1 error (check and closure fail on it), 0 warnings"
    )
    assert "error [artifact.refused-by-main]" in out  # the error itself, above
    code, data = main(["candidates", str(quest.root), "--format", "json"]), json.loads(capsys.readouterr().out)
    assert code == 0 and data["ok"] is True  # the JSON is unchanged: a listing never fails


@pytest.mark.parametrize(
    "argv",
    [
        ["recent", "{root}"],
        ["recent", "{root}", "--kind", "run"],
        ["candidates", "{root}"],
        ["recall"],
        ["recall", "--quest", "{root}", "--scope", "quest"],
        ["lineage"],
        ["check", "{root}"],
    ],
)
def test_no_listing_line_ends_in_a_space(argv, make_quest, capsys) -> None:
    """``recent`` printed "  " after a record with no summary (a decision's, a run's)."""
    quest = make_quest()
    quest.record(quest.root, "run", {"run_id": "main-001", "run_kind": "main_experiment", "status": "completed"})
    quest.decision(quest.root, "continue")
    quest.card("quest", "A lesson", claim="c")
    quest.checkpoint(quest.root, "records")
    _, out = text_of(capsys, *(a.format(root=quest.root) for a in argv))
    assert len(out.splitlines()) > 2
    assert [line for line in out.splitlines() if line.endswith(" ")] == []


@pytest.mark.parametrize(
    "kind,meant",
    [
        ("runs", "run"),
        ("decisions", "decision"),
        ("Decision", "decision"),
        ("ideas", "idea"),
        ("decison", "decision"),
        ("papers", None),
    ],
)
def test_recent_refuses_the_other_spelling_of_a_kind_and_names_the_right_one(kind, meant, make_quest, capsys) -> None:
    """``recall --kind`` takes plural memory kinds; ``recent --kind`` the singular artifact kinds."""
    quest = make_quest()
    assert main(["recent", str(quest.root), "--kind", kind]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not an artifact kind" in err and "run, report" in err
    assert (f"did you mean {meant}?" in err) == (meant is not None)
    assert ("ds-gate recall --kind" in err) == (kind in ("decisions", "ideas", "papers"))
    assert main(["recent", str(quest.root), "--kind", meant or "run"]) == 0


def test_lineage_of_a_quest_with_no_home_fails_as_lineage_alone_does(tmp_path, capsys, monkeypatch) -> None:
    """``lineage .`` said OK against a home that does not exist; ``lineage`` alone exits 2."""
    from ds_gate.demo.example_quest import ExampleQuest

    monkeypatch.setenv("DEEPSCIENTIST_HOME", str(tmp_path / "no-home"))
    quest = ExampleQuest(tmp_path / "scratch" / "q1", "q1").create()
    quest.card("quest", "Lesson", claim="c", lineage=[{"quest": "q1", "run": quest.run(quest.root, "main-001")}])
    alone = main(["lineage"]), capsys.readouterr().err
    with_quest = main(["lineage", str(quest.root)]), capsys.readouterr().err
    assert alone[0] == with_quest[0] == 2 and alone[1] == with_quest[1]
    assert f"no DeepScientist home at {tmp_path / 'no-home'}" in alone[1]
    assert "--home DIR" in alone[1] and "DEEPSCIENTIST_HOME" in alone[1]


def test_the_address_is_written_once_and_pyproject_says_the_same() -> None:
    """``kernel.version.HOMEPAGE``, beside ``__version__``; the package metadata's Homepage agrees."""
    homepage = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]["Homepage"]
    assert homepage == HOMEPAGE == "https://github.com/ds-gate/ds-gate"


def test_sarif_names_this_projects_address(make_quest, capsys) -> None:
    """SARIF's ``informationUri`` named DeepScientist's repository, not this tool's."""
    quest = make_quest()
    main(["check", str(quest.root), "--format", "sarif"])
    assert json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]["informationUri"] == HOMEPAGE


def _github_places(out: str) -> list[tuple[str, str | None, int | None]]:
    places = []
    for line in out.splitlines():
        if line.startswith("::"):
            props = dict(p.split("=", 1) for p in line[2:].split("::", 1)[0].split(" ", 1)[1].split(","))
            places.append((props["title"], props.get("file"), int(props["line"]) if "line" in props else None))
    return places


def _sarif_places(out: str) -> list[tuple[str, str | None, int | None]]:
    places = []
    for result in json.loads(out)["runs"][0]["results"]:
        physical = (result.get("locations") or [{}])[0].get("physicalLocation", {})
        branch = result.get("properties", {}).get("branch")  # a branch tip GitHub cannot show (issue 39)
        places.append(
            (
                result["ruleId"],
                None if branch else physical.get("artifactLocation", {}).get("uri"),
                physical.get("region", {}).get("startLine"),
            )
        )
    return places


def test_sarif_under_from_git_places_results_where_the_github_format_does(make_quest, capsys, monkeypatch) -> None:
    """Under ``--from-git`` every SARIF result had no location (its path is ``<ref>:<path>``). A
    branch's the GitHub format cannot place has its path and its branch in SARIF (issue 39)."""
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")  # a branch that is not checked out at the root
    quest.run(quest.root, "main-001")
    quest.decision(quest.root, "continue", reason="")  # an error with a line
    quest.checkpoint(quest.root, "records")
    quest.run(idea, "main-002")
    quest.checkpoint(idea, "records")
    monkeypatch.chdir(quest.root)  # as in CI: the checkout is the working directory
    main(["closure", ".", "--from-git", "--format", "github"])
    github = _github_places(capsys.readouterr().out)
    main(["closure", ".", "--from-git", "--format", "sarif"])
    sarif = _sarif_places(capsys.readouterr().out)
    assert sarif == github
    assert any(
        rule == "artifact.refused-by-main" and path and path.startswith("artifacts/decisions/") and line
        for rule, path, line in sarif
    )
    assert any(
        rule == "coverage.pending-run" and path and path.startswith("artifacts/runs/") for rule, path, _ in sarif
    )
    assert any(rule == "coverage.pending-run" and path is None for rule, path, _ in sarif)  # the idea branch's run
