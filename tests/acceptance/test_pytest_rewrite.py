"""pytest does not rewrite the assertions of ds-gate's own modules, installed editable or as a wheel.

pytest marks for rewriting the package of a ``pytest11`` entry point (editable installs) or
every top-level package a distribution's files name (wheels); a marked module is loaded by
pytest's ``AssertionRewritingHook`` (its ``__loader__``). The entry point is
``ds_gate_pytest``, a module outside the package, which takes ``ds_gate``'s mark back.
Every run is a subprocess, so each session imports ds-gate afresh.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ds_gate

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys

from _pytest.assertion.rewrite import AssertionRewritingHook


def test_no_module_of_ds_gate_is_rewritten():
    ours = {name: module for name, module in sys.modules.items() if name == "ds_gate" or name.startswith("ds_gate.")}
    assert "ds_gate.pytest.items" in ours and "ds_gate.engine.gate" in ours and len(ours) > 50
    rewritten = sorted(name for name, module in ours.items()
                       if isinstance(getattr(module, "__loader__", None), AssertionRewritingHook))
    print("REWRITTEN", len(rewritten), "OF", len(ours), "FROM", sys.modules["ds_gate"].__file__)
    assert rewritten == []
"""


@pytest.fixture
def session(pytester, make_quest):
    """A quest and a lab test that inspects, after the gate has run, how ds-gate's modules were loaded."""
    quest = make_quest()
    quest.run(quest.root, "main-001")
    pytester.makepyfile(test_probe=PROBE)
    return quest


def test_the_installed_ds_gate_rewrites_no_module_of_its_own(pytester, session) -> None:
    """The ds-gate this suite runs with: an editable install in development, a regular one in CI."""
    result = pytester.runpytest_subprocess(
        f"--ds-gate={session.root}", "test_probe.py", "-rA", "-s", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=4, failed=1)  # the quest's coverage fails; the probe passes
    assert "PASSED test_probe.py::test_no_module_of_ds_gate_is_rewritten" in result.stdout.str()
    assert f"FROM {Path(ds_gate.__file__)}" in result.stdout.str()


def test_a_wheel_install_rewrites_no_module_of_ds_gate(pytester, session, tmp_path, monkeypatch) -> None:
    """A wheel lists ``ds_gate/__init__.py``, so pytest marks the package itself: the entry point
    unmarks it. The wheel, built offline, is installed into a folder put first on the path,
    so its copy of ds-gate (and of the entry point) is the one the session loads."""
    wheels, target = tmp_path / "wheels", tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    wheel = next(wheels.glob("ds_gate-*.whl"))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert (target / "ds_gate_pytest.py").is_file() and (target / "ds_gate" / "__init__.py").is_file()
    monkeypatch.setenv("PYTHONPATH", str(target))  # for this test only: later tests' processes must not see it
    result = pytester.runpytest_subprocess(
        f"--ds-gate={session.root}", "test_probe.py", "-rA", "-s", "-p", "no:cacheprovider"
    )
    assert f"FROM {target / 'ds_gate' / '__init__.py'}" in result.stdout.str()
    assert "PASSED test_probe.py::test_no_module_of_ds_gate_is_rewritten" in result.stdout.str(), result.stdout.str()
