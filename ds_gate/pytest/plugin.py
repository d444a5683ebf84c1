"""pytest plugin: ``pytest --ds-gate PATH`` turns each check into a test item.

Registered through the ``pytest11`` entry point, so it is loaded whenever pytest runs in
an environment where ds-gate is installed. It is opt-in: without ``--ds-gate`` (or the
``ds_gate_paths`` ini option) it adds its options and nothing else, and imports nothing
beyond pytest; the gate itself (``ds_gate.pytest.items``) loads only when asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

PLUGIN_NAME = "ds-gate-session"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ds-gate", "experience-distillation gate for DeepScientist quests")
    group.addoption(
        "--ds-gate",
        action="append",
        default=[],
        metavar="PATH",
        dest="ds_gate_paths",
        help="check this quest (or every quest of this DeepScientist home), one test item per check; repeatable",
    )
    group.addoption("--ds-gate-home", metavar="DIR", dest="ds_gate_home",
                    help="the DeepScientist home for global cards (default: $DEEPSCIENTIST_HOME, $DS_HOME, ~/DeepScientist)")
    group.addoption("--ds-gate-require", action="store_true", default=None, dest="ds_gate_require",
                    help="enforce the closure gate even where experience_distill is off")
    group.addoption("--ds-gate-from-git", action="store_const", const="git", default=None, dest="ds_gate_source",
                    help="read artifacts from the tips of git branches (a CI clone has no worktree folders)")
    group.addoption("--ds-gate-refs", action="append", default=[], metavar="PATTERN", dest="ds_gate_refs",
                    help="with --ds-gate-from-git: the refs to read (repeatable; default: refs/heads and refs/remotes)")
    parser.addini("ds_gate_paths", "quests or DeepScientist homes to check (as --ds-gate)", type="paths", default=[])
    parser.addini("ds_gate_home", "the DeepScientist home (as --ds-gate-home)", default="")
    parser.addini("ds_gate_require", "enforce the gate even where experience_distill is off", type="bool", default=False)
    parser.addini("ds_gate_from_git", "read artifacts from the tips of git branches (as --ds-gate-from-git)", type="bool",
                  default=False)


def settings(config: pytest.Config) -> dict[str, Any]:
    """paths, home, require, source, refs: options win over ini values; ini paths are
    relative to the ini file."""
    paths = [Path(p) for p in config.getoption("ds_gate_paths") or []] or [Path(p) for p in config.getini("ds_gate_paths")]
    require = config.getoption("ds_gate_require")
    source = config.getoption("ds_gate_source") or ("git" if config.getini("ds_gate_from_git") else "folders")
    return {
        "paths": paths,
        "home": config.getoption("ds_gate_home") or config.getini("ds_gate_home") or None,
        "require": bool(config.getini("ds_gate_require") if require is None else require),
        "source": source,
        "refs": config.getoption("ds_gate_refs") or None,
    }


def pytest_configure(config: pytest.Config) -> None:
    options = settings(config)
    if not options["paths"]:
        return
    from ds_gate.pytest.items import GateSession

    config.pluginmanager.register(GateSession(config, **options), PLUGIN_NAME)


def _session(request: pytest.FixtureRequest) -> Any:
    plugin = request.config.pluginmanager.get_plugin(PLUGIN_NAME)
    if plugin is None:
        pytest.fail("ds-gate fixtures need --ds-gate PATH (or the ds_gate_paths ini option)", pytrace=False)
    return plugin


@pytest.fixture(scope="session")
def ds_gate_quest(request: pytest.FixtureRequest) -> Any:
    """The parsed ``Quest`` of the first ``--ds-gate`` quest, for a lab's own rules."""
    return _session(request).first_report().quest


@pytest.fixture(scope="session")
def ds_gate_report(request: pytest.FixtureRequest) -> Any:
    """The closure ``Report`` of the first ``--ds-gate`` quest (findings, pending runs, cards)."""
    return _session(request).first_report()
