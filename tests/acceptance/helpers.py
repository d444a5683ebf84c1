"""Plain helpers for tests: git at the command line, as a researcher would type it."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def commit(cwd: Path, message: str, *paths: str) -> subprocess.CompletedProcess[str]:
    """``git add`` (everything, or ``paths``) then ``git commit``, hooks included; never raises."""
    git(cwd, "add", *(paths or ("-A",)))
    return git(cwd, "commit", "-q", "-m", message, check=False)


def head_subject(cwd: Path) -> str:
    return git(cwd, "log", "-1", "--format=%s").stdout.strip()
