"""Hostile and broken inputs: each case of the corpus ends in findings or a one-line error,
never a traceback; nothing escapes (network, memory, time); an internal error is exit 3.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ds_gate.cli.main import main

from corpus import CASES, alias_bomb
from helpers import git

pytest_plugins = ["pytester"]


@pytest.fixture
def quest(one_run_quest):
    return one_run_quest


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_bad_input_ends_in_findings_not_a_traceback(case, quest, capsys) -> None:
    case.breaks(quest)
    code = main([*case.command, str(quest.root), "--format", "json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and err == ""
    report = json.loads(out)
    assert code == case.exit, report["findings"]
    if case.rule is not None:
        assert case.rule in {f["rule"] for f in report["findings"]}
    for finding in report["findings"]:
        assert finding["message"] and len(finding["message"]) < 2000  # bounded, even for an alias bomb
    out.encode("utf-8")  # no lone surrogate (a name that is not UTF-8): writable in any locale
    assert main([*case.command, str(quest.root)]) == case.exit
    text = capsys.readouterr().out
    assert "\x1b" not in text and "\r" not in text  # what the quest holds cannot drive the terminal
    assert not Path("pwned").exists() and not (quest.root / "pwned").exists()  # no YAML tag was ever constructed


def test_the_index_keeps_complete_lines_around_a_partial_one(quest, gate_json) -> None:
    run = next((quest.root / "artifacts" / "runs").glob("*.json")).stem
    index = quest.root / "artifacts" / "_index.jsonl"
    (quest.root / "artifacts" / "runs" / f"{run}.json").unlink()  # only the index knows the run now
    with index.open("ab") as out:
        out.write(b'{"artifact_id": "run-half", "kind": "ru')
    code, out = gate_json("check", str(quest.root))
    rules = [(f["rule"], f["line"]) for f in out["findings"]]
    assert ("index.partial-line", 2) in rules and ("index.missing-record", 1) in rules  # line 1 was still read


def test_not_a_git_repository_and_git_missing_fall_back_to_folders(quest, gate_json, monkeypatch, tmp_path) -> None:
    copy = tmp_path / "copied" / "001"
    shutil.copytree(quest.root, copy, ignore=shutil.ignore_patterns(".git"))
    code, out = gate_json("check", str(copy))
    assert code == 0 and "quest.not-git" in {f["rule"] for f in out["findings"]}
    assert len(out["completed_runs"]) == 1

    empty = tmp_path / "no-git-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    code, out = gate_json("check", str(quest.root))
    assert code == 0 and "quest.not-git" in {f["rule"] for f in out["findings"]}
    assert "git is not installed" in next(f["message"] for f in out["findings"] if f["rule"] == "quest.not-git")


def test_not_a_quest_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    assert main(["check", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not inside a quest" in err


def test_a_shallow_clone_is_read_by_check(quest, tmp_path, gate_json) -> None:
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{quest.root}", str(clone))
    code, out = gate_json("check", str(clone), "--from-git")
    assert code == 0 and len(out["pending_run_ids"]) == 1  # closure stops there (exit 2): test_git_source


@pytest.mark.slow
def test_an_internal_error_is_one_line_and_exit_3_and_debug_shows_the_traceback(quest, tmp_path) -> None:
    site = tmp_path / "site"
    info = site / "boom-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: boom\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ds_gate]\nboom = boom\n")
    (site / "boom.py").write_text(
        "from ds_gate.plugins.hookspecs import hookimpl\n\n@hookimpl\ndef ds_gate_check_quest(quest, context):\n"
        "    raise ZeroDivisionError('a bug in a check')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    plain = subprocess.run(
        [sys.executable, "-m", "ds_gate", "check", str(quest.root)], capture_output=True, text=True, env=env
    )
    assert plain.returncode == 3
    assert (
        plain.stderr.strip().count("\n") == 0 and "internal error: ZeroDivisionError: a bug in a check" in plain.stderr
    )
    assert "--debug" in plain.stderr and "Traceback" not in plain.stderr
    debug = subprocess.run(
        [sys.executable, "-m", "ds_gate", "check", str(quest.root), "--debug"], capture_output=True, text=True, env=env
    )
    assert debug.returncode == 3 and "Traceback" in debug.stderr and "boom.py" in debug.stderr


NO_NETWORK = """
import socket

def _refuse(*args, **kwargs):
    raise RuntimeError("ds-gate tried to open a network socket")

class _NoSocket(socket.socket):
    def __init__(self, family=-1, *args, **kwargs):
        if family in (socket.AF_INET, socket.AF_INET6, -1):
            _refuse()
        super().__init__(family, *args, **kwargs)

