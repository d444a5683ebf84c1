"""Whether a quest's ``.pre-commit-config.yaml`` holds ds-gate's hooks, as ``doctor`` asks it.

The framework's hook runs what the configuration lists (``repos: []``: nothing), so it guards
only where every checked-out branch's configuration lists ds-gate's hooks, unchanged (each
field read as pre-commit reads it: ``doctor_hook_fields``), from ds-gate's own repository or as a
``repo: local`` copy (a repository inside the quest or a home is the agent's: fail; a lab's
mirror: warn). The configuration is untrusted: whatever doctor cannot vouch for counts as missing, so
it can only make doctor say fail or warn, never pass.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any, NamedTuple

from ds_gate.config.files import yaml_of
from ds_gate.config.settings import agent_writable
from ds_gate.kernel.errors import shown
from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.version import HOMEPAGE
from ds_gate.setup.doctor_hook_fields import hook_findings

CONFIG = ".pre-commit-config.yaml"
# .pre-commit-hooks.yaml's hooks that guard (doctor_hook_fields.MANIFEST: what each runs):
# id -> (what is unguarded without it, whether its absence fails)
GUARDS = {
    "ds-gate-closure": ("finalization commits are not gated", True),
    "ds-gate-validate": ("staged records and cards are not checked", False),
    "ds-gate-pre-push": ("finalization pushes are not gated", False),
}
SNIPPET = "the snippet in docs/hooks.md (#the-pre-commit-framework)"


def _local_path(repo: str, folder: Path) -> Path | None:
    """The folder ``repo`` names on this machine (a path, ``file://``), or None (a URL, ``host:path``)."""
    if repo.startswith("file://"):
        repo = repo[len("file://") :]
    elif "://" in repo or ":" in repo.partition("/")[0]:
        return None
    return Path(os.path.realpath(folder / os.path.expanduser(repo)))


def _unvouched(repo: str, ids: list[str], folder: Path) -> tuple[bool, str] | None:
    """(fails, why) for a hook taken from ``repo`` rather than ds-gate's own address; None: ds-gate's.
    A repository inside the quest or a home is the agent's: fail. Elsewhere (a lab's mirror) doctor
    cannot read what it runs: warn, never ok in silence."""
    if repo.rstrip("/").removesuffix(".git") == HOMEPAGE:
        return None
    path = _local_path(repo, folder)
    if path is None:
        where = None
    else:
        where = f"the quest {folder}" if is_inside(Path(os.path.realpath(folder)), path) else agent_writable(path)
    if where is not None:
        return True, (
            f"{', '.join(ids)} come{'s' if len(ids) == 1 else ''} from {repo}, a repository inside "
            f"{where}, which the quest's agent can write (its hooks may run anything, `true` included)"
        )
    return False, (
        f"doctor cannot vouch for what {repo} runs as {', '.join(ids)}; a lab mirror: check its "
        f".pre-commit-hooks.yaml against ds-gate's ({HOMEPAGE})"
    )


class Listed(NamedTuple):
    """What a configuration holds of ``GUARDS``: the ids it runs as ds-gate's hooks, (fails, why)
    for what doctor cannot vouch for beside them, and for each id it changes, each field that
    makes pre-commit run something else (or nothing)."""

    found: set[str]
    doubts: list[tuple[bool, str]]
    changed: dict[str, list[str]]
    aliases: set[str]


def listed_guards(folder: Path, name: str = CONFIG) -> Listed | str:
    """What ``folder``'s configuration lists of ``GUARDS``, or why it cannot be read."""
    data, problem = yaml_of(folder, name)
    if problem is not None:
        return problem
    top = data if isinstance(data, dict) else {}
    repos = top.get("repos")
    listed = Listed(set(), [], {}, set())
    later: list[str] = []  # hooks that run after an intact ds-gate-closure, at the commit
    for repo in repos if isinstance(repos, list) else []:
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        where = repo.get("repo") if isinstance(repo, dict) else None
        if not isinstance(where, str) or where.strip() == "meta":
            continue  # no hook of a repo without a name, nor a meta hook (pre-commit's own), is counted
        local = where.strip() == "local"
        ids: list[str] = []
        for hook in hooks if isinstance(hooks, list) else []:
            hook_id = hook.get("id") if isinstance(hook, dict) else None
            findings = (
                hook_findings(hook_id, hook, top, local) if isinstance(hook_id, str) and hook_id in GUARDS else None
            )
            if findings is None or any(fails for fails, _ in findings):
                if isinstance(hook_id, str) and findings is not None:
                    listed.changed.setdefault(hook_id, []).extend(why for fails, why in findings if fails)
                if "ds-gate-closure" in listed.found | set(ids) and _at_commit(hook, top, local):
                    later.append(f"{shown(hook_id)} ({where})")
                continue
            assert isinstance(hook_id, str) and isinstance(hook, dict)
            ids.append(hook_id)
            listed.doubts.extend((False, f"{hook_id}: {why}") for _, why in findings)
            listed.aliases.update({hook_id, hook["alias"]} if isinstance(hook.get("alias"), str) else {hook_id})
        doubt = _unvouched(where.strip(), ids, folder) if ids and not local else None
        listed.doubts.extend([doubt] if doubt is not None else [])
        listed.found.update(ids)  # listed: a doubt says the rest
    if later:
        listed.doubts.append(
            (
                False,
                f"{', '.join(later)} run{'s' if len(later) == 1 else ''} after ds-gate-closure on a commit: a hook there "
                "can stage files the gate never judged (`git add` of the paper bundle), and doctor cannot tell what it "
                "does (fix: list ds-gate's hooks last, as ds-gate's own hook runs a chained hook first)",
            )
        )
    return listed


def _at_commit(hook: object, top: dict[str, Any], local: bool) -> bool:
    """Whether pre-commit may run ``hook`` on a commit: its ``stages`` (a hook from a repository
    that sets none takes its manifest's, which doctor cannot read: it may)."""
    stages = hook.get("stages") if isinstance(hook, dict) else None
    if stages is None and not local and isinstance(hook, dict) and hook.get("id") == "ds-gate-closure-full":
        stages = ["manual"]  # .pre-commit-hooks.yaml's (tests/acceptance/test_blind_spots.py holds it)
    if stages in (None, []) and (local or stages == []):
        stages = top.get("default_stages")
    if not isinstance(stages, list) or not stages:
        return True
    return bool({"pre-commit", "commit"} & {s for s in stages if isinstance(s, str)})


def config_name(hook_text: str) -> str:
    """The configuration the framework's hook script reads (``pre-commit install -c FILE`` writes
    ``--config=FILE`` into it), relative to the committing worktree."""
    for line in hook_text.splitlines():
        if line.startswith("ARGS=("):
            try:
                words = shlex.split(line[len("ARGS=(") :].rstrip(")"))
            except ValueError:
                return line  # unreadable: no such file, so doctor fails
            return next((w.partition("=")[2] for w in words if w.startswith("--config=")), CONFIG)
    return CONFIG


def config_problems(folders: list[Path], name: str = CONFIG) -> list[tuple[bool, str]]:
    """(fails, message) for each guard a checked-out configuration (``name``) lacks or changes."""
    out: list[tuple[bool, str]] = []
    aliases: set[str] = set()
    for folder in dict.fromkeys(folders):  # the root comes first, and again among the worktrees
        if name == CONFIG and not (folder / CONFIG).exists() and not (folder / CONFIG).is_symlink():
            continue  # a branch without the config: doctor's "pre-commit config" check says so
        listed = listed_guards(folder, name)
        if isinstance(listed, str):
            out.append((True, f"{folder / name}: {listed}; the framework runs none of ds-gate's hooks there"))
            continue
        out += [(fails, f"{folder / name}: {why}") for fails, why in dict.fromkeys(listed.doubts)]
        aliases |= listed.aliases
        for hook_id, (unguarded, fails) in GUARDS.items():
            if hook_id in listed.changed and hook_id not in listed.found:
                fields = "; ".join(dict.fromkeys(listed.changed[hook_id]))
                out.append(
                    (
                        fails,
                        f"{folder / name}: pre-commit runs {hook_id} otherwise than ds-gate's hook: {fields}: {unguarded}",
                    )
                )
            elif hook_id not in listed.found:
                out.append(
                    (
                        fails,
                        f"{folder / name} does not list {hook_id} (from ds-gate's repository, or a `repo: local` copy of .pre-commit-hooks.yaml's): {unguarded}",
                    )
                )
    skipped = sorted(aliases & {s.strip() for s in os.environ.get("SKIP", "").split(",")})
    if skipped:
        out.append(
            (
                False,
                f"SKIP={os.environ['SKIP']} is set: where the framework runs, it skips {', '.join(skipped)} (fix: unset SKIP)",
            )
        )
    return out
