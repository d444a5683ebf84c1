"""Where a quest is, what its ``quest.yaml`` says, and which folders are its workspaces.

Any path inside a quest (its root, a worktree, a subfolder) leads to the root through
git: ``git worktree list`` names the main worktree first, derived from the common dir.
When git cannot answer (a quest folder that was moved breaks its worktrees' ``.git``
links; git missing; a quest copied without ``.git``) the folder layout still can:
``<root>/.ds/worktrees/<slug>`` and ``<root>/quest.yaml``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ds_gate.model import INFO, WARNING, Finding, QuestError, Workspace
from ds_gate.sources.gitio import GitError, git


def is_inside(root: Path, path: Path) -> bool:
    """True when resolved ``path`` is ``root`` or below it (both already resolved)."""
    try:
        return os.path.commonpath([root, path]) == str(root)
    except ValueError:  # different drives
        return False


@dataclass(slots=True)
class Location:
    root: Path
    top: Path  # the workspace the given path lies in
    is_git: bool
    registered: list[tuple[Path, str | None, bool]] = field(default_factory=list)  # path, branch, prunable
    findings: list[Finding] = field(default_factory=list)


def _worktree_list(path: Path) -> list[tuple[Path, str | None, bool, bool]]:
    """Parse ``git worktree list --porcelain``: (path, branch, prunable, bare), main first."""
    out = git(["worktree", "list", "--porcelain"], path).decode("utf-8", "surrogateescape")
    entries: list[tuple[Path, str | None, bool, bool]] = []
    for block in out.split("\n\n"):
        wt: Path | None = None
        branch: str | None = None
        prunable = bare = False
        for line in block.splitlines():
            key, _, value = line.partition(" ")
            if key == "worktree":
                wt = Path(value)
            elif key == "branch":
                branch = value.removeprefix("refs/heads/")
            elif key == "prunable":
                prunable = True
            elif key == "bare":
                bare = True
        if wt is not None:
            entries.append((wt, branch, prunable, bare))
    return entries


def _folder_root(path: Path) -> Path | None:
    parts = path.parts
    for i in range(len(parts) - 3, 0, -1):
        if parts[i] == ".ds" and parts[i + 1] == "worktrees":
            return Path(*parts[:i])
    for candidate in (path, *path.parents):
        if (candidate / "quest.yaml").is_file():
            return candidate
    return None


def locate(path: Path | str) -> Location:
    start = Path(path).expanduser()
    if not start.exists():
        raise QuestError(f"{start}: no such file or directory")
    start = start.resolve()
    if start.is_file():
        start = start.parent
    try:
        entries = _worktree_list(start)
    except GitError as exc:
        return _locate_by_folders(start, exc)
    if not entries or entries[0][3]:
        raise QuestError(f"{start}: a bare git repository is not a quest (no working tree)")
    root = entries[0][0].resolve()
    loc = Location(root=root, top=root, is_git=True)
    for wt, branch, prunable, _ in entries[1:]:
        loc.registered.append((wt, branch, prunable))
    # the workspace holding `start`: the deepest worktree that contains it
    best = root
    for wt, _, _, _ in entries:
        if wt.exists():
            resolved = wt.resolve()
            if is_inside(resolved, start) and len(resolved.parts) > len(best.parts):
                best = resolved
    loc.top = best
    if not (root / "quest.yaml").is_file():
        nested = _folder_root(start)
        if nested is not None and nested != root and is_inside(root, nested):
            raise QuestError(
                f"{start}: the quest at {nested} is inside the git repository {root} but is not its root; "
                "ds-gate expects each quest to be its own git repository (as DeepScientist creates it)"
            )
    return loc


def _locate_by_folders(start: Path, error: GitError) -> Location:
    root = _folder_root(start)
    if root is None:
        raise QuestError(f"{start} is not inside a quest: git says '{error}' and no quest.yaml was found above it")
    loc = Location(root=root.resolve(), top=start, is_git=False)
    try:
        entries = _worktree_list(loc.root)
        loc.is_git = True
        loc.registered = [(wt, branch, prunable) for wt, branch, prunable, _ in entries[1:]]
    except GitError as root_error:
        loc.findings.append(
            Finding(
                rule="quest.not-git",
                severity=WARNING,
                path=None,
                message=f"git cannot read the quest ({root_error}); workspaces were found from folders only",
                hint="registered worktrees outside .ds/worktrees/ are not visible; run ds-gate where git works",
            )
        )
    wt_parts = start.relative_to(loc.root).parts if is_inside(loc.root, start) else ()
    if len(wt_parts) >= 3 and wt_parts[:2] == (".ds", "worktrees"):
        loc.top = loc.root.joinpath(*wt_parts[:3])
    else:
        loc.top = loc.root
    return loc


# ---------------------------------------------------------------- quest.yaml


def yaml_loader() -> Any:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> Any:
    """Safe YAML only: tags such as ``!!python/object`` raise instead of constructing."""
    import yaml

    return yaml.load(text, Loader=yaml_loader())  # noqa: S506 - a SafeLoader


def read_quest_yaml(root: Path) -> tuple[dict[str, Any], list[Finding]]:
    path = root / "quest.yaml"
    try:
        if path.exists() and not path.is_file():
            raise OSError("not a regular file")
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}, [
            Finding(
                rule="quest.no-quest-yaml",
                severity=WARNING,
                path="quest.yaml",
                message="the quest root has no quest.yaml; experience_distill and recall_priors count as off",
                hint="run ds-gate on a DeepScientist quest root, or pass --require to enforce the gate anyway",
            )
        ]
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [_quest_yaml_finding(f"quest.yaml cannot be read: {exc}", None)]
    import yaml

    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return {}, [_quest_yaml_finding(f"quest.yaml is not valid YAML: {problem}", line)]
    if data is None:
        return {}, []
    if not isinstance(data, Mapping):
        return {}, [_quest_yaml_finding(f"quest.yaml holds a {type(data).__name__}, not a mapping", 1)]
    return dict(data), []


def _quest_yaml_finding(message: str, line: int | None) -> Finding:
    return Finding(
        rule="quest.yaml-invalid",
        severity=WARNING,
        path="quest.yaml",
        line=line,
        message=message + "; experience_distill and recall_priors count as off",
        hint="fix quest.yaml, or pass --require to enforce the gate regardless",
    )


_OFF_WORDS = {"off", "", "false", "no", "none", "null"}


def coerce_toggle(value: Any) -> bool:
    """PR #60's ``coerce_*_mode``: ``true``, ``"on"`` in any case, or ``{mode: <one of those>}``."""
    if isinstance(value, Mapping):
        value = value.get("mode")
    if value is True:
        return True
    return isinstance(value, str) and value.strip().casefold() == "on"


