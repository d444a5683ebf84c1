"""pytest plugin: ``pytest --ds-gate PATH`` turns each check into a test item.

Registered through the ``pytest11`` entry point, so it is loaded whenever pytest runs in
an environment where ds-gate is installed. It is opt-in: without ``--ds-gate`` (or the
``ds_gate_paths`` ini option) it adds its options and nothing else, and imports nothing
beyond pytest and ``cli.flags`` (the options' help); the gate itself (``ds_gate.pytest.items``) loads
only when asked for.

Under ``--ds-gate`` it first refuses (exit 2) a session that would import the quest's
``conftest.py`` or test files (``ds_gate.pytest.guard``): before pytest loads the first
conftest, and again once the collection args are final. Then, under pytest-xdist's ``-n``,
a session of one quest's checks only runs in this process, and a home's quests are spread
over the workers a quest to a worker (``ds_gate.pytest.distribute``, ``ds_gate.pytest.schedule``).
"""

from __future__ import annotations

from typing import Any

import pytest

from ds_gate.cli.flags import PYTEST

PLUGIN_NAME = "ds-gate-session"
REFUSED = pytest.StashKey[str]()  # why the session would import the quest's code
REFUSED_EXIT = 2  # ds-gate's "cannot check" code (errors.QuestError); pytest's INTERRUPTED: nothing ran

# GateOptions field -> how pytest parses its flag (the flag, its help and its ini come from flags.PYTEST)
ACTIONS: dict[str, dict[str, Any]] = {
    "paths": {"action": "append", "default": [], "metavar": "PATH"},
    "home": {"metavar": "DIR"},
    "require": {"action": "store_true", "default": None},  # None: not given, the ini decides
    "source": {"action": "store_const", "const": "git", "default": None},
    "refs": {"action": "append", "default": [], "metavar": "PATTERN"},
    "no_cache": {"action": "store_true", "default": False},
    "no_require": {"action": "store_true", "default": False},  # trusted: the CI repository's command line
    "accept_quest_waivers": {"action": "store_true", "default": False},
}
# GateOptions field -> its ini's type and default
INI: dict[str, dict[str, Any]] = {
    "paths": {"type": "paths", "default": []},
    "home": {"default": ""},
    "require": {"type": "bool", "default": False},
    "source": {"type": "bool", "default": False},
    "accept_quest_waivers": {"type": "bool", "default": False},  # the ini is the CI repository's: trusted
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ds-gate", "experience-distillation gate for DeepScientist quests")
    for field, how in ACTIONS.items():
        group.addoption(PYTEST[field]["flag"], dest=f"ds_gate_{field}", help=PYTEST[field]["help"], **how)
    for field, how in INI.items():
        parser.addini(PYTEST[field]["ini"], PYTEST[field]["ini_help"], **how)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """The earliest hook that knows the rootdir and the args, and it runs before pytest's own
    implementation imports the initial conftests: a quest's conftest must never load. A
    refused session loads no conftest at all; ``pytest_configure`` then ends it."""
    paths = getattr(early_config.known_args_namespace, "ds_gate_paths", None) or early_config.getini(PYTEST["paths"]["ini"])
    if not paths:
        return
    # the gate loads only under --ds-gate (kernel.lazy.LAZY_PLACES)
    from ds_gate.pytest import guard

    why = guard.refusal(paths, base=early_config.invocation_params.dir, rootdir=early_config.rootpath,
                        inifile=early_config.inipath, args=guard.early_args(early_config),
                        pyargs=bool(early_config.known_args_namespace.pyargs))
    if why is not None:
        early_config.known_args_namespace.noconftest = True  # read by pytest's implementation, which runs next
        early_config.stash[REFUSED] = why


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if not (config.getoption("ds_gate_paths") or config.getini(PYTEST["paths"]["ini"])):
        return
    # the gate loads only under --ds-gate (kernel.lazy.LAZY_PLACES)
    from ds_gate.cli.options import GateOptions
    from ds_gate.pytest import guard
    from ds_gate.pytest.distribute import distributed, take_back
    from ds_gate.pytest.units import units

    options = GateOptions.from_pytest(config)
    if not options.paths:
        return

    # asked again with the final args: the paths of a lab's own tests are collected too
    why = config.stash.get(REFUSED, None) or guard.refusal(
        options.paths, base=config.invocation_params.dir, rootdir=config.rootpath, inifile=config.inipath,
        args=config.args, pyargs=bool(config.option.pyargs))
    if why is not None:
        if getattr(config.option, "help", False):  # --help shows the help (no conftest loaded, no quest read)
            return
        pytest.exit(why, returncode=REFUSED_EXIT)

    named = units(options)  # the quests named, from folder names: nothing is read yet
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
