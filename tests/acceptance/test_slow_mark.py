"""The ``slow`` mark is kept honest: conftest.py fails a test that starts a Python process
without it, so ``pytest -m "not slow"`` (the contributor's fast run) stays fast as tests
are added. Run here in a pytest session of its own, with the suite's own conftest."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).parents[1] / "conftest.py"
SPAWN = "import subprocess, sys\n\n{mark}def test_spawns():\n    subprocess.run([sys.executable, '-c', 'pass'], check=True)\n"


@pytest.mark.parametrize(("mark", "passes"), [("", False), ("@pytest.mark.slow\n", True)])
def test_a_test_starting_python_must_be_marked_slow(pytester: pytest.Pytester, mark: str, passes: bool) -> None:
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(test_spawn=f"import pytest\n{SPAWN.format(mark=mark)}")
    pytester.makeini("[pytest]\nmarkers =\n    slow: starts a Python process\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    if passes:
        result.assert_outcomes(passed=1)
    else:
        result.assert_outcomes(passed=1, errors=1)
        result.stdout.fnmatch_lines(["*starts python* (a Python process): mark it @pytest.mark.slow*"])


def test_a_test_starting_only_git_needs_no_mark(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(
        test_git="import subprocess\n\ndef test_git():\n    subprocess.run(['git', '--version'], check=True)\n"
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