def _looks_off(value: Any) -> bool:
    if isinstance(value, Mapping):
        value = value.get("mode")
    return value is None or value is False or (isinstance(value, str) and value.strip().casefold() in _OFF_WORDS)


def toggle_finding(name: str, value: Any) -> Finding | None:
    """A value that reads as off but was probably meant as on deserves a word."""
    if coerce_toggle(value) or _looks_off(value):
        return None
    return Finding(
        rule="quest.toggle-unrecognised",
        severity=WARNING,
        path="quest.yaml",
        pointer=f"/startup_contract/{name}",
        message=f"startup_contract.{name} is {short_repr(value)}, which DeepScientist reads as off",
        hint=f"write `{name}: on` (or `{name}: {{mode: on}}`) to turn it on, or `off` to silence this",
    )


def short_repr(value: Any) -> str:
    """A value as it may appear in a message: bounded, even for a YAML alias bomb."""
    import reprlib

    limits = reprlib.Repr()
    limits.maxlevel, limits.maxlist, limits.maxdict, limits.maxstring, limits.maxother = 3, 5, 5, 80, 80
    return limits.repr(value)


def scalar_text(value: Any) -> str | None:
    """YAML turns ``001`` into 1, ``on`` into True and timestamps into datetimes: make text again."""
    if value is None or isinstance(value, (Mapping, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


def quest_id_of(meta: Mapping[str, Any], root: Path) -> str:
    value = meta.get("quest_id")
    # `quest_id: 001` written by hand loads as int 1; the folder keeps the padding.
    if isinstance(value, int) and not isinstance(value, bool) and root.name.isdigit() and int(root.name) == value:
        return root.name
    return scalar_text(value) or root.name


# ---------------------------------------------------------------- workspaces


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
    for wt, branch, prunable in loc.registered:
        if prunable or not wt.is_dir():
            findings.append(
                Finding(
                    rule="workspace.missing",
                    severity=INFO,
                    path=None,
                    message=f"registered worktree {wt} no longer exists; skipped",
                    hint="`git worktree prune` forgets it (ds-gate never changes the quest itself)",
                )
            )
            continue
        candidates.append((wt, branch, "registered worktree"))
    wt_dir = root / ".ds" / "worktrees"
    try:
        folders = sorted(entry.path for entry in os.scandir(wt_dir) if entry.is_dir())
    except OSError:
        folders = []
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
                Finding(
                    rule="workspace.outside-quest",
                    severity=WARNING,
                    path=None,
                    message=f"{origin} {path} lies outside the quest folder; its artifacts are not read",
                    hint="DeepScientist keeps worktrees under .ds/worktrees/; move it there or record its runs in the quest",
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
        if path.exists() and not path.is_file():
            raise OSError("not a regular file")
        state = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:
        findings.append(
            Finding(
                rule="quest.research-state-invalid",
                severity=INFO,
                path=".ds/research_state.json",
                message=f"cannot read research_state.json ({exc}); research_head_worktree_root ignored",
            )
        )
        return None
    head = state.get("research_head_worktree_root") if isinstance(state, dict) else None
    if not isinstance(head, str) or not head.strip():
        return None
    candidate = Path(head) if os.path.isabs(head) else root / head
    if candidate.is_dir():
        return candidate
    rebased = _rebase_stale(root, head)
    return rebased if rebased is not None and rebased.is_dir() else None
