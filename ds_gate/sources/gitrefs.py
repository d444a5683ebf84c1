"""Artifacts read from git objects at branch tips: the source for CI clones.

In a fresh clone ``.ds/worktrees/`` is absent and the worktrees' runs live only on their
branches. This source reads ``artifacts/`` at the tip of every selected ref without a checkout
and yields the same readers as the folder source, so every check works on either. Four ``git
cat-file`` batches in all, whatever the number of refs (``sources.gittrees`` walks them); a
tree or blob shared by many branches is read, and handed to the checks, once. Missing or
damaged objects are findings with a hint, and a partial clone is never made to fetch.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

from ds_gate.kernel.catfile import cat_file, missing_objects
from ds_gate.kernel.fs import TooLarge
from ds_gate.kernel.git import git
from ds_gate.kernel.layout import INDEX_NAME, branch_of
from ds_gate.model.findings import WARNING, Finding
from ds_gate.model.records import Workspace
from ds_gate.sources.clone import is_original, is_partial, refuse_unsafe_partial
from ds_gate.sources.gittrees import FETCH_HINT, TreeWalk, missing
from ds_gate.sources.problems import GIT_ONE_BRANCH, too_large

DEFAULT_REFS = ("refs/heads", "refs/remotes")


def list_refs(root: Path, patterns: Sequence[str] = DEFAULT_REFS) -> list[tuple[str, str]]:
    """(ref name, commit id) of every branch-like ref matching ``patterns``, symbolic refs
    (``refs/remotes/origin/HEAD``) and non-commits left out, in git's order."""
    out = git(
        ["for-each-ref", "--format=%(objectname) %(objecttype) %(refname) %(symref)", "--", *patterns], root
    ).decode("utf-8", "surrogateescape")
    refs = []
    for line in out.splitlines():
        oid, kind, name, *symref = line.split(" ")
        if kind == "commit" and not any(symref):
            refs.append((name, oid))
    return refs


class RefReader:
    """One ref's ``artifacts/`` as the loader's Reader: names and bytes from git objects."""

    def __init__(
        self,
        workspace: Workspace,
        entries: dict[str, str],
        blobs: dict[str, bytes | TooLarge | None],
        index_blob: str | None,
        findings: list[Finding],
    ) -> None:
        self.workspace = workspace
        self.findings = findings
        self._entries = entries  # path below artifacts/ -> blob id
        self._blobs = blobs
        self._index = index_blob

    def index_bytes(self) -> bytes | None:
        data = self._blobs.get(self._index) if self._index else None
        return data if isinstance(data, bytes) else None

    def has_artifacts(self) -> bool:
        """Records, an index, or a finding about what could not be read: worth reading."""
        return bool(self._entries) or self._index is not None or bool(self.findings)

    def record_names(self, skip: Collection[str]) -> list[str]:
        return sorted(n for n in self._entries if n.split("/", 1)[0] not in skip)

    def read_many(self, names: list[str]) -> Iterator[tuple[str, bytes | OSError]]:
        for name in names:
            data = self._blobs.get(self._entries[name])
            yield name, data if data is not None else FileNotFoundError(f"object {self._entries[name]} is missing")


def unchecked_refs(root: Path, checked_out: Collection[str]) -> list[tuple[str, str]]:
    """The branch tips no workspace folder has checked out: the local branches no worktree
    has out, and the remote-tracking branches with no local branch of their name. In a
    fresh clone these hold the runs; in a local quest with its worktrees there are none."""
    refs = list_refs(root, DEFAULT_REFS)
    local = {name.removeprefix("refs/heads/") for name, _ in refs if name.startswith("refs/heads/")}
    out = []
    for name, oid in refs:
        if name.startswith("refs/heads/"):
            if name.removeprefix("refs/heads/") not in checked_out:
                out.append((name, oid))
        elif branch_of(name) not in local and branch_of(name) not in checked_out:
            out.append((name, oid))
    return out


def ref_readers(
    root: Path,
    patterns: Sequence[str] = DEFAULT_REFS,
    extra: Sequence[tuple[str, str]] = (),
    skip: Collection[str] = (),
    *,
    explicit: Sequence[tuple[str, str]] | None = None,
) -> tuple[list[RefReader], list[Finding]]:
    """A reader per ref (``extra`` adds (name, commit) pairs, e.g. a commit being pushed);
    ``explicit`` reads just those refs, with no warning about how many branches there are."""
    refs = (list(explicit) if explicit is not None else list_refs(root, patterns)) + list(extra)
    findings: list[Finding] = []
    branches = {branch_of(name) for name, _ in refs if name.startswith(("refs/heads/", "refs/remotes/"))}
    if explicit is None and len(branches) <= 1 and not is_original(root):  # an original has no branch to lack
        findings.append(
            GIT_ONE_BRANCH.at(
                None,
                f"only {len(branches) or 'no'} branch{'es' if len(branches) > 1 else ''} visible in this clone: "
                "runs recorded on other branches (idea/…, run/…, analysis/…, paper/…) are not seen",
                hint=FETCH_HINT,
            )
        )
    if not refs:
        return [], findings
    partial = is_partial(root)
    if partial:
        refuse_unsafe_partial(root)
    walk = TreeWalk(root, len(refs[0][1]) // 2, skip)
    tops = walk.artifacts_trees(refs)
    tree_ids = {tid for tid, _ in tops.values() if tid}
    if partial:  # ask git only for what the clone holds: asking for an absent object ends the batch
        walk.absent = missing_objects(root, sorted(tree_ids))
    walk.read_layouts(tree_ids)

    plans: list[tuple[Workspace, dict[str, str], str | None, list[Finding]]] = []
    served: set[str] = set()
    for name, commit in refs:
        tid, mine = tops[name]
        entries, index = walk.entries(name, tid, served, mine) if tid else ({}, None)
        plans.append(
            (Workspace(path=root, rel=name, branch=branch_of(name), ref=name, commit=commit), entries, index, mine)
        )
    wanted = {blob for _, entries, index, _ in plans for blob in [*entries.values(), *([index] if index else [])]}
    blobs = cat_file(root, sorted(wanted), absent=walk.absent)  # a blob over the size limit is a TooLarge, never read
    readers: list[RefReader] = []
    for ws, entries, index, mine in plans:
        ref = ws.ref or ws.rel
        for name in sorted(n for n, b in entries.items() if blobs.get(b) is None):
            mine.append(missing(ref, f"artifacts/{name}"))
            del entries[name]
        if index is not None and blobs.get(index) is None:
            mine.append(missing(ref, f"artifacts/{INDEX_NAME}"))
            index = None
        held = blobs.get(index) if index else None
        if isinstance(held, TooLarge):  # a git index is held whole: the file limit applies (a warning, as the folder's)
            mine.append(too_large(ws.display(f"artifacts/{INDEX_NAME}"), held, severity=WARNING))
            index = None
        readers.append(RefReader(ws, entries, blobs, index, mine))
    return readers, findings
