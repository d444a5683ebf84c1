"""Artifacts read from git objects at branch tips: the source for CI clones.

In a fresh clone ``.ds/worktrees/`` is git-ignored and absent; the runs recorded in
worktrees live only on their branches (``idea/…``, ``run/…``, ``analysis/…``, ``paper/…``).
This source reads ``artifacts/_index.jsonl`` and ``artifacts/<dir>/*.json`` at the tip of
every selected ref without a checkout, and yields the same readers as the folder source,
so every check works on either.

Cost does not grow with processes: four ``git cat-file`` batches in all, whatever the
number of refs (the ``artifacts`` tree of each tip, those trees, their sub-trees, the
blobs). Trees and blobs shared by many branches (the usual case: a branch inherits its
parent's records) are read once, and a blob carried by several refs is handed to the
checks once, by the first ref that carries it.

Missing objects (a partial clone) and refs whose tips are missing are findings with a
hint, never a traceback; a partial clone is never made to fetch (``GIT_NO_LAZY_FETCH``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

from ds_gate.io.fs import TooLarge
from ds_gate.io.git import DIFF_SAFETY, GitError, cat_file, cat_file_check, git, split_z
from ds_gate.model.findings import WARNING, Finding
from ds_gate.model.records import Workspace
from ds_gate.rules.reading import (
    GIT_OBJECT_MISSING,
    GIT_ONE_BRANCH,
    PATH_SYMLINK_OUTSIDE_QUEST,
    too_large,
)
from ds_gate.sources.paths import INDEX_NAME, branch_of

DEFAULT_REFS = ("refs/heads", "refs/remotes")
FETCH_HINT = ("fetch every branch (`git fetch origin '+refs/heads/*:refs/remotes/origin/*'`; in GitHub Actions "
              "`actions/checkout` with `fetch-depth: 0`), or choose refs with --refs")


def list_refs(root: Path, patterns: Sequence[str] = DEFAULT_REFS) -> list[tuple[str, str]]:
    """(ref name, commit id) of every branch-like ref matching ``patterns``, symbolic refs
    (``refs/remotes/origin/HEAD``) and non-commits left out, in git's order."""
    out = git(["for-each-ref", "--format=%(objectname) %(objecttype) %(refname) %(symref)", "--", *patterns],
              root).decode("utf-8", "surrogateescape")
    refs = []
    for line in out.splitlines():
        oid, kind, name, *symref = line.split(" ")
        if kind == "commit" and not any(symref):
            refs.append((name, oid))
    return refs


def parse_tree(data: bytes, id_bytes: int) -> Iterator[tuple[str, str, str]]:
    """(mode, name, object id) of each entry of a raw tree object."""
    i, end = 0, len(data)
    while i < end:
        space = data.index(b" ", i)
        nul = data.index(b"\0", space)
        oid = data[nul + 1 : nul + 1 + id_bytes].hex()
        yield data[i:space].decode(), data[space + 1 : nul].decode("utf-8", "surrogateescape"), oid
        i = nul + 1 + id_bytes


class RefReader:
    """One ref's ``artifacts/`` as the loader's Reader: names and bytes from git objects."""

    def __init__(self, workspace: Workspace, entries: dict[str, str], blobs: dict[str, bytes | TooLarge | None],
                 index_blob: str | None, findings: list[Finding]) -> None:
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


def _missing(ref: str, what: str) -> Finding:
    return GIT_OBJECT_MISSING.at(
        f"{ref}:{what}",
        f"{ref}:{what} is not in this clone (a partial or shallow clone?); its artifacts are not read",
        hint=FETCH_HINT,
    )


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


def clone_blindness(root: Path) -> str | None:
    """Why this clone cannot show every branch (shallow, or fetching one branch), or None.
    A quest with no remote is the original, not a clone: it sees everything it has.

    Read from ``.git`` itself where it is a folder (no process on the closure's path), else
    asked of git."""
    git_dir = root / ".git"
    text = _small_file(git_dir / "config") if git_dir.is_dir() else None
    if text is not None:
        shallow = (git_dir / "shallow").is_file()
        import re

        specs = re.findall(r"^\s*fetch\s*=\s*(\S+)", text, re.MULTILINE)
    else:
        shallow = git(["rev-parse", "--is-shallow-repository"], root).strip() == b"true"
        try:
            out = git(["config", "--get-regexp", r"^remote\..*\.fetch$"], root).decode("utf-8", "replace")
            specs = [line.split(" ", 1)[-1] for line in out.splitlines()]
        except GitError:
            specs = []  # no remote at all
    if shallow:
        return "this clone is shallow (fetched with a depth)"
    if specs and not any(spec.lstrip("+").startswith("refs/heads/*:") for spec in specs):
        return "this clone fetches only some branches (--single-branch)"
    return None


def _small_file(path: Path) -> str | None:
    """A file's text, or None when it is missing, not a regular file or over the size limit."""
    from ds_gate.io import fs

    try:
        return fs.read_file(path).decode("utf-8", "replace")
    except OSError:
        return None