socket.socket = _NoSocket
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
"""


@pytest.mark.slow
def test_no_command_opens_a_network_socket(make_quest, home, tmp_path, pytester, monkeypatch) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.review(quest.root, [run])
    quest.card("global", "A lesson", claim="c", lineage=[{"quest": "001", "run": run}], tags=["topic:a"])
    quest.checkpoint(quest.root, "record")
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(NO_NETWORK)
    env = {**os.environ, "PYTHONPATH": str(guard)}
    probe = subprocess.run(
        [sys.executable, "-c", "import socket; socket.create_connection(('example.com', 80))"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert "ds-gate tried to open a network socket" in probe.stderr  # the guard works
    decision = next((quest.root / "artifacts" / "decisions").glob("*.json"))
    commands = [
        ["check", str(quest.root)],
        ["closure", str(quest.root), "--from-git"],
        ["lineage", "--home", str(home)],
        ["recall", "--tags", "topic:a", "--query", "lesson", "--home", str(home)],
        ["validate", str(decision)],
        ["recent", str(quest.root)],
        ["candidates", str(quest.root), "--also-git"],
    ]
    for args in commands:
        done = subprocess.run([sys.executable, "-m", "ds_gate", *args], capture_output=True, text=True, env=env)
        assert done.returncode == 0, (args, done.stderr)
        assert "network socket" not in done.stderr
    monkeypatch.setenv("PYTHONPATH", str(guard))
    result = pytester.runpytest_subprocess(f"--ds-gate={quest.root}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
    assert "network socket" not in result.stdout.str() + result.stderr.str()


def test_schemas_refer_only_to_each_other() -> None:
    from ds_gate.io import schemas

    def refs(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref":
                    yield value
                else:
                    yield from refs(value)
        elif isinstance(node, list):
            for value in node:
                yield from refs(value)

    found = [ref for name in schemas.SCHEMA_NAMES for ref in refs(schemas.load(name))]
    assert found and all("://" not in ref for ref in found)
    assert all(ref.split("#")[0] in {"", *(f"{n}.schema.json" for n in schemas.SCHEMA_NAMES)} for ref in found)


@pytest.mark.slow
def test_a_50_mb_index_is_streamed_in_bounded_memory(quest, tmp_path) -> None:
    index = quest.root / "artifacts" / "_index.jsonl"
    line = json.dumps(
        {
            "artifact_id": "run-X",
            "kind": "run",
            "status": "completed",
            "path": "/nowhere/x.json",
            "summary": "s" * 200,
            "updated_at": "2026-01-01T00:00:00+00:00",
        }
    )
    with index.open("w") as out:
        n = 0
        while out.tell() < 50_000_000:
            out.write(line.replace("run-X", f"run-{n:08x}") + "\n")
            n += 1
    wrapper = (
        "import resource, subprocess, sys; "
        f"p = subprocess.run([sys.executable, '-m', 'ds_gate', 'check', {str(quest.root)!r}, '--format', 'json'], "
        "capture_output=True, text=True); "
        "import json; d = json.loads(p.stdout); "
        "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "
        "sum(f['rule'] == 'index.missing-record' for f in d['findings']), len(d['completed_runs']))"
    )
    done = subprocess.run([sys.executable, "-c", wrapper], capture_output=True, text=True)
    code, peak_kb, missing, completed = map(int, done.stdout.split())
    assert code == 0
    assert peak_kb < 200 * 1024, f"peak RSS {peak_kb // 1024} MB"
    assert missing == 101  # 150,000 stale lines' warnings are summed up, not listed one by one
    assert completed == n + 1  # the quest's own run, and each line: its record is found nowhere (issue 35)


@pytest.mark.slow
@pytest.mark.parametrize("breaks", ["alias bomb", "nesting"])
def test_the_alias_bomb_and_deep_nesting_end_within_two_seconds(quest, breaks) -> None:
    if breaks == "alias bomb":
        (quest.root / "quest.yaml").write_text(alias_bomb(9, 9) + "\nstartup_contract:\n  experience_distill: *a8\n")
        card = quest.root / "memory" / "knowledge" / "bomb.md"
        card.parent.mkdir(parents=True)
        card.write_text("---\nid: k\nclaim: c\n" + alias_bomb(9, 9) + "\n---\n")
    else:
        run = next((quest.root / "artifacts" / "runs").glob("*.json"))
        run.write_text('{"a": ' + "[" * 10000 + "]" * 10000 + "}")
        with (quest.root / "artifacts" / "_index.jsonl").open("a") as out:
            out.write("{" * 10000 + "\n")
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "check", str(quest.root), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=2,
    )
    assert time.monotonic() - start < 2
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 500 * 1024


def as_unprivileged(args: list[str]) -> list[str]:
    """Run ``args`` without the power to read any file (root's DAC override dropped)."""
    if os.geteuid() != 0:
        return args
    drop = "-dac_override,-dac_read_search"
    return ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", *args]


def check_with_unreadable(quest: Any, path: Path) -> tuple[int, list[dict[str, Any]]]:
    """``ds-gate check`` on the quest, unprivileged, while ``path`` cannot be read: (exit, findings)."""
    path.chmod(0)
    try:
        done = subprocess.run(
            as_unprivileged([sys.executable, "-m", "ds_gate", "check", str(quest.root), "--format", "json"]),
            capture_output=True,
            text=True,
        )
    finally:
        path.chmod(0o644)
    assert "Traceback" not in done.stderr
    return done.returncode, json.loads(done.stdout)["findings"]


def test_an_unreadable_record_is_a_finding(quest) -> None:
    code, findings = check_with_unreadable(quest, next((quest.root / "artifacts" / "runs").glob("*.json")))
    assert code == 1 and [f["rule"] for f in findings] == ["artifact.unreadable"]
    assert "Permission denied" in findings[0]["message"]


def mount_read_only(path: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """``args`` in a private mount namespace where ``path`` is a read-only bind mount."""
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(path), *args], capture_output=True, text=True)


