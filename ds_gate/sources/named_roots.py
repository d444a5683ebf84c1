"""The workspace roots ``.ds/research_state.json`` names, read as DeepScientist main reads them,
and where each lies: the one place closure, the commit hook and the pre-push hook ask.

main writes a record into ``active_workspace_root`` (``current_workspace_root``, else
``research_head_worktree_root``, else the quest) and the paper bundle into its ``paper/``
(``artifact/service.py`` ``_workspace_root_for``, ``_paper_root``); its baseline reader takes
``analysis_parent_worktree_root`` and ``paper_parent_worktree_root`` as workspace roots too. Each
value is read as main reads it, ``str(value or "").strip()`` made a ``Path`` and used only when
it exists; main writes the absolute path of a worktree under ``.ds/worktrees/``, but the file is
the agent's to write, so a root may be any folder.

A root is *read* when it lies inside the quest, reached without a symbolic link below the quest's
own folder (a home reached through a link is the quest's own spelling). Any other root main would
use is *unseen*: it leads out of the quest, through a link inside it, or is relative (main reads a
relative path from its own working folder, DeepScientist's installation, which ds-gate cannot
know). An unseen root stops closure, finalization commits and the pre-push gate (exit 2): the
runs main records there, and the paper bundle it writes there, are not read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from ds_gate.kernel.errors import shown
from ds_gate.kernel.finalizing import as_python_reads
from ds_gate.kernel.fs import is_inside, read_file
from ds_gate.kernel.layout import MANIFEST, RESEARCH_STATE
from ds_gate.model.findings import Finding
from ds_gate.sources.problems import WORKSPACE_OUTSIDE_QUEST

# in the order main's active_workspace_root asks them, then the parents its baseline reader adds
ROOT_KEYS = (
    "current_workspace_root",
    "research_head_worktree_root",
    "analysis_parent_worktree_root",
    "paper_parent_worktree_root",
)
OUTSIDE, LINKED, RELATIVE = "outside", "link", "relative"


@dataclass(frozen=True)
class NamedRoot:
    """One root ``research_state.json`` names: ``path`` the folder it leads to (real, absolute)
    when it is read; else ``unseen`` says why not (``OUTSIDE``, ``LINKED``, ``RELATIVE``) and
    ``where`` names the place (the link, or the folder out of the quest)."""

    key: str
    value: str
    path: str | None = None
    unseen: str | None = None
    where: str | None = None


def state_values(raw: bytes | None) -> list[tuple[str, str]]:
    """(key, value) of each root key ``research_state.json``'s bytes name, as main reads the
    file (``json.loads``; not JSON or no object: main takes its defaults, which name none) and
    each value (``str(value or "").strip()``: a number or a list is named by its text)."""
    data = as_python_reads(raw) if raw is not None else None
    if not isinstance(data, dict):
        return []
    out = []
    for key in ROOT_KEYS:
        value = str(data.get(key) or "").strip()
        if value:
            out.append((key, value))
    return out


def locate_root(quest_root: str, key: str, value: str) -> NamedRoot | None:
    """Where ``value`` leads, walked as the system walks it (``..`` after a link is the link
    target's parent); None when nothing is there (main ignores a root that does not exist)."""
    if not os.path.isabs(value):
        return NamedRoot(key, value, unseen=RELATIVE, where=value)
    root = os.path.realpath(quest_root)
    cur = "/"
    for part in value.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            cur = os.path.dirname(cur)
            continue
        step = os.path.join(cur, part)
        try:
            mode = os.lstat(step).st_mode
        except OSError:
            return None  # absent (or not a folder on the way): main's Path.exists() is False
        if stat.S_ISLNK(mode):
            target = os.path.realpath(step)
            if is_inside(root, cur) or (is_inside(root, target) and target != root):
                return NamedRoot(key, value, unseen=LINKED, where=step)  # a link below the quest's folder
            if not os.path.exists(target):
                return None
            cur = target
        else:
            cur = step
    if not is_inside(root, cur):
        return NamedRoot(key, value, unseen=OUTSIDE, where=cur)
    return NamedRoot(key, value, path=cur) if os.path.isdir(cur) else None


def named_roots(quest_root: str, raw: bytes | None) -> list[NamedRoot]:
    """Each root ``research_state.json`` (its bytes ``raw``) names that main would use, once per key."""
    found = (locate_root(quest_root, key, value) for key, value in state_values(raw))
    return [root for root in found if root is not None]


def nested_manifests(quest_root: str, top: str, roots: list[NamedRoot]) -> tuple[str, ...]:
    """The paths, relative to the workspace ``top`` (a commit's or a push's), where main writes
    the paper bundle manifest of each read root that lies below ``top`` (``top`` itself is the
    workspace's own ``paper/``, known already)."""
    real_top = os.path.realpath(top)
    out = []
    for root in roots:
        if root.path is None or root.path == real_top or not is_inside(real_top, root.path):
            continue
        rel = os.path.relpath(root.path, real_top).replace(os.sep, "/")
        out.append(f"{rel}/{MANIFEST}")
    return tuple(dict.fromkeys(out))


def hook_roots(quest_root: str, top: str, committed: bytes | None) -> tuple[tuple[str, ...], list[NamedRoot]]:
    """For a commit or a push from the workspace ``top``: the manifests of the read roots below
    it (``nested_manifests``), and the roots main would use that are unseen. Both copies of
    ``research_state.json`` count: the quest's own, which main reads now (never through a link
    out of the quest: closure stops on that), and ``committed``, the staged or pushed one."""
    path = os.path.join(quest_root, RESEARCH_STATE)
    try:
        here = read_file(path) if is_inside(os.path.realpath(quest_root), os.path.realpath(path)) else None
    except OSError:
        here = None
    roots = {(r.key, r.value): r for raw in (here, committed) for r in named_roots(quest_root, raw)}
    found = list(roots.values())
    return nested_manifests(quest_root, top, found), [r for r in found if r.unseen is not None]


def unseen_text(root: NamedRoot) -> str:
    """Why main's root is not read, as a stop and a finding say it."""
    said = f"{root.key} {shown(root.value, 120)} in .ds/research_state.json"
    if root.unseen == RELATIVE:
        return (
            f"{said} is a relative path, which DeepScientist reads from its own working folder, not the quest: "
            "what it names cannot be seen"
        )
    if root.unseen == LINKED:
        return (
            f"{said} leads through the symbolic link {root.where}: never followed, so what main writes there is unseen"
        )
    return f"{said} leads to {root.where}, outside the quest folder: never read, so what main writes there is unseen"


def root_fix(root: NamedRoot) -> str:
    """The one change that lets the gate read what main writes at ``root``."""
    if root.unseen == LINKED:
        return (
            f"replace the link {root.where} with the folder itself, or point {root.key} in .ds/research_state.json "
            "at a worktree under .ds/worktrees/ (an absolute path), or remove the key"
        )
    return (
        f"point {root.key} in .ds/research_state.json at a folder inside the quest, as an absolute path "
        "(DeepScientist keeps its worktrees under .ds/worktrees/), or remove the key"
    )


def unseen_finding(root: NamedRoot) -> Finding:
    """The finding closure stops on (``engine.unseen.refuse_unseen``): ``workspace.outside-quest``."""
    return WORKSPACE_OUTSIDE_QUEST.at(None, unseen_text(root), hint=root_fix(root))