def ref_readers(root: Path, patterns: Sequence[str] = DEFAULT_REFS, extra: Sequence[tuple[str, str]] = (),
                skip: Collection[str] = (), *, explicit: Sequence[tuple[str, str]] | None = None
                ) -> tuple[list[RefReader], list[Finding]]:
    """A reader per ref (``extra`` adds (name, commit) pairs, e.g. a commit being pushed);
    ``explicit`` reads just those refs, with no warning about how many branches there are."""
    refs = (list(explicit) if explicit is not None else list_refs(root, patterns)) + list(extra)
    findings: list[Finding] = []
    branches = {branch_of(name) for name, _ in refs if name.startswith(("refs/heads/", "refs/remotes/"))}
    if explicit is None and len(branches) <= 1:
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
    id_bytes = len(refs[0][1]) // 2
    tops = cat_file_check(root, [f"{oid}:artifacts" for _, oid in refs])
    tree_ids = {found[0] for found in tops.values() if found is not None and found[1] == "tree"}
    trees = cat_file(root, sorted(tree_ids), bounded=False)
    sub_ids: set[str] = set()
    layout: dict[str, tuple[dict[str, str], str | None]] = {}  # artifacts tree -> ({sub: tree}, index blob)
    for tid in tree_ids:
        data = trees.get(tid)
        if not isinstance(data, bytes):
            continue
        subs: dict[str, str] = {}
        index = None
        for mode, name, oid in parse_tree(data, id_bytes):
            if mode == "40000" and name not in skip:
                subs[name] = oid
                sub_ids.add(oid)
            elif name == INDEX_NAME and mode.startswith("100"):
                index = oid
        layout[tid] = (subs, index)
    sub_trees = cat_file(root, sorted(sub_ids), bounded=False)

    readers: list[RefReader] = []
    wanted_blobs: set[str] = set()
    served: set[str] = set()
    plans: list[tuple[Workspace, dict[str, str], str | None, list[Finding]]] = []
    for name, oid in refs:
        ws = Workspace(path=root, rel=name, branch=branch_of(name), ref=name)
        found = tops.get(f"{oid}:artifacts")
        mine: list[Finding] = []
        if found is None or found[1] != "tree" or found[0] not in layout:
            if found is not None and found[0] not in layout:
                mine.append(_missing(name, "artifacts"))
            elif found is None and not _has_commit(root, oid):
                mine.append(_missing(name, ""))
            plans.append((ws, {}, None, mine))
            continue
        subs, index = layout[found[0]]
        entries: dict[str, str] = {}
        for sub, sub_id in subs.items():
            data = sub_trees.get(sub_id)
            if not isinstance(data, bytes):
                mine.append(_missing(name, f"artifacts/{sub}"))
                continue
            for mode, file, blob in parse_tree(data, id_bytes):
                if not file.endswith(".json") or mode == "40000":
                    continue
                if mode == "120000":
                    mine.append(PATH_SYMLINK_OUTSIDE_QUEST.at(
                        ws.display(f"artifacts/{sub}/{file}"),
                        f"{ws.display(f'artifacts/{sub}/{file}')} is a symbolic link; not followed",
                        hint="commit the record itself, not a link to it",
                    ))
                    continue
                if blob in served:
                    continue  # the same record, already handed over by an earlier ref
                served.add(blob)
                entries[f"{sub}/{file}"] = blob
        wanted_blobs.update(entries.values())
        if index is not None and index not in served:
            served.add(index)
            wanted_blobs.add(index)
        else:
            index = None
        plans.append((ws, entries, index, mine))
    blobs = cat_file(root, sorted(wanted_blobs))  # a blob over the size limit is a TooLarge, never read
    for ws, entries, index, mine in plans:
        missing = sorted(n for n, b in entries.items() if blobs.get(b) is None)
        for name in missing:
            mine.append(_missing(ws.ref or ws.rel, f"artifacts/{name}"))
            del entries[name]
        held = blobs.get(index) if index else None
        if isinstance(held, TooLarge):  # a git index is held whole, so the file limit applies (a warning, as the folder's)
            mine.append(too_large(ws.display(f"artifacts/{INDEX_NAME}"), held, severity=WARNING))
            index = None
        readers.append(RefReader(ws, entries, blobs, index, mine))
    return readers, findings


def _has_commit(root: Path, oid: str) -> bool:
    return bool(cat_file_check(root, [oid]).get(oid))


def pushed_refs(stdin_text: str) -> list[tuple[str, str, str, str]]:
    """git's pre-push input: (local ref, local id, remote ref, remote id) per line."""
    out = []
    for line in stdin_text.splitlines():
        parts = line.split()
        if len(parts) == 4:
            out.append((parts[0], parts[1], parts[2], parts[3]))
    return out


def names_in_range(root: Path, tip: str) -> list[str]:
    """Files touched by the commits of ``tip`` that no remote-tracking ref has yet."""
    out = git(["log", "--no-show-signature", *DIFF_SAFETY, "-z", "--format=", "--name-only", "--no-renames", tip, "--not",
               "--remotes"], root)
    return sorted(set(split_z(out)))