@pytest.mark.slow
def test_a_quest_and_a_home_on_a_read_only_mount(make_quest, home) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.review(quest.root, [run])
    quest.card("global", "A lesson", claim="c", lineage=[{"quest": "001", "run": run}], tags=["topic:a"])
    quest.checkpoint(quest.root, "record")
    probe = mount_read_only(home, ["touch", str(home / "x")])
    assert probe.returncode != 0 and "Read-only file system" in probe.stderr, probe.stderr
    for args in (
        ["closure", str(quest.root)],
        ["closure", str(quest.root), "--from-git"],
        ["lineage"],
        ["recall", "--tags", "topic:a"],
    ):
        done = mount_read_only(
            home,
            [sys.executable, "-m", "ds_gate", *args, "--format", "json", "--home", str(home)]
            if args[0] in ("lineage", "recall")
            else [sys.executable, "-m", "ds_gate", *args, "--format", "json"],
        )
        assert done.returncode == 0, (args, done.stderr)
        out = json.loads(done.stdout)
        assert out["ok"] is True and "Traceback" not in done.stderr
        if args[0] == "recall":
            assert [r["title"] for r in out["results"]] == ["A lesson"]  # no cache could be written; recall still works


def test_an_unreadable_card_is_a_finding(quest) -> None:
    card = quest.root / "memory" / "knowledge" / "secret.md"
    card.parent.mkdir(parents=True)
    card.write_text("---\nid: knowledge-1\ntitle: t\n---\nbody\n")
    code, findings = check_with_unreadable(quest, card)
    assert code == 1 and [f["rule"] for f in findings] == ["card.unreadable"]
    assert findings[0]["path"] == "memory/knowledge/secret.md" and "Permission denied" in findings[0]["message"]


@pytest.mark.slow
def test_a_quest_whose_hooks_cannot_be_installed_is_an_install_failure(quest, tmp_path) -> None:
    home = quest.root.parent.parent
    elsewhere = tmp_path / "shared-hooks"
    subprocess.run(["git", "config", "core.hooksPath", str(elsewhere)], cwd=quest.root, check=True)
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "install", "--home", str(home), "--format", "json"],
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in done.stderr and not elsewhere.exists()  # nothing written outside the quest
    findings = json.loads(done.stdout)["findings"]
    assert done.returncode == 1 and [f["rule"] for f in findings] == ["install.failed"]
    assert "core.hooksPath" in findings[0]["message"]


@pytest.mark.slow
def test_a_quest_yaml_nested_past_the_parsers_stack_stops_closure_without_a_crash(quest) -> None:
    """Issue 15: ~25,000 levels overflowed the C parser's stack (a segfault, exit -11)."""
    (quest.root / "quest.yaml").write_text("startup_contract: " + "[" * 30000 + "]" * 30000 + "\n")
    done = subprocess.run([sys.executable, "-m", "ds_gate", "closure", str(quest.root)], capture_output=True, text=True)
    assert done.returncode == 2 and "nested deeper than 1000 levels" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_quest_yaml_linked_out_of_the_quest_is_not_followed_and_stops_closure(quest) -> None:
    """Issue 15: the toggle was taken from the outside file (here: off, so the gate passed)."""
    from corpus import link_out

    link_out(quest, "quest.yaml", "startup_contract: {experience_distill: off}\n")
    done = subprocess.run([sys.executable, "-m", "ds_gate", "closure", str(quest.root)], capture_output=True, text=True)
    assert done.returncode == 2 and "symbolic link" in done.stderr and "not followed" in done.stderr


