"""The command line: output formats are an API, exit codes mean one thing each."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate.cli.main import main

FINDING_KEYS = {"rule", "severity", "path", "pointer", "line", "message", "hint", "subject", "waived"}


@pytest.fixture
def pending_quest(make_quest):
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    runs = [quest.run(wt, f"main-{i:03d}") for i in range(30)]
    covered = quest.run(quest.root, "main-100")
    quest.review(wt, [covered])
    return quest, runs, covered


def test_closure_json_has_the_documented_shape_and_the_complete_pending_list(pending_quest, gate_json) -> None:
    quest, runs, covered = pending_quest
    code, out = gate_json("closure", str(quest.root))
    assert code == 1
    assert out["schema_version"] == 1 and out["ok"] is False
    assert out["quest_root"] == str(quest.root.resolve()) and out["quest_id"] == "001"
    assert out["experience_distill"] is True and out["enforced"] is True
    assert out["pending_run_ids"] == sorted(runs)  # all 30, sorted, never truncated
    assert len(out["completed_runs"]) == 31
    assert set(out["completed_runs"][0]) >= {"artifact_id", "run_id", "run_kind", "status", "workspace"}
    assert {r["artifact_id"]: r["workspace"] for r in out["completed_runs"]}[covered] == "."
    pending = [f for f in out["findings"] if f["rule"] == "coverage.pending-run"]
    assert len(pending) == 30 and all(set(f) == FINDING_KEYS for f in out["findings"])
    assert [r["valid"] for r in out["reviews"]] == [True]


def test_text_output_lists_every_pending_run_with_what_to_do_next(pending_quest, capsys) -> None:
    quest, runs, _ = pending_quest
    assert main(["closure", str(quest.root)]) == 1
    out = capsys.readouterr().out
    assert all(run in out for run in runs)
    assert "main-029" in out and ".ds/worktrees/idea-a" in out
    assert "'report_type': 'distill_review'" in out and "REJECTED" in out  # main's encoding (issue 16.1)
    assert "action='distill_review'" not in out and "'action': 'distill_review'" not in out
    (quest.root / ".ds-gate.yaml").write_text("decision_actions: [distill_review]\n")  # a DeepScientist with PR #60
    assert main(["closure", str(quest.root)]) == 1
    assert "'kind': 'decision', 'action': 'distill_review'" in capsys.readouterr().out


def test_check_fails_on_invalid_artifacts_only(pending_quest, gate_json) -> None:
    quest, runs, _ = pending_quest
    code, out = gate_json("check", str(quest.root))
    assert code == 0 and out["ok"] is True and len(out["pending_run_ids"]) == 30
    assert not [f for f in out["findings"] if f["severity"] == "error"]
    bad = quest.record(quest.root, "decision", {"action": "stop", "reason": "r"})  # no verdict: main refuses it
    code, out = gate_json("check", str(quest.root))
    assert code == 1 and [f["rule"] for f in out["findings"] if f["severity"] == "error"] == [
        "artifact.refused-by-main"
    ]
    (quest.root / "artifacts" / "decisions" / f"{bad['artifact_id']}.json").unlink()
    quest.record(quest.root, "decision", {"action": "stop", "verdict": "good", "reason": ["r"]})  # main writes it
    code, out = gate_json("check", str(quest.root))  # a discipline error: check fails on it (issue 35)
    assert code == 1 and [f["rule"] for f in out["findings"] if f["severity"] == "error"] == ["decision.schema"]


def test_candidates_lists_the_pending_runs_and_never_fails(pending_quest, gate_json, capsys) -> None:
    quest, runs, _ = pending_quest
    code, out = gate_json("candidates", str(quest.root))
    assert code == 0 and out["pending_run_ids"] == sorted(runs)
    assert main(["candidates", str(quest.root)]) == 0
    assert "pending distill review (30 of 31 completed runs):" in capsys.readouterr().out


def test_github_format_emits_annotations_with_file_and_line(make_quest, capsys, monkeypatch) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    review = quest.record(
        quest.root,
        "decision",
        {
            "action": "distill_review",
            "verdict": "covered",
            "reason": "r, with: punctuation",
            "reviewed_run_ids": ["main-001"],
            "cards_written": [],
            "reason_if_empty": "none",
        },
    )
    monkeypatch.chdir(quest.root.parent)  # annotations are relative to where CI runs
    assert main(["closure", "001", "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    unknown = next(line for line in lines if "review.unknown-run" in line)
    assert unknown.startswith(f"::error file=001/artifacts/decisions/{review['artifact_id']}.json,line=")
    assert f"did you mean {run}?" in unknown and "\n" not in unknown
    assert any(line.startswith("::error file=001/artifacts/runs/") and "coverage.pending-run" in line for line in lines)
    assert lines[-1].startswith("ds-gate closure: REJECTED")


def test_validate_checks_each_file_and_reports_every_error(make_quest, tmp_path, gate_json) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    good = quest.review(quest.root, [run])
    bad = quest.record(
        quest.root,
        "decision",
        {"action": "distill_review", "verdict": "", "reviewed_run_ids": ["main-001"], "cards_written": []},
    )
    decisions = quest.root / "artifacts" / "decisions"
    files = [str(decisions / f"{good}.json"), str(decisions / f"{bad['artifact_id']}.json")]
    code, out = gate_json("validate", *files)
    assert code == 1 and out["ok"] is False and out["schema_version"] == 1
    assert {f["path"] for f in out["findings"]} == {files[1]}
    assert {f["pointer"] for f in out["findings"]} == {"/verdict", "/reason", "/reason_if_empty", "/reviewed_run_ids/0"}
    assert all(f["line"] for f in out["findings"])

    code, out = gate_json("validate", files[0])
    assert code == 0 and out["findings"] == []


def test_validate_outside_a_quest_checks_the_schema_and_says_what_it_could_not_check(tmp_path, gate_json) -> None:
    lone = tmp_path / "decision-1.json"
    lone.write_text(
        json.dumps(
            {
                "kind": "decision",
                "action": "distill_review",
                "verdict": "v",
                "reason": "r",
                "reviewed_run_ids": ["run-1"],
                "cards_written": [],
                "reason_if_empty": "x",
            }
        )
    )
    other = tmp_path / "report-1.json"
    other.write_text(json.dumps({"kind": "report"}))
    code, out = gate_json("validate", str(lone), str(other))
    assert code == 0
    assert [f["rule"] for f in out["findings"]] == ["review.runs-not-checked"]
    assert out["notes"] == ["1 run or decision record and 0 memory cards of 2 files were validated"]


def test_exit_code_2_for_unreadable_input_and_usage_errors(tmp_path, capsys) -> None:
    assert main(["validate", str(tmp_path / "absent.json")]) == 2
    assert main(["check", str(tmp_path / "absent")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    (tmp_path / "plain").mkdir()
    assert main(["closure", str(tmp_path / "plain")]) == 2
    err = capsys.readouterr().err
    assert "is not inside a quest" in err and "Traceback" not in err
    assert main(["closure", "--format", "xml"]) == 2
    assert main(["no-such-command"]) == 2
    assert main([]) == 2


def test_exit_code_3_for_an_internal_error_with_a_hint_and_a_traceback_under_debug(
    make_quest, monkeypatch, capsys
) -> None:
    quest = make_quest()

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr("ds_gate.cli.check.Gate.run", broken)  # a bug inside the engine, under the command
    assert main(["check", str(quest.root)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "simulated bug" in err and "--debug" in err
    assert main(["check", str(quest.root), "--debug"]) == 3
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.slow
def test_the_console_script_runs_and_shows_help() -> None:
    script = Path(sys.executable).parent / "ds-gate"
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    for command in ("check", "closure", "candidates", "validate", "install", "demo", "commit-check"):
        assert command in done.stdout
    version = subprocess.run([sys.executable, "-m", "ds_gate", "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("ds-gate ")


def test_a_closed_pipe_keeps_the_verdicts_exit_code(make_quest) -> None:
    """Issue 15: `ds-gate closure | head -0` used to exit 0 on a rejected gate."""
    import subprocess
    import sys

    quest = make_quest()
    quest.run(quest.root, "main-001")
    done = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m ds_gate closure "{quest.root}" | head -c 0; echo "${{PIPESTATUS[0]}}"'],
        capture_output=True,
        text=True,
    )
    assert done.stdout.strip() == "1" and "Traceback" not in done.stderr and "internal error" not in done.stderr
    closed = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m ds_gate closure "{quest.root}" >&-; echo "$?" >&2'],
        capture_output=True,
        text=True,
    )
    assert closed.stderr.strip().splitlines()[-1] == "1" and "internal error" not in closed.stderr


def test_an_unknown_argument_is_the_commands_error_with_its_usage(capsys) -> None:
    """Issue 27: `closure --bogus` printed the top-level usage; it is closure's mistake."""
    assert main(["closure", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("usage: ds-gate closure ") and "ds-gate closure: error: unrecognized arguments: --bogus" in err
    )
