"""pytest plugin: ``pytest --ds-gate PATH`` turns each check into a test item (docs/pytest.md).

Loaded in every session where ds-gate is installed (``pytest11``), so without ``--ds-gate`` (or
the ``ds_gate_paths`` ini option) it adds its options and imports nothing beyond pytest and
``engine.options``. Under it: ``guard`` refuses a session that would import the quest's code,
``distribute`` and ``schedule`` place the items under pytest-xdist, ``items`` runs the gate.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ds_gate.engine.options import FROM_GIT, HELP, HOME_DEFAULT, PATHS, GateOptions

PLUGIN_NAME = "ds-gate-session"
REFUSED = pytest.StashKey[str]()  # why the session would import the quest's code
REFUSED_EXIT = 2  # ds-gate's "cannot check" code (errors.QuestError); pytest's INTERRUPTED: nothing ran


@dataclass(frozen=True, slots=True)
class Option:
    """One option as pytest takes it: its flag (dest ``ds_gate_<key>``), how pytest parses it,
    its help; and its ini name, help and type where a project's ini may set it."""

    flag: str
    help: str
    parse: dict[str, Any]
    ini: str | None = None
    ini_help: str = ""
    ini_type: dict[str, Any] = field(default_factory=dict)


PATHS_INI = "ds_gate_paths"  # read before the options are parsed: whether the gate runs at all
OPTIONS = {  # GateOptions' fields as pytest spells them (``no_cache`` turns ``cache`` off), and the paths
    "paths": Option(
        "--ds-gate",
        "check this quest (or every quest of this DeepScientist home), one test item per check; repeatable",
        {"action": "append", "default": [], "metavar": "PATH"},
        PATHS_INI,
        f"{PATHS} (as --ds-gate)",
        {"type": "paths", "default": []},
    ),
    "home": Option(
        "--ds-gate-home",
        f"{HELP['home']} for global cards {HOME_DEFAULT}",
        {"metavar": "DIR"},
        "ds_gate_home",
        f"{HELP['home']} (as --ds-gate-home)",
        {"default": ""},
    ),
    "require": Option(
        "--ds-gate-require",
        HELP["require"].replace("the gate", "the closure gate"),
        {"action": "store_true", "default": None},  # None: not given, the ini decides
        "ds_gate_require",
        HELP["require"],
        {"type": "bool", "default": False},
    ),
    "source": Option(
        "--ds-gate-from-git",
        f"{FROM_GIT} (a CI clone has no worktree folders)",
        {"action": "store_const", "const": "git", "default": None},
        "ds_gate_from_git",
        f"{FROM_GIT} (as --ds-gate-from-git)",
        {"type": "bool", "default": False},
    ),
    "refs": Option(
        "--ds-gate-refs",
        f"with --ds-gate-from-git: {HELP['refs']}",
        {"action": "append", "default": [], "metavar": "PATTERN"},
    ),
    "no_cache": Option("--ds-gate-no-cache", HELP["cache"], {"action": "store_true", "default": False}),
    "no_require": Option(
        "--ds-gate-no-require",
        HELP["no_require"],  # trusted: the CI repository's command line
        {"action": "store_true", "default": False},
    ),
    "accept_quest_waivers": Option(
        "--ds-gate-accept-quest-waivers",
        HELP["accept_quest_waivers"],
        {"action": "store_true", "default": False},
        "ds_gate_accept_quest_waivers",
        f"{HELP['accept_quest_waivers']} (as --ds-gate-accept-quest-waivers)",
        {"type": "bool", "default": False},
    ),  # the ini is the CI repository's: trusted
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ds-gate", "experience-distillation gate for DeepScientist quests")
    for key, option in OPTIONS.items():
        group.addoption(option.flag, dest=f"ds_gate_{key}", help=option.help, **option.parse)
    for option in OPTIONS.values():
        if option.ini is not None:
            parser.addini(option.ini, option.ini_help, **option.ini_type)


def gate_options(config: pytest.Config) -> tuple[tuple[Path, ...], GateOptions]:
    """(the paths, the gate's options): an option wins over its ini value (a command line
    overrides the project's defaults); ini paths are relative to the ini file (pytest's
    ``paths`` ini type resolves them)."""

    def option(key: str) -> Any:
        return config.getoption(f"ds_gate_{key}")

    def ini(key: str) -> Any:
        return config.getini(OPTIONS[key].ini or "")

    require, no_require = option("require"), bool(option("no_require"))
    paths = tuple(Path(p) for p in option("paths") or []) or tuple(Path(p) for p in ini("paths"))
    return paths, GateOptions(
        require=not no_require and bool(ini("require") if require is None else require),
        no_require=no_require,
        home=option("home") or ini("home") or None,
        source=option("source") or ("git" if ini("source") else "auto"),
        refs=tuple(option("refs")) or None,
        cache=not option("no_cache"),
        accept_quest_waivers=bool(option("accept_quest_waivers") or ini("accept_quest_waivers")),
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """The earliest hook that knows the rootdir and the args, and it runs before pytest's own
    implementation imports the initial conftests: a quest's conftest must never load. A
    refused session loads no conftest at all; ``pytest_configure`` then ends it."""
    paths = getattr(early_config.known_args_namespace, "ds_gate_paths", None) or early_config.getini(PATHS_INI)
    if not paths:
        return
    # the gate loads only under --ds-gate (kernel.lazy.LAZY_PLACES)
    from ds_gate.pytest import guard

    given = [*shlex.split(os.environ.get("PYTEST_ADDOPTS", "")), *early_config.invocation_params.args]
    why = guard.spaced(given) or guard.refusal(
        paths,
        base=early_config.invocation_params.dir,
        rootdir=early_config.rootpath,
        inifile=early_config.inipath,
        args=guard.early_args(early_config),
        pyargs=bool(early_config.known_args_namespace.pyargs),
    )
    if why is not None:
        early_config.known_args_namespace.noconftest = True  # read by pytest's implementation, which runs next
        early_config.stash[REFUSED] = why


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if not (config.getoption("ds_gate_paths") or config.getini(PATHS_INI)):
        return
    # the gate loads only under --ds-gate (kernel.lazy.LAZY_PLACES)
    from ds_gate.pytest import guard
    from ds_gate.pytest.distribute import distributed, take_back
    from ds_gate.pytest.units import units

    paths, options = gate_options(config)
    if not paths:
        return

    # asked again with the final args: the paths of a lab's own tests are collected too
    why = config.stash.get(REFUSED, None) or guard.refusal(
        paths,
        base=config.invocation_params.dir,
        rootdir=config.rootpath,
        inifile=config.inipath,
        args=config.args,
        pyargs=bool(config.option.pyargs),
    )
    if why is not None:
        if getattr(config.option, "help", False):  # --help shows the help (no conftest loaded, no quest read)
            return
        pytest.exit(why, returncode=REFUSED_EXIT)

    named = units(paths, options.home)  # the quests named, from folder names: nothing is read yet
    # before xdist's trylast pytest_configure starts workers that would only add their start-up
    note = take_back(config, len(named))
    if distributed(config) and not hasattr(config, "workerinput"):
        # xdist's controller only schedules (a quest's items on one worker): it collects, runs and reads nothing
        from ds_gate.pytest.schedule import Scheduler

        config.pluginmanager.register(Scheduler([unit.name for unit in named]), "ds-gate-scheduler")
        return
    from ds_gate.pytest.items import GateSession

    config.pluginmanager.register(GateSession(config, options, named, note), PLUGIN_NAME)


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