UNREADABLE = ["worktree", "artifacts", "runs", ".ds", "memory"]


@pytest.fixture
def shared_quest(tmp_path_factory):
    """A quest with a worktree, a run in each and a lesson, and a git config for it."""
    from ds_gate.demo.example_quest import ExampleQuest

    base = tmp_path_factory.mktemp("perm")
    quest = ExampleQuest(base / "home" / "quests" / "001", "001").create()
    wt = quest.worktree("idea-a", "idea/001-a")
    quest.run(wt, "main-001")
    quest.checkpoint(wt, "record")
    quest.run(quest.root, "main-002")
    quest.card("quest", "A lesson", claim="c")
    quest.checkpoint(quest.root, "record")
    config = base / "gitconfig"
    config.write_text("[safe]\n\tdirectory = *\n")
    return quest, wt, config


@pytest.mark.slow
@pytest.mark.parametrize("target", UNREADABLE)
def test_a_folder_the_user_cannot_read_is_a_finding_and_closure_fails_closed(target, shared_quest) -> None:
    """Issue 15.10: ``chmod 000`` on a worktree, ``artifacts``, ``runs``, ``.ds`` or ``memory``. Run
    as an unprivileged user (root reads through permissions): never exit 3, never passes blind."""
    quest, wt, config = shared_quest
    folder = {
        "worktree": wt,
        "artifacts": quest.root / "artifacts",
        "runs": quest.root / "artifacts" / "runs",
        ".ds": quest.root / ".ds",
        "memory": quest.root / "memory",
    }[target]
    env = {
        **os.environ,
        "HOME": str(config.parent),
        "GIT_CONFIG_GLOBAL": str(config),
        "DS_GATE_CACHE_DIR": "",
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        "DEEPSCIENTIST_HOME": str(quest.root.parent.parent),
    }
    folder.chmod(0o000)
    try:
        results = {
            cmd: subprocess.run(
                as_unprivileged([sys.executable, "-m", "ds_gate", cmd, str(quest.root), "--format", "json"]),
                capture_output=True,
                text=True,
                env=env,
            )
            for cmd in ("check", "closure", "recent")
        }
    finally:
        folder.chmod(0o755)
    for cmd, done in results.items():
        assert done.returncode in (0, 1), (cmd, done.stderr)
        assert "Traceback" not in done.stderr
        json.loads(done.stdout)
    closure = json.loads(results["closure"].stdout)
    assert results["closure"].returncode == 1
    assert any("cannot" in f["message"] for f in closure["findings"]), closure["findings"]


@pytest.mark.slow
def test_a_home_under_a_folder_the_user_cannot_enter_is_a_finding(shared_quest, tmp_path_factory) -> None:
    """CI found this: ``$DEEPSCIENTIST_HOME`` under a root-only folder made ``Path.is_dir``
    raise, and ``check`` exit 3. The cards are then unreadable (an error), never "none"."""
    quest, _, config = shared_quest
    private = tmp_path_factory.mktemp("private")
    (private / "home" / "memory" / "knowledge").mkdir(parents=True)
    private.chmod(0o000)
    env = {
        **os.environ,
        "HOME": str(config.parent),
        "GIT_CONFIG_GLOBAL": str(config),
        "DS_GATE_CACHE_DIR": "",
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        "DEEPSCIENTIST_HOME": str(private / "home"),
    }
    try:
        results = {
            cmd: subprocess.run(
                as_unprivileged([sys.executable, "-m", "ds_gate", *argv, "--format", "json"]),
                capture_output=True,
                text=True,
                env=env,
            )
            for cmd, argv in {
                "check": ["check", str(quest.root)],
                "closure": ["closure", str(quest.root)],
                "lineage": ["lineage"],
            }.items()
        }
    finally:
        private.chmod(0o700)
    for cmd, done in results.items():
        assert done.returncode == 1, (cmd, done.returncode, done.stderr)
        assert "Traceback" not in done.stderr
        report = json.loads(done.stdout)
        assert any(
            f["rule"] == "card.unreadable" and "Permission denied" in f["message"] for f in report["findings"]
        ), (cmd, report["findings"])
