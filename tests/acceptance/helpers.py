"""Plain helpers for tests: git at the command line, as a researcher would type it."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def add_remote(repo: Path, remote: Path) -> Path:
    """A bare repository at ``remote``, added to ``repo`` as ``origin`` (where a push goes)."""
    git(remote.parent, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    return remote


def commit(cwd: Path, message: str, *paths: str) -> subprocess.CompletedProcess[str]:
    """``git add`` (everything, or ``paths``) then ``git commit``, hooks included; never raises."""
    git(cwd, "add", *(paths or ("-A",)))
    return git(cwd, "commit", "-q", "-m", message, check=False)


def head_subject(cwd: Path) -> str:
    return git(cwd, "log", "-1", "--format=%s").stdout.strip()


def readme_ci_steps() -> list[str]:
    """The GitHub Actions ``run:`` steps of the CI page (``docs/ci.md``, where the README's
    recipe moved) as written, each without its install part (this environment's has ds-gate
    and pytest), the install of ds-gate left out."""
    import re

    page = (REPO / "docs" / "ci.md").read_text()
    recipe = page.split("A GitHub Actions job:", 1)[1].split("```", 2)[1]
    assert "fetch-depth: 0" in recipe
    steps = [m.strip() for m in re.findall(r"- run: (.+)", recipe) if not m.startswith('pip install "ds-gate @ git+')]
    return [step.removeprefix("pip install pytest && ").split(" #", 1)[0].strip() for step in steps]


def readme_pre_commit_config() -> str:
    """The ``.pre-commit-config.yaml`` snippet of the hooks page (``docs/hooks.md``), as written."""
    page = (REPO / "docs" / "hooks.md").read_text()
    return page.split("## The pre-commit framework", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]


def run_step(command: str, cwd: Path, tmp: Path) -> subprocess.CompletedProcess[str]:
    """A recipe step in a shell at ``cwd``, as CI runs it; ``mktemp`` makes its folders in ``tmp``."""
    import os

    return subprocess.run(
        command, shell=True, cwd=cwd, capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmp)}
    )


def readme_pytest_block() -> str:
    """The shell block of the pytest page (``docs/pytest.md``), as written."""
    page = (REPO / "docs" / "pytest.md").read_text()
    section = page.split("# In CI with pytest", 1)[1]
    return section.split("```sh\n", 1)[1].split("```", 1)[0]


def _names(stderr: str) -> set[str]:
    return {line.split("|")[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


@functools.cache
def _start_up() -> frozenset[str]:
    """What this interpreter imports before any code runs (``site``, and whatever a site
    ``.pth`` file loads, e.g. certifi's): not charged to ds-gate."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True, check=True
    )
    return frozenset(_names(done.stderr))


def imported_modules(stderr: str) -> set[str]:
    """The modules an ``-X importtime`` (or ``PYTHONPROFILEIMPORTTIME``) trace shows imported,
    less those the interpreter's own start-up imports."""
    return _names(stderr) - _start_up()


def pytest_ds_gate(cwd: Path, targets: list[Path], xml: Path) -> subprocess.CompletedProcess[str]:
    """``pytest --ds-gate=T ... --junitxml=XML`` as a CI job runs it: in an empty folder (``cwd``), no
    conftest, so only the plugin's items are collected."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--noconftest",
            "--rootdir=.",
            *(f"--ds-gate={target}" for target in targets),
            f"--junitxml={xml}",
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
