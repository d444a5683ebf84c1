"""Issue 15, classes 11 and 15: file names and values a quest's agent chose.

A staged record or card whose name holds a newline, bytes that are not UTF-8, or control
characters once made the commit hook exit 2 or 3, so DeepScientist's checkpoint silently did
not happen, nor any later one. Now such a file is read and judged like any other and
named escaped (``\\n``, ``\\xff``, ``\\x1b``); output stays UTF-8 in every locale, JSON stays
JSON, and ESC/CR from a record never reach the terminal. Real repositories, real
``git commit`` through the installed hook.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate.cli.main import main

from helpers import add_remote, git, head_subject

pytest_plugins = ["pytester"]

# the name on disk -> how text shows it, how JSON holds it (JSON escapes control characters
# itself; a byte that is not UTF-8 cannot be in JSON, so it is the visible \xff there too)
NAMES = {
    "newline": ("odd\nname", "odd\\nname", "odd\nname"),
    "not utf-8": (os.fsdecode(b"\xff\xfename"), "\\xff\\xfename", "\\xff\\xfename"),
    "control characters": ("esc\x1b[31m\rname", "esc\\x1b[31m\\rname", "esc\x1b[31m\rname"),
}
RAW_CONTROL = (b"\x1b", b"\r")
BAD_CARD = "---\ntitle: no id\nclaim: 5\n---\nbody\n"  # card.schema: discipline, a warning on a checkpoint


def run_bytes(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, cwd=cwd, capture_output=True, env=env)


def commit_bytes(cwd: Path, message: str) -> subprocess.CompletedProcess[bytes]:
    """``git add -A && git commit`` (the hook runs), output kept as bytes: it must be UTF-8."""
    git(cwd, "add", "-A")
    return run_bytes(["git", "commit", "-q", "-m", message], cwd)


def ds_gate(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return run_bytes([sys.executable, "-m", "ds_gate", *args], cwd, env)


def rename(path: Path, stem: str) -> Path:
    target = path.with_name(stem + path.suffix)
    path.rename(target)
    return target


@pytest.fixture
def hooked(make_quest):
    """A quest with the hook installed and one committed, pending run."""
    quest = make_quest()
    assert main(["install", str(quest.root)]) == 0
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "experiment: main-001")
    return quest, run


@pytest.mark.slow
@pytest.mark.parametrize("what", ["record", "card"])
@pytest.mark.parametrize("name", list(NAMES), ids=list(NAMES))
def test_a_staged_file_with_an_odd_name_never_blocks_a_checkpoint(hooked, what, name) -> None:
    quest, run = hooked
    on_disk, shown, _ = NAMES[name]
    if what == "record":  # a review DeepScientist accepts, with a discipline warning to print
        review = quest.review(quest.root, [run], cards=[{"scope": "global", "action": "new", "target_run_id": run}])
        rename(quest.root / "artifacts" / "decisions" / f"{review}.json", on_disk)
        expected, rule = f"artifacts/decisions/{shown}.json", "warning [review.card-id-missing]"
    else:
        folder = quest.root / "memory" / "knowledge"
        folder.mkdir(parents=True)
        (folder / f"{on_disk}.md").write_text(BAD_CARD)
        expected, rule = f"memory/knowledge/{shown}.md", "warning [card.schema]"
    done = commit_bytes(quest.root, "checkpoint")
    output = (done.stdout + done.stderr).decode("utf-8")  # strict: the hook's output is UTF-8
    assert done.returncode == 0, output
    assert head_subject(quest.root) == "checkpoint"
    assert f"{expected}:" in output and rule in output
    assert not any(byte in done.stdout + done.stderr for byte in RAW_CONTROL)
    assert "object names cannot contain newlines" not in output and "internal error" not in output


@pytest.mark.slow
def test_a_finalization_commit_is_judged_whatever_its_files_are_called(hooked) -> None:
    """Fail closed stays closed: a finalize decision with a newline in its name is seen, and
    the review that covers the run counts though its name is not UTF-8."""
    quest, run = hooked
    decision = quest.decision(quest.root, "finalize")
    rename(quest.root / "artifacts" / "decisions" / f"{decision}.json", "fin\nal")
    rejected = commit_bytes(quest.root, "finalize")
    output = (rejected.stdout + rejected.stderr).decode("utf-8")
    assert rejected.returncode == 1 and head_subject(quest.root) != "finalize"
    assert "it stages artifacts/decisions/fin\\nal.json (decision action 'finalize')" in output
    assert run in output and "pending distill review" in output

    review = quest.review(quest.root, [run], cards=[], reason_if_empty="nothing reusable")
    rename(quest.root / "artifacts" / "decisions" / f"{review}.json", os.fsdecode(b"\xff"))
    accepted = commit_bytes(quest.root, "finalize")
    assert accepted.returncode == 0, (accepted.stdout + accepted.stderr).decode("utf-8")
    assert head_subject(quest.root) == "finalize"


@pytest.mark.slow
def test_a_push_that_finalizes_through_an_odd_name_is_gated(make_quest, tmp_path) -> None:
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(idea, "main-001")
    quest.checkpoint(idea, "experiment: main-001")
    add_remote(quest.root, tmp_path / "remote.git")
    for branch in ("main", "idea/001-a"):
        assert git(quest.root, "push", "-q", "origin", branch).returncode == 0
    assert main(["install", str(quest.root)]) == 0
    decision = quest.decision(quest.root, "finalize")
    rename(quest.root / "artifacts" / "decisions" / f"{decision}.json", os.fsdecode(b"fin\nal\xff"))
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "finalize")  # past the commit hook: the push is next
    rejected = run_bytes(["git", "push", "origin", "main"], quest.root)
    output = (rejected.stdout + rejected.stderr).decode("utf-8")
    assert rejected.returncode != 0 and run in output
    assert "artifacts/decisions/fin\\nal\\xff.json (decision action 'finalize')" in output


def test_the_hook_without_its_python_reads_staged_decisions_whatever_their_names(hooked, monkeypatch) -> None:
    """The shell fallback (the virtual environment is gone): files are read by blob id, so a
    finalize decision is seen through any name, and an ordinary one with such a name passes."""
    quest, run = hooked
    hook = quest.root / ".git" / "hooks" / "pre-commit"
    text = hook.read_text()
    hook.write_text(text.replace(text.split("DS_GATE_PYTHON=", 1)[1].split("\n", 1)[0], "'/gone/venv/bin/python'", 1))
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")  # git, sh and grep; no ds-gate
    for name, (on_disk, _, _) in NAMES.items():
        ordinary = quest.decision(quest.root, "continue")
        rename(quest.root / "artifacts" / "decisions" / f"{ordinary}.json", f"continue-{on_disk}")
        done = commit_bytes(quest.root, f"continue {name}")
        assert done.returncode == 0 and b"ds-gate: warning:" in done.stderr, done.stderr
        final = quest.decision(quest.root, "finalize")
        rename(quest.root / "artifacts" / "decisions" / f"{final}.json", f"final-{on_disk}")
        rejected = commit_bytes(quest.root, f"finalize {name}")
        assert rejected.returncode == 1 and b"may finalize the quest: artifacts/decisions/" in rejected.stderr, name
        git(quest.root, "reset", "-q")
        next(quest.root.glob("artifacts/decisions/final-*")).unlink()


@pytest.fixture
def odd_quest(make_quest):
    """A quest whose folders hold records and cards with every kind of odd name, committed."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    record = quest.root / "artifacts" / "runs" / f"{run}.json"
    folder = quest.root / "memory" / "knowledge"
    folder.mkdir(parents=True)
    for on_disk, *_ in NAMES.values():
        (record.parent / f"run-{on_disk}.json").write_bytes(record.read_bytes())  # artifact.id-mismatch
        (folder / f"{on_disk}.md").write_text(BAD_CARD)  # card.schema
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "odd names")
    return quest, run


