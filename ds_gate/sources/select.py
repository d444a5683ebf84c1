"""Where a quest's records are read from: the one choice ``load`` and ``recent`` share.

``folders``: the root and every worktree folder (a local quest); ``git``: the tips of git
refs (a CI clone has branches but no worktree folders); ``both``. The committing
workspace may be read from git's index instead of its folder (the commit hook).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.git import GitError
from ds_gate.model.findings import Finding
from ds_gate.model.records import Workspace
from ds_gate.sources.folders import FolderReader, Reader
from ds_gate.sources.gitrefs import DEFAULT_REFS, ref_readers, unchecked_refs
from ds_gate.sources.location import Location
from ds_gate.sources.staged import StagedReader

SOURCES = {
    "auto": "the worktree folders, plus every branch tip no worktree folder has checked out (a fresh clone's runs)"
    " and each detached HEAD whose worktree has no folder of its own",
    "folders": "the root and every worktree folder",
    "git": "the tips of git branches (local and remote-tracking, or --refs)",
    "both": "the worktree folders and the tips of git branches",
}


def readers(
    loc: Location,
    workspaces: list[Workspace],
    source: str = "auto",
    *,
    refs: Sequence[str] | None = None,
    extra_tips: Sequence[tuple[str, str]] = (),
    skip: Collection[str] = (),
    staged: bool = False,
) -> tuple[list[Reader], list[Finding]]:
    """The readers of ``source``, folders first; ``staged`` reads the workspace ``loc`` was
    entered from as git's index holds it. ``auto`` adds a branch tip only when it holds
    artifacts, so a local quest with all its worktrees reads exactly its folders."""
    if not isinstance(source, str) or source not in SOURCES:  # a caller's bad argument: the API's usage error
        raise QuestError(f"unknown source {shown(source)}; expected one of {tuple(SOURCES)}")
    out: list[Reader] = []
    findings: list[Finding] = []
    if source != "git":
        for ws in workspaces:
            if staged and ws.path == loc.top:
                try:
                    out.append(StagedReader(ws))
                except GitError as exc:
                    raise QuestError(f"cannot read the staged files of {ws.path}: {exc}") from exc
            else:
                out.append(FolderReader(ws, loc.root))
    if source == "folders" or (source == "auto" and not loc.is_git):
        return out, findings
    if not loc.is_git:
        raise QuestError(f"{loc.root}: the git source needs a git repository")

    try:
        if source == "auto":  # only the tips no folder has out, and only those holding artifacts
            tips = unchecked_refs(loc.root, loc.checked_out) + loc.detached_tips
            tip_readers, tip_findings = ref_readers(loc.root, skip=skip, explicit=tips) if tips else ([], [])
            tip_readers = [reader for reader in tip_readers if reader.has_artifacts()]
        else:  # every branch, and each detached HEAD whose worktree has no folder of its own
            extra = [*extra_tips, *(loc.detached_tips if refs is None else ())]
            tip_readers, tip_findings = ref_readers(loc.root, refs or DEFAULT_REFS, extra, skip)
    except GitError as exc:
        raise QuestError(f"cannot read the branches of {loc.root}: {exc}") from exc
    out.extend(tip_readers)
    findings.extend(tip_findings)
    return out, findings
