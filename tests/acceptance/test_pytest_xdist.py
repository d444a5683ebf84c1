"""``pytest --ds-gate`` with pytest-xdist's ``-n``: the same items, outcomes, JUnit XML and exit code as serial.

A session of one quest's checks only (started from an empty folder, as the recipe does) runs
in the controller: one quest is read by one process, and a worker would only add its
start-up. A home's quests are spread over the workers, a quest to a worker, each read once,
by the worker that runs its items; the controller reads none. A session that also collects
anything of its own (a lab's tests, or just a file the plugin cannot rule out) is distributed.

Every run is a real ``python -m pytest`` process with the real pytest-xdist, started in a
folder this test controls (pytester's own folder holds its ``stdout``/``stderr`` files).
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

IN_CONTROLLER = "ds-gate: only the gate's checks of one quest are collected: they run in this process"
WORKERS = "created: 2/2 workers"  # xdist's line when it starts them


@pytest.fixture
def quest(make_quest):
    """Quest 001: a covered run (with its lesson), a pending run, and an invalid decision."""
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    covered = quest.run(wt, "main-001")
    quest.run(quest.root, "main-002")
    quest.review(wt, [covered])
    quest.decision(quest.root, "continue", verdict="")
    quest.checkpoint(wt, "record")
    return quest


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    folder = tmp_path / "ci"
    folder.mkdir()
    return folder


def pytest_run(folder: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--noconftest", "--rootdir=.", "-rA", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
    )


def outcomes(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """node id -> PASSED/FAILED, from ``-rA``'s summary."""
    out = {}
    for line in done.stdout.splitlines():
        for word in ("PASSED", "FAILED", "ERROR"):
            if line.startswith(word + " "):
                out[line.split()[1]] = word
    return out


