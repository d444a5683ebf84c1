"""What ``-n`` (pytest-xdist) does with ``--ds-gate``: one quest runs here, many are spread by quest.

A quest is read by the process that runs its first item, and one quest cannot be split, so workers
only add their start-up. When ``-n N`` (``popen`` workers under a load mode; ``--dist each`` or
another ``--tx`` stays as asked) would start workers for a session whose paths name one quest and
that collects nothing but the gate's items, the controller takes the session back, as ``-n 0``
would: same items, outcomes, JUnit XML and exit code. It decides in the plugin's tryfirst
``pytest_configure``, after xdist's ``pytest_cmdline_main`` set ``dist``/``tx`` and before its
trylast ``pytest_configure`` starts workers, so from the file system and without collecting: every
collection arg must be a folder holding no file at all (``__pycache__`` and ``norecursedirs``
aside). Any doubt (a file, a link, an unreadable or too large folder) keeps xdist's distribution:
being wrong that way costs only speed, never a lab's tests run here.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

import pytest

LOAD_MODES = {"load", "loadscope", "loadfile", "loadgroup", "worksteal"}
LOCAL_WORKERS = re.compile(r"(\d+\*)?popen")  # what -n N gives (popen), or --tx N*popen
MAX_ENTRIES = 10_000  # a walk that sees more gives up: distribute as asked


def distributed(config: pytest.Config) -> bool:
    """Whether xdist will start workers for this session (its own test, plus ``--collect-only``,
    for which it starts none)."""
    option = config.option
    return getattr(option, "dist", "no") != "no" and bool(getattr(option, "tx", None)) and not option.collectonly


def _holds_no_file(folder: Path, skip: list[str], budget: list[int]) -> bool:
    """No file anywhere below ``folder`` outside the folders pytest does not enter; a link,
    an unreadable folder or an exhausted budget count as a file (the answer must be sure)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    budget[0] -= len(entries)
    if budget[0] < 0:
        return False
    for entry in entries:
        try:
            if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
                return False
        except OSError:
            return False
        if entry.name == "__pycache__" or any(fnmatch.fnmatch(entry.name, pattern) for pattern in skip):
            continue
        if not _holds_no_file(Path(entry.path), skip, budget):
            return False
    return True


def only_checks(config: pytest.Config) -> bool:
    """Whether the session collects nothing of its own, so its items are the gate's only.
    ``norecursedirs`` patterns naming a path (with a separator) are not applied: fewer folders
    skipped can only keep the distribution."""
    if config.option.pyargs:
        return False
    skip = [p for p in config.getini("norecursedirs") if "/" not in p and os.sep not in p]
    budget = [MAX_ENTRIES]
    for arg in config.args:
        if "::" in arg:
            return False
        path = Path(config.invocation_params.dir, arg)
        if not path.is_dir() or not _holds_no_file(path, skip, budget):
            return False
    return True


def take_back(config: pytest.Config, units: int) -> str | None:
    """Run the session in this process when ``-n`` would only add workers' start-up (``units``,
    the quests and homes the paths name, is one at most): set the options as ``-n 0`` leaves
    them, before xdist's ``pytest_configure`` reads them. The header line saying so, or None
    when xdist distributes as asked (or is not there)."""
    option = config.option
    if units > 1 or hasattr(config, "workerinput") or not distributed(config) or getattr(option, "looponfail", False):
        return None
    if option.dist not in LOAD_MODES or not all(LOCAL_WORKERS.fullmatch(str(tx)) for tx in option.tx):
        return None
    if not only_checks(config):
        return None
    workers = sum(
        int(m.group(1)[:-1]) if (m := LOCAL_WORKERS.fullmatch(str(tx))) and m.group(1) else 1 for tx in option.tx
    )
    option.dist, option.tx, option.numprocesses, option.distload = "no", [], 0, False
    return (
        f"ds-gate: only the gate's checks of one quest are collected: they run in this process, not on {workers} "
        "xdist workers (one quest is read by one process; a worker would only add its start-up)"
    )
