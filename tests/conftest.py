"""Shared fixtures: real git repositories laid out as DeepScientist lays out quests.

Every test runs against a real git (with real worktrees, commits and hooks) isolated
from the developer's own git configuration, with this interpreter's scripts (ds-gate,
pre-commit) first on PATH.

Tests that start a Python program (the ds-gate CLI, pre-commit, a pytest session, the MCP
server) are marked ``slow``: they are most of the suite's time, and ``pytest -m "not slow"``
is the contributor's fast run (CONTRIBUTING.md). An audit hook keeps the mark honest: a test
not marked ``slow`` that starts one fails, naming the mark to add.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.recall.api import _INDEXES


@pytest.fixture(scope="session", autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    home = tmp_path_factory.mktemp("user-home")
    config = home / ".gitconfig"
    config.write_text(
        "[user]\n\tname = Test Researcher\n\temail = researcher@example.invalid\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))
        mp.setenv("GIT_CONFIG_GLOBAL", str(config))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        mp.setenv("PRE_COMMIT_HOME", str(home / "pre-commit-cache"))
        mp.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        for name in (
            "DEEPSCIENTIST_HOME",
            "DS_HOME",
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "DS_GATE_CONFIG",
            "XDG_CONFIG_HOME",
            "CI",  # doctor weighs its checks for CI where it is set (.ci/run sets it): a test sets it itself
        ):  # the trusted configuration is the test's to give
            mp.delenv(name, raising=False)
        yield


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A DeepScientist home, found the way a researcher's shell finds it: $DEEPSCIENTIST_HOME."""
    path = tmp_path / "DeepScientist"
    (path / "quests").mkdir(parents=True)
    monkeypatch.setenv("DEEPSCIENTIST_HOME", str(path))
    return path


_PYTHON_PROGRAMS = frozenset({"ds-gate", "pre-commit", "pytest", "python", "python3", Path(sys.executable).name})
_started: list[str] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event != "subprocess.Popen":
        return
    argv = args[1]
    words = argv.split() if isinstance(argv, str) else [str(word) for word in argv or ()]
    program = str(args[0] or (words[0] if words else ""))
    if Path(program).name in _PYTHON_PROGRAMS or program == sys.executable:
        _started.append(Path(program).name)


sys.addaudithook(_audit)


@pytest.fixture(autouse=True)
def _slow_is_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails a test that starts a Python program without the ``slow`` mark, so the fast run
    stays fast as tests are added."""
    _started.clear()
    yield
    if _started and request.node.get_closest_marker("slow") is None:
        started = ", ".join(sorted(set(_started)))
        pytest.fail(
            f"this test starts {started} (a Python process): mark it @pytest.mark.slow "
            'so `pytest -m "not slow"` stays fast (CONTRIBUTING.md)',
            pytrace=False,
        )


MakeQuest = Callable[..., ExampleQuest]


@pytest.fixture
def fresh_recall_indexes() -> Iterator[None]:
    """Each test a fresh process as far as recall's in-memory indexes go (the recall test modules use it)."""
    _INDEXES.clear()
    yield
    _INDEXES.clear()


@pytest.fixture
def make_quest(home: Path) -> MakeQuest:
    def make(quest_id: str = "001", **options: Any) -> ExampleQuest:
        return ExampleQuest(home / "quests" / quest_id, quest_id, **options).create()

    return make


@pytest.fixture
def quest_with_run(make_quest: MakeQuest) -> tuple[ExampleQuest, str]:
    """Quest 001 with one completed run, committed in the root, and the run's id: the smallest
    quest a broken input can be planted in."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    return quest, run


@pytest.fixture
def one_run_quest(quest_with_run: tuple[ExampleQuest, str]) -> ExampleQuest:
    return quest_with_run[0]


@pytest.fixture
def gate_json(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, dict[str, Any]]]:
    """Run ``ds-gate <args> --format json`` in process: (exit code, parsed output)."""

    def run(*args: str) -> tuple[int, dict[str, Any]]:
        code = main([*args, "--format", "json"])
        out = capsys.readouterr().out
        return code, json.loads(out)

    return run


@pytest.fixture
def trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty trusted configuration file, outside every quest and home, in force (``DS_GATE_CONFIG``)."""
    config = tmp_path / "trusted" / "config.yaml"
    config.parent.mkdir()
    config.write_text("")
    monkeypatch.setenv("DS_GATE_CONFIG", str(config))
    return config
