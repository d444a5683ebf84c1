"""Issue 15: ``pytest --ds-gate=PATH`` never imports code from PATH.

A quest is written by an agent: a ``conftest.py`` or test file planted in it would be
imported by a pytest session that collects it, and could forge the verdict (turn the
gate's failures into passes). The README's recipes run pytest from an empty folder with
``--noconftest``; the plugin refuses (exit 2) any session whose rootdir, config file,
current folder or collected paths lie in a gated quest. Each hostile file writes a marker
when imported, so "not imported" is seen, not assumed.
"""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from helpers import readme_ci_steps, readme_pytest_block, run_step

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

pytest_plugins = ["pytester"]

CONFTEST = """
import pathlib

import pytest

pathlib.Path({marker!r}).write_text("imported")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    report.outcome = "passed"  # forged: every failure reads as a pass
    return report
"""
TEST_FILE = """
import pathlib

pathlib.Path({marker!r}).write_text("imported")


def test_forged():
    assert False, "conftest.py turns this failure into a pass"
"""
PLUGIN = CONFTEST  # named by the quest's pytest.ini (addopts = -p evil_plugin, pythonpath = .)


def plant(folder: Path, markers: Path) -> None:
    """A hostile conftest.py and tests/test_evil.py."""
    markers.mkdir(exist_ok=True)
    (folder / "conftest.py").write_text(CONFTEST.format(marker=str(markers / f"{folder.name}-conftest")))
    (folder / "tests").mkdir(exist_ok=True)
    (folder / "tests" / "test_evil.py").write_text(TEST_FILE.format(marker=str(markers / f"{folder.name}-test")))


def plant_ini(quest, markers: Path) -> None:
    """A pytest.ini that loads a quest module as a plugin. pytest reads it (and imports the
    plugin) before any plugin hook runs when it finds it from where it starts: only the
    recipe's empty folder keeps it out, so only the recipe's tests plant it."""
    (quest.root / "pytest.ini").write_text("[pytest]\naddopts = -p evil_plugin\npythonpath = .\n")
    (quest.root / "evil_plugin.py").write_text(PLUGIN.format(marker=str(markers / "001-ini-plugin")))
    quest.checkpoint(quest.root, "a config file that loads quest code")


@pytest.fixture
def hostile(make_quest, tmp_path):
    """Quest 001 with a pending run, hostile files committed at its root and in a worktree;
    (quest, worktree, pending run id, the markers' folder)."""
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    pending = quest.run(quest.root, "main-001")
    markers = tmp_path / "imported"
    plant(quest.root, markers)
    plant(wt, markers)
    quest.checkpoint(quest.root, "hostile code at the root")
    quest.checkpoint(wt, "hostile code in a worktree")
    return quest, wt, pending, markers


def pytest_bin() -> str:
    found = shutil.which("pytest")
    assert found, "the pytest console script is on PATH (tests/conftest.py puts this interpreter's first)"
    return found


def junit_outcomes(path: Path) -> dict[str, bool]:
    """testcase name -> failed; a pending run named by a property maps to its case's outcome too."""
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        out[case.get("name")] = failed = case.find("failure") is not None
        out.update({p.get("value"): failed for p in case.iter("property") if p.get("name") == "coverage.pending-run"})
    return out


def test_the_planted_files_are_live_when_pytest_runs_inside_the_quest(hostile) -> None:
    """The control: without ds-gate, pytest in the quest imports them and the failure reads as a pass."""
    quest, wt, pending, markers = hostile
    plant_ini(quest, markers)
    done = subprocess.run(
        [pytest_bin(), "-p", "no:cacheprovider", "-rA"], cwd=quest.root, capture_output=True, text=True
    )
    assert done.returncode == 0 and "PASSED tests/test_evil.py::test_forged" in done.stdout, done.stdout + done.stderr
    assert {p.name for p in markers.iterdir()} == {"001-conftest", "001-test", "001-ini-plugin"}


@pytest.mark.parametrize("recipe", ["github-actions", "in-ci-with-pytest"])
def test_the_readme_recipes_import_nothing_of_the_quest(hostile, tmp_path, home, recipe) -> None:
    quest, wt, pending, markers = hostile
    plant_ini(quest, markers)
    (tmp_path / "runner-temp").mkdir()
    if recipe == "github-actions":  # run in the checkout, as CI does
        [step] = [s for s in readme_ci_steps() if " pytest " in s]
        done, report = run_step(step, quest.root, tmp_path / "runner-temp"), quest.root / "ds-gate.xml"
    else:  # run in the home: the block names quests/001
        done, report = run_step(readme_pytest_block(), home, tmp_path / "runner-temp"), home / "ds-gate.xml"
    assert done.returncode == 1, done.stdout + done.stderr
    assert not any(markers.iterdir())
    outcomes = junit_outcomes(report)
    assert outcomes[pending] is True and outcomes["coverage"] is True  # the pending run still fails
    assert "test_forged" not in outcomes
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("where", ["root", "worktree", "subfolder"])
def test_pytest_started_inside_the_quest_is_refused_before_any_conftest(hostile, where) -> None:
    quest, wt, pending, markers = hostile
    cwd = {"root": quest.root, "worktree": wt, "subfolder": quest.root / "tests"}[where]
    done = subprocess.run([pytest_bin(), f"--ds-gate={quest.root}"], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 2, done.stdout + done.stderr
    message = done.stderr
    assert "ds-gate: refusing to run: pytest's rootdir" in message and "lies inside the gated quest" in message
    assert f'cd "$(mktemp -d)" && pytest -p no:cacheprovider --noconftest --rootdir=. --ds-gate={quest.root}' in message
    assert "Traceback" not in done.stdout + message and not any(markers.iterdir())
    assert not (cwd / ".pytest_cache").exists()
    helped = subprocess.run(
        [pytest_bin(), f"--ds-gate={quest.root}", "--help"], cwd=cwd, capture_output=True, text=True
    )
    assert (
        helped.returncode == 0 and "--ds-gate=PATH" in helped.stdout and not any(markers.iterdir())
    )  # help, no conftest


@pytest.mark.parametrize("collect", ["root-tests", "worktree-tests", "node-id", "the-home", "rootdir"])
def test_collecting_a_path_in_the_quest_is_refused(pytester, hostile, home, collect) -> None:
    quest, wt, pending, markers = hostile
    args = {
        "root-tests": [str(quest.root / "tests")],
        "worktree-tests": [str(wt / "tests")],
        "node-id": [f"{quest.root / 'tests' / 'test_evil.py'}::test_forged"],
        "the-home": [str(home)],  # holds the quest
        "rootdir": [f"--rootdir={quest.root}"],
    }[collect]
    result = pytester.runpytest_subprocess(f"--ds-gate={quest.root}", *args, "-p", "no:cacheprovider")
    assert result.ret == 2
    message = result.stderr.str()
    assert "ds-gate: refusing to run:" in message and "--noconftest --rootdir=." in message
    assert ("pytest's rootdir" if collect == "rootdir" else "the collected path") in message
    assert "Traceback" not in result.stdout.str() + message and not any(markers.iterdir())


def test_a_home_refuses_a_session_inside_any_of_its_quests(pytester, hostile, home, make_quest) -> None:
    quest, wt, pending, markers = hostile
    make_quest("002")
    result = pytester.runpytest_subprocess(f"--ds-gate={home}", str(quest.root / "tests"), "-p", "no:cacheprovider")
    assert result.ret == 2 and "the gated quest" in result.stderr.str()
    assert not any(markers.iterdir())