@pytest.mark.slow
@pytest.mark.parametrize("locale", ["C", "C.UTF-8", "POSIX"])
def test_check_and_closure_print_odd_names_escaped_in_every_locale(odd_quest, locale) -> None:
    quest, run = odd_quest
    env = {**os.environ, "LC_ALL": locale}
    for command in ("check", "closure"):
        for fmt in ("text", "json", "github"):
            done = ds_gate(command, str(quest.root), "--format", fmt, cwd=quest.root, env=env)
            stderr = done.stderr.decode("utf-8")
            assert done.returncode == 1, (command, fmt, stderr)  # card.schema errors fail both
            assert "Traceback" not in stderr and "internal error" not in stderr
            out = done.stdout.decode("utf-8")  # strict: valid UTF-8
            if fmt == "json":
                report = json.loads(out)
                paths = {f["path"] for f in report["findings"]}
                for _, _, held in NAMES.values():
                    assert f"artifacts/runs/run-{held}.json" in paths and f"memory/knowledge/{held}.md" in paths
            else:
                assert not any(byte in done.stdout for byte in RAW_CONTROL)
                for _, shown, _ in NAMES.values():
                    assert f"artifacts/runs/run-{shown}.json" in out and f"memory/knowledge/{shown}.md" in out


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_stream_that_cannot_hold_every_character_gets_escapes_and_json_stays_utf8(odd_quest, encoding) -> None:
    quest, run = odd_quest
    (quest.root / "memory" / "knowledge" / "\u5b66\u4e60.md").write_text(BAD_CARD)  # a name the stream cannot encode
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    text = ds_gate("check", str(quest.root), cwd=quest.root, env=env)
    assert text.returncode == 1 and b"Traceback" not in text.stderr
    assert "memory/knowledge/\\u5b66\\u4e60.md" in text.stdout.decode(encoding)
    as_json = ds_gate("check", str(quest.root), "--format", "json", cwd=quest.root, env=env)
    paths = {f["path"] for f in json.loads(as_json.stdout.decode("utf-8"))["findings"]}
    assert "memory/knowledge/\u5b66\u4e60.md" in paths and "memory/knowledge/\\xff\\xfename.md" in paths


