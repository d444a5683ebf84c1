"""Issue 18.5: text reports that stay readable at 2,000 runs; JSON stays complete.

The large quest is bench/gen.py's (2,000 runs in 20 worktrees, 100 pending): its text once
had a 475-character workspaces line and a 1,648-character id list.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate.cli.main import main

from helpers import REPO

ID = re.compile(r"run-[0-9a-f]{8}")


def _without_paths(line: str) -> str:
    """A line with its path-like words taken out: only the rest must fit the width."""
    return " ".join(word for word in line.split(" ") if "/" not in word)


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from gen import make_quest
    finally:
        sys.path.remove(str(REPO / "bench"))
    root = tmp_path_factory.mktemp("large") / "q2000"
    make_quest(root, runs=2000, worktrees=20, reviews=40)
    return root


def _text(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("command", ["check", "closure", "candidates"])
def test_a_2000_run_report_stays_under_100_columns_and_lists_each_pending_id_once(
    large, command, capsys, monkeypatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out = _text(capsys, command, str(large))
    assert code == (1 if command == "closure" else 0)
    lines = out.splitlines()
    assert all(len(line) < 100 or len(_without_paths(line)) < 100 for line in lines), max(lines, key=len)
    json_code, data = main([command, str(large), "--format", "json"]), json.loads(capsys.readouterr().out)
    assert json_code == code and len(data["pending_run_ids"]) == 100  # JSON: complete, as before
    if command == "check":
        assert not ID.search(out)  # check counts pending runs, it does not list them
        return
    found = ID.findall(out)
    assert sorted(found) == data["pending_run_ids"]  # every pending id, exactly once
    if command == "closure":
        assert "'reviewed_run_ids': [  # 100 runs" in out and "# .ds/worktrees/run-019 (100)" in out
        assert "'run-0000076c',  # main-01900  analysis.slice" in out


def test_the_workspaces_line_wraps_to_the_width_and_never_splits_a_path(large, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    _, out = _text(capsys, "check", str(large))
    head = out.split("\n\n", 1)[0].splitlines()[1:]
    assert len(head) > 5 and all(len(line) <= 60 for line in head)
    named = re.findall(r"\.ds/worktrees/run-\d{3}", "\n".join(head))
    assert named == [f".ds/worktrees/run-{w:03d}" for w in range(20)]


@pytest.mark.slow
def test_findings_that_share_a_rule_and_a_hint_print_the_hint_once(make_quest, capsys) -> None:
    quest = make_quest()
    index = quest.root / "artifacts" / "_index.jsonl"
    with index.open("a") as out:
        for n in range(12):
            out.write(
                json.dumps(
                    {
                        "artifact_id": f"run-gone{n:04d}",
                        "kind": "run",
                        "path": str(quest.root / f"artifacts/runs/run-gone{n:04d}.json"),
                    }
                )
                + "\n"
            )
    code, out = _text(capsys, "check", str(quest.root))
    assert code == 0
    assert "warning [index.missing-record] in 12 places:" in out
    assert out.count("hint: restore the record (<path>") == 1
    assert all(out.count(f"run-gone{n:04d}.json") == 1 for n in range(12))
    data = json.loads(
        subprocess.run(
            [sys.executable, "-m", "ds_gate", "check", str(quest.root), "--format", "json"],
            capture_output=True,
            text=True,
        ).stdout
    )
    assert len([f for f in data["findings"] if f["rule"] == "index.missing-record"]) == 12  # each, with its hint
    assert all(f["hint"] for f in data["findings"] if f["rule"] == "index.missing-record")


def test_quiet_prints_the_errors_and_the_verdict_only(make_quest, capsys) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.record(quest.root, "decision", {"action": "stop", "reason": "r"})  # an error: no verdict
    (quest.root / "artifacts" / "_index.jsonl").open("a").write("not json\n")  # a warning
    code, out = _text(capsys, "closure", str(quest.root), "-q")
    assert code == 1
    assert (
        "[artifact.refused-by-main]" in out
        and f"'{run}'," in out
        and out.splitlines()[-1].endswith("1 error, 1 warning")
    )
    assert "index.invalid-line" not in out and "workspaces:" not in out and "quest 001 at" not in out
    quest.review(quest.root, [run])
    code, out = _text(capsys, "check", str(quest.root), "--quiet")
    assert code == 1 and out.splitlines()[-1].startswith("ds-gate check: FAILED")
    assert code == main(["check", str(quest.root), "--quiet", "--format", "json"])
    assert json.loads(capsys.readouterr().out)["findings"]  # JSON stays complete with --quiet


def _in_a_terminal(argv: list[str], env: dict[str, str]) -> str:
    """ds-gate with its stdout on a real pseudo-terminal, as a user at a shell runs it."""
    import pty

    leader, follower = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", *argv], stdout=follower, stderr=subprocess.PIPE, env=env, timeout=60
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert done.returncode in (0, 1), done.stderr
    return b"".join(chunks).decode()


@pytest.mark.slow
def test_colour_only_on_a_terminal_unless_asked_and_never_with_no_color(make_quest, capsys) -> None:
    quest = make_quest()
    quest.run(quest.root, "main-001")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS")}
    assert "\x1b[31m" in _in_a_terminal(["closure", str(quest.root)], env)
    assert "\x1b[" not in _in_a_terminal(["closure", str(quest.root)], {**env, "NO_COLOR": "1"})
    assert "\x1b[" not in _in_a_terminal(["closure", str(quest.root), "--color", "never"], env)
    assert "\x1b[31m" in _in_a_terminal(["closure", str(quest.root), "--color", "always"], {**env, "NO_COLOR": "1"})
    _, piped = _text(capsys, "closure", str(quest.root))  # not a terminal: plain
    assert "\x1b[" not in piped
    _, forced = _text(capsys, "closure", str(quest.root), "--color", "always")
    assert "\x1b[31mds-gate closure: REJECTED" in forced
    assert main(["closure", str(quest.root), "--color", "sometimes"]) == 2


def test_output_writes_the_report_to_a_file_and_the_verdict_sets_the_exit_code(make_quest, tmp_path, capsys) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    target = tmp_path / "report.json"
    assert main(["closure", str(quest.root), "--format", "json", "--output", str(target)]) == 1
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text())["pending_run_ids"] == [run]
    text = tmp_path / "report.txt"
    assert main(["closure", str(quest.root), "-o", str(text), "--color", "auto"]) == 1
    assert "\x1b[" not in text.read_text() and text.read_text().rstrip().endswith("0 warnings")
    assert main(["closure", str(quest.root), "--output", str(tmp_path / "no-such-dir" / "r.txt")]) == 2
    assert "cannot write the report" in capsys.readouterr().err
