"""Issue 27: the sdist is enough to run the tests. Every top-level file or folder of the
repository that a test reads (``REPO / "bench"`` …) ships in the sdist, so the suite runs from
an unpacked sdist (``.ci/package`` does it) instead of failing on what was left out."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from helpers import REPO

pytestmark = pytest.mark.slow  # builds the sdist with hatchling, in a process of its own

TESTS = Path(__file__).resolve().parents[1]


def read_by_tests() -> set[str]:
    """The repository's top-level names the tests reach through ``REPO / "name"``."""
    names = set()
    for path in TESTS.rglob("*.py"):
        if path == Path(__file__).resolve():
            continue  # its own pattern is not a name
        names.update(re.findall(r'REPO / "([^"/]+)', path.read_text()))
    return names


def test_the_sdist_ships_what_the_tests_read(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        shipped = {Path(name).parts[1] for name in archive.getnames() if len(Path(name).parts) > 1}
    needed = (read_by_tests() - {".git"}) | {
        "tests",
        "pyproject.toml",
        "LICENSE",
    }  # a test asking for .git copes without
    assert {"bench", "eval", "README.md"} <= needed  # the scan finds what it must
    assert needed <= shipped, (
        f"left out of the sdist: {sorted(needed - shipped)} (pyproject: [tool.hatch.build.targets.sdist] include)"
    )