def junit(path: Path) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """The suite's counts and every testcase (class, name, each child's tag, message, text and
    properties), sorted: xdist reports in the order items finish. Times, hostname and timestamp left out."""
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite is not None
    counts = {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")}
    cases = sorted(
        (
            c.get("classname"),
            c.get("name"),
            tuple(
                (e.tag, e.get("message"), e.text, tuple((p.get("name"), p.get("value")) for p in e.iter("property")))
                for e in c
            ),
        )
        for c in suite.iter("testcase")
    )
    return counts, cases


def same_as_serial(
    folder: Path, gate: str, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """(serial, with ``args``): both asserted equal in items, outcomes, JUnit XML and exit code."""
    out = folder.parent / "reports"
    out.mkdir(exist_ok=True)
    serial = pytest_run(folder, gate, f"--junitxml={out / 'serial.xml'}", env=env)
    other = pytest_run(folder, gate, f"--junitxml={out / 'other.xml'}", *args, env=env)
    assert outcomes(serial) and outcomes(other) == outcomes(serial), other.stdout + other.stderr
    assert junit(out / "other.xml") == junit(out / "serial.xml")
    assert other.returncode == serial.returncode == 1
    return serial, other


@pytest.mark.parametrize(
    "args", [["-n", "2"], ["-n", "2", "--dist", "loadgroup"], ["--tx", "2*popen", "--dist", "load"]]
)
def test_one_quest_under_n_2_runs_in_the_controller_as_serial(quest, empty, args) -> None:
    serial, parallel = same_as_serial(empty, f"--ds-gate={quest.root}", *args)
    assert len(outcomes(serial)) == 4
    assert IN_CONTROLLER in parallel.stdout and WORKERS not in parallel.stdout
    assert "2 xdist workers" in parallel.stdout


COUNT_READS = """
import os
import sys

import pytest


@pytest.hookimpl(trylast=True)
def pytest_configure(config):  # after ds-gate's own: a process that will read quests has imported items by now
    items = sys.modules.get("ds_gate.pytest.items")
    if items is None:
        return
    real = items.judge

    def counted(unit, options):
        with open(os.environ["READS_LOG"], "a") as log:
            log.write(f"{unit.name} {os.environ.get('PYTEST_XDIST_WORKER', 'controller')}\\n")
        return real(unit, options)
    items.judge = counted


def pytest_unconfigure(config):  # whether this process loaded the engine at all
    who = os.environ.get("PYTEST_XDIST_WORKER", "controller")
    with open(os.environ["READS_LOG"], "a") as log:
        log.write(f"engine {who} {config.getoption('dist', 'no')} {'ds_gate.engine.gate' in sys.modules}\\n")
"""


@pytest.fixture
def several(make_quest, home):
    """A home of three quests: pending runs in two, and a card whose lineage names no run."""
    quests = [make_quest(f"00{n}") for n in (1, 2, 3)]
    for quest in quests[:2]:
        quest.run(quest.root, "main-001")
    quests[0].card("global", "Bad lesson", claim="c", lineage=[{"quest": "001", "run": "run-nothere"}])
    return home


@pytest.fixture
def counted(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment whose pytest processes (the workers too: ``-p`` reaches them) log each
    quest they read, and the log, kept outside the collected folder."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "countreads.py").write_text(COUNT_READS)
    log = tmp_path / "reads.log"
    outer = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}  # this suite's own worker
    return {**outer, "PYTHONPATH": str(plugins), "READS_LOG": str(log), "PYTEST_ADDOPTS": "-p countreads"}, log


@pytest.mark.parametrize(
    "args", [["-n", "2"], ["--tx", "popen", "--tx", "popen", "--dist", "load"], ["-n", "2", "--dist", "loadgroup"]]
)
def test_a_home_is_spread_over_workers_each_quest_read_once(several, empty, counted, args) -> None:
    env, log = counted
    serial, parallel = same_as_serial(empty, f"--ds-gate={several}", *args, env=env)
    assert WORKERS in parallel.stdout and IN_CONTROLLER not in parallel.stdout
    got = outcomes(serial)
    assert got["quest-001::coverage"] == got["quest-002::coverage"] == got["home::lineage"] == "FAILED"
    assert got["quest-003::coverage"] == "PASSED" and len(got) == 13
    # serial then parallel: each of the four units read once in each session, the second time by a worker
    lines = log.read_text().split("\n")[:-1]
    engine = [line.split()[1:] for line in lines if line.startswith("engine ")]
    reads = [line for line in lines if not line.startswith("engine ")]
    assert ["controller", "no", "True"] in engine  # serial: this process reads the quests
    assert [e for e in engine if e[0] == "controller" and e[1] != "no"] == [["controller", engine[-1][1], "False"]]
    units = ["quest-001", "quest-002", "quest-003", "home"]
    assert sorted(line.split()[0] for line in reads[:4]) == sorted(units) and {
        line.split()[1] for line in reads[:4]
    } == {"controller"}
    assert sorted(line.split()[0] for line in reads[4:]) == sorted(units)
    assert all(line.split()[1] in ("gw0", "gw1") for line in reads[4:])  # the controller read none


def test_a_labs_own_tests_beside_the_gate_are_distributed_as_asked(quest, empty) -> None:
    (empty / "test_lab.py").write_text(
        "def test_the_quest_is_there(ds_gate_quest):\n    assert ds_gate_quest.quest_id == '001'\n\n"
        "def test_a_failing_lab_rule():\n    assert False\n"
    )
    serial, parallel = same_as_serial(empty, f"--ds-gate={quest.root}", "-n", "2")
    assert outcomes(serial)["test_lab.py::test_the_quest_is_there"] == "PASSED"  # on a worker, under -n 2
    assert WORKERS in parallel.stdout and IN_CONTROLLER not in parallel.stdout
    assert len(outcomes(serial)) == 6


@pytest.mark.parametrize(
    ("content", "controller"),
    [
        ({".hidden/notes.txt": "x"}, True),  # pytest enters no dot-folder (norecursedirs)
        ({"__pycache__/x.pyc": "", "build/out.txt": "x", "sub/deeper/": None}, True),
        ({"notes.txt": "x"}, False),  # a file some plugin could collect: the walk cannot rule it out
        ({"sub/conftest.py": "x = 1\n"}, False),
        ({"link": "->"}, False),  # a link is not followed
    ],
)
def test_only_a_folder_without_files_runs_in_the_controller(quest, empty, content, controller) -> None:
    for name, text in content.items():
        path = empty / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            path.mkdir()
        elif text == "->":
            path.symlink_to(empty.parent)
        else:
            path.write_text(text)
    done = pytest_run(empty, f"--ds-gate={quest.root}", "-n", "2")
    assert (IN_CONTROLLER in done.stdout) is controller and (WORKERS in done.stdout) is not controller, done.stdout
    assert done.returncode == 1 and sorted(outcomes(done).values()) == ["FAILED"] * 2 + ["PASSED"] * 2


def test_a_node_id_or_each_mode_keeps_the_workers(quest, empty) -> None:
    each = pytest_run(empty, f"--ds-gate={quest.root}", "-n", "2", "--dist", "each")
    assert WORKERS in each.stdout and IN_CONTROLLER not in each.stdout and each.returncode == 1
    (empty / "sub").mkdir()
    named = pytest_run(empty, f"--ds-gate={quest.root}", "-n", "2", "sub::x")  # a node id names a test
    assert WORKERS in named.stdout and IN_CONTROLLER not in named.stdout


@pytest.mark.parametrize("args", [["-n", "0"], ["-p", "no:xdist"], ["autoload"]])
def test_without_distribution_the_session_is_serial(quest, empty, args) -> None:
    env = None
    if args == ["autoload"]:  # xdist never loaded, as when it is not installed: only ds-gate's plugin
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        args = ["-p", "ds_gate_pytest"]  # the entry point's module, by name
    done = pytest_run(empty, f"--ds-gate={quest.root}", *args, env=env)
    assert done.returncode == 1 and len(outcomes(done)) == 4, done.stdout + done.stderr
    assert IN_CONTROLLER not in done.stdout and WORKERS not in done.stdout
    if env is not None:  # xdist was not there: its -n is unknown
        unknown = pytest_run(empty, f"--ds-gate={quest.root}", *args, "-n", "2", env=env)
        assert unknown.returncode == 4 and "unrecognized arguments: -n" in unknown.stderr


def test_collect_only_under_n_2_lists_the_same_items(quest, empty) -> None:
    serial = pytest_run(empty, f"--ds-gate={quest.root}", "--collect-only", "-q")
    parallel = pytest_run(empty, f"--ds-gate={quest.root}", "--collect-only", "-q", "-n", "2")

    def listed(done: subprocess.CompletedProcess[str]) -> list[str]:  # the summary line's time left out
        return [line for line in done.stdout.splitlines() if " in " not in line]

    items = [line for line in serial.stdout.splitlines() if line.startswith("quest-001::")]
    assert len(items) == 4 and listed(parallel) == listed(serial) and parallel.returncode == serial.returncode == 0
