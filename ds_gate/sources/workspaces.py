"""Which folders are a quest's workspaces: the root, every worktree git registers, every folder
under ``.ds/worktrees/``, and the research head ``.ds/research_state.json`` names, as
DeepScientist's collector walks them; each inside the quest, each once.

A workspace that cannot be entered, is gone, or lies outside the quest is a finding, never a
silent skip: closure stops where it cannot see.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.fs import is_inside
from ds_gate.model.findings import Finding
from ds_gate.model.records import Workspace
from ds_gate.sources.fixes import first_link, outside_fix
from ds_gate.sources.location import Location, linked_outside
from ds_gate.sources.problems import (
    ARTIFACT_UNREADABLE,
    QUEST_RESEARCH_STATE_INVALID,
    WORKSPACE_OUTSIDE_QUEST,
    symlink_outside,
)
from ds_gate.sources.registered import stray_finding


def _rebase_stale(root: Path, stale: str) -> Path | None:
    """A path recorded before the quest moved: keep its ``.ds/worktrees/<slug>`` tail."""
    parts = Path(stale).parts
    for i in range(len(parts) - 3, -1, -1):
        if parts[i] == ".ds" and parts[i + 1] == "worktrees":
            return root.joinpath(*parts[i : i + 3])
    return None


def discover_workspaces(loc: Location) -> tuple[list[Workspace], list[Finding]]:
    root = loc.root
    findings: list[Finding] = []
    candidates: list[tuple[Path, str | None, str]] = [(root, None, "quest root")]
    for reg in loc.registered:
        wt = reg.path
        if reg.unlike is not None:  # its commits are read from git objects (``sources.select``)
            findings.append(stray_finding(root, reg))
            real = Path(os.path.realpath(wt))
            if not fs.is_dir(wt) or (real != wt and is_inside(root, real)):
                continue  # gone, a file, or a link inside the quest: never followed
            # a real folder (read as it is, besides) or a link out of the quest (which stops)
        elif _unenterable(wt):
            findings.append(
                ARTIFACT_UNREADABLE.at(
                    None,
                    f"cannot enter the registered worktree {wt}: {_unenterable(wt)}; its artifacts are not read",
                    hint="check the folder's permissions; ds-gate only reads it",
                )
            )
            continue
        candidates.append((wt, reg.branch if reg.unlike is None else None, "registered worktree"))
    wt_dir = root / ".ds" / "worktrees"
    try:
        folders = sorted(entry.path for entry in os.scandir(wt_dir) if entry.is_dir())
    except FileNotFoundError:
        folders = []
    except OSError as exc:
        folders = []
        findings.append(
            ARTIFACT_UNREADABLE.at(
                None,
                f"cannot list {wt_dir.relative_to(root).as_posix()}: {exc.strerror}; worktrees there are not read",
                hint="check the folder's permissions; ds-gate only reads it",
            )
        )
    candidates.extend((Path(p), None, "folder under .ds/worktrees") for p in folders)
    head = _research_head(root, findings)
    if head is not None:
        candidates.append((head, None, "research_head_worktree_root"))

    seen: dict[Path, int] = {}
    workspaces: list[Workspace] = []
    for path, branch, origin in candidates:
        resolved = path.resolve()
        if not is_inside(root, resolved):
            findings.append(
                WORKSPACE_OUTSIDE_QUEST.at(
                    None,
                    f"{origin} {path} lies outside the quest folder; its artifacts are not read",
                    hint=outside_fix(root, path, origin),
                )
            )
            continue
        if resolved in seen:
            index = seen[resolved]
            if branch and workspaces[index].branch is None:
                workspaces[index] = Workspace(workspaces[index].path, workspaces[index].rel, branch)
            continue
        rel = resolved.relative_to(root).as_posix() or "."
        seen[resolved] = len(workspaces)
        workspaces.append(Workspace(path=resolved, rel=rel, branch=branch))
    workspaces[1:] = sorted(workspaces[1:], key=lambda ws: ws.rel)
    return workspaces, findings


def _research_head(root: Path, findings: list[Finding]) -> Path | None:
    path = root / ".ds" / "research_state.json"
    try:
        target = linked_outside(root, path)
    except OSError as exc:  # .ds cannot be entered
        findings.append(
            QUEST_RESEARCH_STATE_INVALID.at(
                ".ds/research_state.json", f"cannot read .ds: {exc.strerror}; research_head_worktree_root ignored"
            )
        )
        return None
    if target is not None:
        link = first_link(root, path)  # the file, or .ds itself
        findings.append(
            symlink_outside(  # DeepScientist follows it: the research head it names is unseen
                link.relative_to(root).as_posix(),
                os.path.realpath(link),
                kind="file" if link == path else "folder",
                what="the research state (it names research_head_worktree_root)",
            )
        )
        return None
    try:
        state = json.loads(fs.read_file(path))  # never a FIFO, never past the size limit
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:
        findings.append(
            QUEST_RESEARCH_STATE_INVALID.at(
                ".ds/research_state.json",
                f"cannot read research_state.json ({exc}); research_head_worktree_root ignored",
            )
        )
        return None
    head = state.get("research_head_worktree_root") if isinstance(state, dict) else None
    if not isinstance(head, str) or not head.strip():
        return None
    candidate = Path(head) if os.path.isabs(head) else root / head
    if fs.is_dir(candidate):
        return candidate
    rebased = _rebase_stale(root, head)
    return rebased if rebased is not None and fs.is_dir(rebased) else None


def _unenterable(path: Path) -> str | None:
    """Why a folder that exists cannot be listed (permissions), or None."""
    try:
        os.scandir(path).close()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    return None
