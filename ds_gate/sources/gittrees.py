"""The ``artifacts`` trees of many branch tips, walked in a few ``cat-file`` batches.

Where a hostile or damaged repository shows: a tree whose bytes are not a tree, an object the
clone lacks, a link or gitlink where DeepScientist keeps a folder or a record. Each is a finding
naming the ref and the path, never a silent skip: it hides runs from ``--from-git``.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Iterator
from pathlib import Path

from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.layout import INDEX_NAME, KIND_OF_DIR
from ds_gate.model.findings import Finding
from ds_gate.sources.problems import (
    GIT_OBJECT_CORRUPT,
    GIT_OBJECT_MISSING,
    GIT_SYMLINK_IN_TREE,
)

FETCH_HINT = (
    "fetch every branch (`git fetch origin '+refs/heads/*:refs/remotes/origin/*'`; in GitHub Actions "
    "`actions/checkout` with `fetch-depth: 0`), or choose refs with --refs"
)
LINK, FOLDER, GITLINK = "120000", "40000", "160000"
# Entries git lists but cannot show the contents of: a symbolic link (only its target's
# name is stored) and a gitlink (a nested repository committed: only a commit id, whose
# objects live in another repository). Either, where DeepScientist keeps a folder or a
# record, hides the runs behind it, so both are the same error (``git.symlink-in-tree``).
OPAQUE = {LINK: "a symbolic link", GITLINK: "a gitlink (a nested git repository committed, mode 160000)"}


class CorruptObject(ValueError):
    """A git object whose bytes are not what its type says (a damaged tree)."""


def parse_tree(data: bytes, id_bytes: int) -> Iterator[tuple[str, str, str]]:
    """(mode, name, object id) of each entry of a raw tree object; CorruptObject when the
    bytes are not a tree (git hands out a damaged object's bytes as they are)."""
    i, end = 0, len(data)
    while i < end:
        space = data.find(b" ", i)
        nul = data.find(b"\0", space + 1) if space > i else -1
        mode = data[i:space]
        if nul < 0 or nul + 1 + id_bytes > end or not mode.isdigit():
            raise CorruptObject(f"not a tree: the entry at byte {i} is malformed")
        yield (
            mode.decode(),
            data[space + 1 : nul].decode("utf-8", "surrogateescape"),
            data[nul + 1 : nul + 1 + id_bytes].hex(),
        )
        i = nul + 1 + id_bytes


def missing(ref: str, what: str) -> Finding:
    return GIT_OBJECT_MISSING.at(
        f"{ref}:{what}",
        f"{ref}:{what} is not in this clone (a partial or shallow clone?) or git cannot read it; "
        "its artifacts are not read",
        hint=f"{FETCH_HINT}; if it is damaged (`git fsck` names it), restore it from a healthy clone",
    )


def corrupt(ref: str, what: str, problem: str) -> Finding:
    return GIT_OBJECT_CORRUPT.at(
        f"{ref}:{what}",
        f"{ref}:{what} is a damaged git object ({problem}); its artifacts are not read",
        hint="run `git fsck` in the quest and restore the object from a healthy clone (`git fetch` from it)",
    )


def linked(ref: str, what: str, expected: str, mode: str = LINK, display: str | None = None) -> Finding:
    """A link or gitlink where DeepScientist keeps ``expected``: the runs behind it are unseen."""
    where = display or f"{ref}:{what}"
    if mode == GITLINK:
        return GIT_SYMLINK_IN_TREE.at(
            where,
            f"{where} is {OPAQUE[GITLINK]} where DeepScientist keeps {expected}: this repository holds only "
            "a commit id there, not the files, so the runs in it cannot be read",
            hint=f"commit {expected} itself: `git rm --cached {shlex.quote(what)}`, remove the nested repository's "
            f".git, then `git add {shlex.quote(what)}`",
        )
    return GIT_SYMLINK_IN_TREE.at(
        where,
        f"{where} is a symbolic link where DeepScientist keeps {expected}: git does not show what it points "
        "to, so the runs behind it cannot be read",
        hint=f"commit {expected} itself, not a link to it",
    )


class TreeWalk:
    """Each distinct tree read once; each problem in a shared tree reported once, by the
    first ref that carries it (as a shared record is handed to the checks once)."""

    def __init__(self, root: Path, id_bytes: int, skip: Collection[str], absent: Collection[str] = ()) -> None:
        self.root = root
        self.id_bytes = id_bytes
        self.skip = skip
        self.absent = absent  # ids a partial clone lacks: never asked for
        self.layout: dict[str, tuple[dict[str, str], str | None, list[tuple[str, str, str]]]] = {}
        self.sub_trees: dict[str, bytes | None] = {}
        self.reported: set[tuple[str, str]] = set()

    def _tree(self, data: bytes) -> list[tuple[str, str, str]]:
        return list(parse_tree(data, self.id_bytes))

    def artifacts_trees(self, refs: list[tuple[str, str]]) -> dict[str, tuple[str, list[Finding]]]:
        """ref -> (its ``artifacts`` tree id, "" when it has none that can be read; findings)."""
        roots = cat_file(self.root, [f"{oid}^{{tree}}" for _, oid in refs], bounded=False)
        out: dict[str, tuple[str, list[Finding]]] = {}
        for name, oid in refs:
            data = roots.get(f"{oid}^{{tree}}")
            if not isinstance(data, bytes):
                out[name] = ("", [missing(name, "")])
                continue
            try:
                entry = next(((mode, tid) for mode, file, tid in self._tree(data) if file == "artifacts"), None)
            except CorruptObject as exc:
                out[name] = ("", [corrupt(name, "", str(exc))])
                continue
            if entry is not None and entry[0] in OPAQUE:
                out[name] = ("", [linked(name, "artifacts", "the artifacts folder", entry[0])])
            else:
                out[name] = (entry[1] if entry is not None and entry[0] == FOLDER else "", [])
        return out

    def read_layouts(self, tree_ids: Collection[str]) -> None:
        """Each artifacts tree's record folders, index and problems; then every record folder."""
        trees = cat_file(self.root, sorted(tree_ids), absent=self.absent, bounded=False)
        for tid in tree_ids:
            got = trees.get(tid)
            data = got if isinstance(got, bytes) else None
            problems: list[tuple[str, str, str]] = []  # (kind, path below artifacts/, detail)
            subs: dict[str, str] = {}
            index = None
            try:
                entries = self._tree(data) if data is not None else []
            except CorruptObject as exc:
                entries, problems = [], [("corrupt", "", str(exc))]
            if data is None:
                problems.append(("missing", "", ""))
            for mode, name, oid in entries:
                if name in self.skip:
                    continue
                if mode == FOLDER:
                    subs[name] = oid
                elif name == INDEX_NAME and mode.startswith("100"):
                    index = oid
                elif mode in OPAQUE and (name in KIND_OF_DIR or name == INDEX_NAME):
                    problems.append((mode, name, "the index" if name == INDEX_NAME else f"the {name} folder"))
            self.layout[tid] = (subs, index, problems)
        wanted = {sub for subs, _, _ in self.layout.values() for sub in subs.values()}
        listed = cat_file(self.root, sorted(wanted), absent=self.absent, bounded=False)
        self.sub_trees = {tid: data if isinstance(data, bytes) else None for tid, data in listed.items()}

    def _report(self, ref: str, where: str, kind: str, what: str, detail: str, mine: list[Finding]) -> None:
        if (where, what) in self.reported:
            return
        self.reported.add((where, what))
        path = f"artifacts/{what}".rstrip("/")
        mine.append(
            missing(ref, path)
            if kind == "missing"
            else corrupt(ref, path, detail)
            if kind == "corrupt"
            else linked(ref, path, detail, kind)
        )

    def entries(self, ref: str, tid: str, served: set[str], mine: list[Finding]) -> tuple[dict[str, str], str | None]:
        """The record blobs of one ref (path below ``artifacts/`` -> blob id) that no earlier
        ref handed over, and its index blob; problems go to ``mine``."""
        subs, index, problems = self.layout[tid]
        for kind, what, detail in problems:
            self._report(ref, tid, kind, what, detail, mine)
        entries: dict[str, str] = {}
        for sub, sub_id in subs.items():
            data = self.sub_trees.get(sub_id)
            try:
                listing = self._tree(data) if data is not None else None
            except CorruptObject as exc:
                self._report(ref, sub_id, "corrupt", sub, str(exc), mine)
                continue
            if listing is None:
                self._report(ref, sub_id, "missing", sub, "", mine)
                continue
            for mode, file, blob in listing:
                if not file.endswith(".json") or mode == FOLDER:
                    continue
                if mode in OPAQUE:
                    self._report(ref, sub_id, mode, f"{sub}/{file}", "the record", mine)
                    continue
                if blob in served:
                    continue  # the same record, already handed over by an earlier ref
                served.add(blob)
                entries[f"{sub}/{file}"] = blob
        if index is not None and index in served:
            index = None
        elif index is not None:
            served.add(index)
        return entries, index