@pytest.mark.slow
def test_the_pytest_plugin_names_items_escaped(odd_quest, pytester) -> None:
    quest, run = odd_quest
    quest.run(quest.root, "main-002", artifact_id="run-esc\x1b[31m\r")
    result = pytester.runpytest_subprocess(f"--ds-gate={quest.root}", "-rA", "--color=no", "-p", "no:cacheprovider")
    out = "\n".join(result.outlines + result.errlines)
    assert (
        "pending: run-" in out and ", run-esc\\x1b[31m\\r" in out and "Traceback" not in out
    )  # named by the coverage item
    assert "\x1b[31m" not in out and "\r" not in out


ANSI = "\x1b[31m"


@pytest.mark.slow
def test_control_characters_in_record_values_never_reach_the_terminal(hooked) -> None:
    quest, _ = hooked
    run = quest.run(quest.root, f"main-{ANSI}002\r", summary=f"{ANSI}red\r\x1b[2Jcleared")
    quest.run(quest.root, "main-003", status=f"completed{ANSI}\r", run_kind=f"main{ANSI}\r")
    quest.decision(quest.root, f"fin{ANSI}alize\r")
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "hostile values")
    decision = next((quest.root / "artifacts" / "decisions").glob("*.json"))
    for args in (
        ["check"],
        ["closure"],
        ["candidates"],
        ["recent"],
        ["check", "--format", "github"],
        ["closure", "--format", "github"],
    ):
        done = ds_gate(*args[:1], str(quest.root), *args[1:], cwd=quest.root)
        assert done.returncode in (0, 1) and b"Traceback" not in done.stderr, (args, done.stderr)
        assert not any(byte in done.stdout + done.stderr for byte in RAW_CONTROL), (args, done.stdout)
    closure = ds_gate("closure", str(quest.root), cwd=quest.root).stdout.decode()
    assert "main-\\x1b[31m002\\r" in closure and run in closure  # the pending table, escaped
    assert "action 'fin\\x1b[31malize\\r'" in closure
    recent = ds_gate("recent", str(quest.root), cwd=quest.root).stdout.decode()
    assert "\\x1b[31mred\\r\\x1b[2Jcleared" in recent
    validate = ds_gate("validate", str(decision), cwd=quest.root)
    assert validate.returncode == 1 and not any(byte in validate.stdout for byte in RAW_CONTROL)
    report = json.loads(ds_gate("closure", str(quest.root), "--format", "json", cwd=quest.root).stdout)
    assert f"main-{ANSI}002\r" in {r["run_id"] for r in report["completed_runs"]}  # JSON keeps the value itself

    quest.decision(quest.root, f"stop{ANSI}\r")  # the hook refuses the record (an unknown action), escaped
    blocked = commit_bytes(quest.root, "artifact: decision")
    assert blocked.returncode == 1 and b"[decision.unknown-action]" in blocked.stdout + blocked.stderr
    assert not any(byte in blocked.stdout + blocked.stderr for byte in RAW_CONTROL)


@pytest.mark.slow
def test_a_worktree_whose_folder_name_holds_a_newline_is_read(make_quest) -> None:
    """``git worktree list --porcelain -z``: the path is one path, not two lines."""
    quest = make_quest()
    idea = quest.worktree("idea-a\nb", "idea/001-a")
    run = quest.run(idea, "main-001")
    quest.checkpoint(idea, "experiment: main-001")
    done = ds_gate("closure", str(quest.root), "--format", "json", cwd=quest.root)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["pending_run_ids"] == [run]
    assert report["workspaces"] == [".", ".ds/worktrees/idea-a\nb"]
    text = ds_gate("closure", str(quest.root), cwd=quest.root).stdout.decode()
    assert "workspaces: ., .ds/worktrees/idea-a\\nb" in text
