"""Plain helpers for tests: git at the command line, as a researcher would type it."""

from __future__ import annotations

import functools
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

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


class McpLines:
    """``ds-gate mcp`` over raw JSON-RPC lines (what no SDK client sends), each answer read with a
    timeout, so a silent server fails the test instead of hanging it. ``first``: a line sent before
    ``initialize``, which the server refuses (-32600) and carries on."""

    WAIT = 20.0

    def __init__(self, cwd: Path, env: dict[str, str] | None = None, first: bytes | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ds_gate", "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **(env or {})},
        )
        self.answers: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        if first is not None:
            self.send(first)
            assert self.receive()["error"]["code"] == -32600
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        assert self.receive()["id"] == 0
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.put(line)

    def send(self, message: dict[str, Any] | bytes) -> None:
        """A message as JSON, or a line's bytes as they are (a newline added where they lack one)."""
        assert self.proc.stdin is not None
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(line if line.endswith(b"\n") else line + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        try:
            return dict(json.loads(self.answers.get(timeout=self.WAIT)))
        except queue.Empty:
            raise AssertionError(f"no answer in {self.WAIT} s") from None

    def close(self) -> str:
        """Close the server's input; it exits 0, and this is what it wrote on stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0
        return self.proc.stderr.read().decode()


BASELINE_REASON = "finished before we adopted the gate"


def baseline(config: Path, root: Path, what: str, reason: str = BASELINE_REASON) -> None:
    """A trusted file (``config``) holding one baseline for the quest at ``root``: ``what`` is its
    ``commit: ...`` or ``before: ...`` line."""
    config.write_text(f"baselines:\n  - quest: {root}\n    {what}\n    reason: {reason}\n")
