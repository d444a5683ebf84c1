"""The four surfaces that give a closure verdict, run as a researcher and CI run them:
``closure`` on the quest's folders, ``closure --from-git`` in a fresh ``git clone``, the
installed commit hook on a finalization commit (``quest.yaml`` ``status: completed``) and the
pre-push hook pushing that commit to a bare remote. Each gives a ``Verdict``: the exit class
and, where it rejects, the pending run ids it names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

SURFACES = ("closure", "closure --from-git (clone)", "commit hook (finalization)", "pre-push (finalization)")


@dataclass
class Verdict:
    surface: str
    exit: int  # 0 passed, 1 rejected, 2 stopped (cannot see), 3 crashed; hooks: 0 or 1/2 as their output says
    named: set[str]  # the pending run ids it names when it rejects
    output: str

    def names(self, ids: set[str]) -> bool:
        return ids <= self.named


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def _closure(path: Path, surface: str, *flags: str) -> Verdict:
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", *flags, "--format", "json", str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=path.parent,
        env=os.environ.copy(),
    )
    named: set[str] = set()  # the pending runs that fail it: a waived one is listed but does not
    try:
        named = {
            f["subject"]
            for f in json.loads(done.stdout).get("findings") or []
            if f.get("rule") == "coverage.pending-run" and not f.get("waived")
        }
    except (ValueError, TypeError, KeyError):
        pass
    return Verdict(surface, done.returncode, named, done.stdout[-3000:] + done.stderr[-3000:])


def _hook_verdict(surface: str, done: subprocess.CompletedProcess[str], candidates: set[str]) -> Verdict:
    """A hook's verdict from git's exit and the hook's output: 1 when it says REJECTED, 2
    when it refused otherwise (it stopped: cannot see), 0 when git went through."""
    output = done.stdout + done.stderr
    if done.returncode == 0:
        return Verdict(surface, 0, set(), output)
    if "Traceback" in output or "internal error" in output:
        return Verdict(surface, 3, set(), output)
    # coverage.pending-run's message, or the pending list of the review the verdict proposes
    # (one id a line, with its experiment id after `#`); not any id in a hint's payload: an
    # invalid review's re-record call lists every run it meant, covered or not
    named = {run for run in candidates if f"completed run {run} " in output or f"'{run}',  # " in output}
    return Verdict(surface, 1 if "REJECTED" in output else 2, named, output[-4000:])


def closure_folders(root: Path) -> Verdict:
    return _closure(root, SURFACES[0])


def closure_clone(root: Path, where: Path) -> Verdict:
    clone = where / "clone"
    cloned = _git(where, "clone", "-q", str(root), str(clone))
    if cloned.returncode != 0:  # git cannot clone it (a corrupt object): CI stops there, as ds-gate would
        return Verdict(SURFACES[1], 2, set(), f"git clone failed: {cloned.stderr}")
    return _closure(clone, SURFACES[1], "--from-git")


def finalize_and_push(root: Path, where: Path, candidates: set[str], by_merge: bool = False) -> tuple[Verdict, Verdict]:
    """Install the hooks, commit ``status: completed`` on the quest's main branch (the commit
    hook's verdict), make that commit anyway (``--no-verify``) and push it to a bare remote
    (the pre-push hook's verdict). ``candidates``: the run ids a hook's output may name.
    ``by_merge``: the commit is made on a branch ``final``, pushed there unchecked, and main
    merges it, so the push of main sends the merge alone."""
    remote = where / "remote.git"
    _git(where, "init", "-q", "--bare", str(remote))
    if by_merge:  # a named remote: its tracking refs say what the push of main no longer sends
        _git(root, "remote", "add", "origin", str(remote))
        _git(root, "push", "-q", "--no-verify", "origin", "HEAD:refs/heads/main")
        _git(root, "checkout", "-q", "-b", "final")
    installed = subprocess.run(
        [sys.executable, "-m", "ds_gate", "install", str(root)], capture_output=True, text=True, check=False, cwd=where
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    path = root / "quest.yaml"
    try:
        meta = yaml.safe_load(path.read_text())
    except (OSError, ValueError, RecursionError, yaml.YAMLError):
        meta = None
    if isinstance(meta, dict):
        meta["status"] = "completed"
        text = yaml.safe_dump(meta, sort_keys=False)
    else:  # a quest.yaml that does not load: the finalization is a status line added by hand
        try:
            text = path.read_text() + "\nstatus: completed\n"
        except (OSError, ValueError):
            text = "status: completed\n"
    if path.is_symlink():  # never written through a link: the file itself replaces it
        path.unlink()
    path.write_text(text)
    _git(root, "add", "quest.yaml")
    committed = _git(root, "commit", "-q", "-m", "quest: complete")
    commit = _hook_verdict(SURFACES[2], committed, candidates)
    if committed.returncode != 0:
        forced = _git(root, "commit", "-q", "--no-verify", "-m", "quest: complete")
        assert forced.returncode == 0, forced.stderr
    if by_merge:
        _git(root, "push", "-q", "--no-verify", "origin", "final")
        _git(root, "checkout", "-q", "main")
        _git(root, "commit", "-q", "--allow-empty", "--no-verify", "-m", "main moves on")
        merged = _git(root, "merge", "-q", "--no-ff", "--no-verify", "-m", "merge final", "final")
        assert merged.returncode == 0, merged.stdout + merged.stderr
    pushed = _git(root, "push", "-q", "origin" if by_merge else str(remote), "HEAD:refs/heads/main")
    return commit, _hook_verdict(SURFACES[3], pushed, candidates)


def all_four(root: Path, where: Path, candidates: set[str], by_merge: bool = False) -> list[Verdict]:
    where.mkdir(parents=True, exist_ok=True)
    first = [closure_folders(root), closure_clone(root, where)]
    return [*first, *finalize_and_push(root, where, candidates, by_merge)]
