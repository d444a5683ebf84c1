"""Whether a quest's ``.pre-commit-config.yaml`` holds ds-gate's hooks, as ``doctor`` asks it.

The framework's hook runs what the configuration lists (``repos: []``: nothing), so it guards
only where every checked-out branch's configuration lists ds-gate's hooks, unchanged, from
ds-gate's own repository (one inside the quest or a home is the agent's: fail; a lab's mirror:
warn). The configuration is untrusted: whatever doctor cannot vouch for counts as missing, so
it can only make doctor say fail or warn, never pass.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from ds_gate.config.files import yaml_of
from ds_gate.config.settings import agent_writable
from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.layout import pre_commit_files_pattern
from ds_gate.kernel.version import HOMEPAGE

CONFIG = ".pre-commit-config.yaml"
# .pre-commit-hooks.yaml's hooks that guard (tests/acceptance/test_doctor.py checks these against it):
# id -> (entry, what is unguarded without it, whether its absence fails)
GUARDS = {
    "ds-gate-closure": ("ds-gate commit-check --no-validate", "finalization commits are not gated", True),
    "ds-gate-validate": ("ds-gate validate --checkpoint", "staged records and cards are not checked", False),
    "ds-gate-pre-push": ("ds-gate pre-push", "finalization pushes are not gated", False),
}
# what a configuration may set on a hook without changing what it checks
HARMLESS = frozenset(
    {"id", "name", "alias", "description", "verbose", "log_file", "require_serial", "minimum_pre_commit_version"}
)
LOCAL_LANGUAGES = ("python", "system")  # docs/hooks.md: a local copy of the manifest, run from the PATH's ds-gate
SNIPPET = "the snippet in docs/hooks.md (#the-pre-commit-framework)"


def _intact(repo: str, hook: dict[str, Any]) -> bool:
    """A hook entry that runs ds-gate's hook as the manifest says: from a repository, no key
    but the harmless ones; a ``repo: local`` copy, exactly the manifest's entry and filters."""
    entry, _, _ = GUARDS[hook["id"]]
    if repo != "local":
        return repo != "meta" and not set(hook) - HARMLESS
    return (
        hook.get("entry") == entry
        and hook.get("language") in LOCAL_LANGUAGES
        and not hook.get("args")
        and hook.get("files", pre_commit_files_pattern()) in ("", pre_commit_files_pattern())
        and not any(hook.get(key) for key in ("exclude", "types", "types_or", "exclude_types"))
        and _stages_keep(hook["id"], hook.get("stages"))
    )


def _stages_keep(hook_id: str, stages: Any) -> bool:
    """Stages that still run the hook where it guards (the commit, or the push); none: every stage."""
    wanted = "pre-push" if hook_id == "ds-gate-pre-push" else "pre-commit"
    return stages is None or (isinstance(stages, list) and wanted in stages)


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


def listed_guards(folder: Path, name: str = CONFIG) -> tuple[set[str], list[tuple[bool, str]], str | None]:
    """The ids of ``GUARDS`` that ``folder``'s configuration lists intact, (fails, why) for those it
    takes from a repository doctor cannot vouch for, or why the configuration cannot be read."""
    data, problem = yaml_of(folder, name)
    if problem is not None:
        return set(), [], problem
    repos = data.get("repos") if isinstance(data, dict) else None
    found: set[str] = set()
    doubts: list[tuple[bool, str]] = []
    for repo in repos if isinstance(repos, list) else []:
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        where = repo.get("repo") if isinstance(repo, dict) else None
        if not isinstance(where, str):
            continue  # no hook of a repo without a name is counted
        ids: list[str] = []
        for hook in hooks if isinstance(hooks, list) else []:
            if not isinstance(hook, dict) or hook.get("id") not in GUARDS:
                continue
            if where.strip() == "local" and "stages" not in hook:  # a local hook takes the config's default stages
                hook = {**hook, "stages": data.get("default_stages")}
            if _intact(where.strip(), hook):
                ids.append(hook["id"])
        doubt = _unvouched(where.strip(), ids, folder) if ids and where.strip() != "local" else None
        doubts += [doubt] if doubt is not None else []
        found.update(ids)  # listed: a doubt says the rest
    return found, doubts, None


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
    for folder in dict.fromkeys(folders):  # the root comes first, and again among the worktrees
        if name == CONFIG and not (folder / CONFIG).exists() and not (folder / CONFIG).is_symlink():
            continue  # a branch without the config: doctor's "pre-commit config" check says so
        found, doubts, problem = listed_guards(folder, name)
        if problem is not None:
            out.append((True, f"{folder / name}: {problem}; the framework runs none of ds-gate's hooks there"))
            continue
        out += [(fails, f"{folder / name}: {why}") for fails, why in doubts]
        for hook_id, (_, unguarded, fails) in GUARDS.items():
            if hook_id not in found:
                out.append(
                    (
                        fails,
                        f"{folder / name} does not run {hook_id} as .pre-commit-hooks.yaml defines it "
                        f"(missing, or its entry, args or stages changed): {unguarded}",
                    )
                )
    return out
