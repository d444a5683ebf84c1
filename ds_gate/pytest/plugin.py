"""pytest plugin: ``pytest --ds-gate PATH`` turns each check into a test item.

Registered through the ``pytest11`` entry point, so it is loaded whenever pytest runs in
an environment where ds-gate is installed. It is opt-in: without ``--ds-gate`` (or the
``ds_gate_paths`` ini option) it adds its options and nothing else, and imports nothing
beyond pytest and ``commands.options`` (``GateOptions`` and the options' help, which cost
nothing pytest has not loaded already); the gate itself (``ds_gate.pytest.items``) loads
only when asked for.
"""

from __future__ import annotations

from typing import Any

import pytest

from ds_gate.commands.flags import PYTEST
from ds_gate.commands.options import GateOptions

PLUGIN_NAME = "ds-gate-session"

# GateOptions field -> how pytest parses its flag (the flag, its help and its ini come from flags.PYTEST)
ACTIONS: dict[str, dict[str, Any]] = {
    "paths": {"action": "append", "default": [], "metavar": "PATH"},
    "home": {"metavar": "DIR"},
    "require": {"action": "store_true", "default": None},  # None: not given, the ini decides
    "source": {"action": "store_const", "const": "git", "default": None},
    "refs": {"action": "append", "default": [], "metavar": "PATTERN"},
}
# GateOptions field -> its ini's type and default
INI: dict[str, dict[str, Any]] = {
    "paths": {"type": "paths", "default": []},
    "home": {"default": ""},
    "require": {"type": "bool", "default": False},
    "source": {"type": "bool", "default": False},
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ds-gate", "experience-distillation gate for DeepScientist quests")
    for field, how in ACTIONS.items():
        group.addoption(PYTEST[field]["flag"], dest=f"ds_gate_{field}", help=PYTEST[field]["help"], **how)
    for field, how in INI.items():
        parser.addini(PYTEST[field]["ini"], PYTEST[field]["ini_help"], **how)


def pytest_configure(config: pytest.Config) -> None:
    options = GateOptions.from_pytest(config)
    if not options.paths:
        return
    from ds_gate.pytest.items import GateSession

    config.pluginmanager.register(GateSession(config, options), PLUGIN_NAME)


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
