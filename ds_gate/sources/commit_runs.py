"""What one commit's tree holds of runs: what a baseline's ``commit`` names (``engine.baseline``).

Every run record (``artifacts/runs/…/<id>.json``) and every index line (``artifacts/_index.jsonl``)
in its tree, below any ``artifacts`` folder, with its blob id: ``engine.baseline_match`` reads them
as the gate reads records (the id, whether the run was completed there) and compares each run's
record now with the one held here. Read by object id through
the safe git door: the commit is named by a full id in the trusted configuration, so nothing the
quest's agent can move (a branch, a replace ref, a graft) decides which tree is read. A commit
git cannot read is ``CommitUnreadable``, never an empty set: the gate stops on it (fail closed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.git import GitError, git
from ds_gate.kernel.gitpaths import tree_entries
from ds_gate.kernel.layout import INDEX_NAME
from ds_gate.sources.records import index_rows

if TYPE_CHECKING:
    from pathlib import Path

LINK, GITLINK = "120000", "160000"


class CommitUnreadable(Exception):
    """A baseline's commit git cannot read here: what is wrong, in a clause."""


def _wanted(path: str) -> tuple[str, str] | None:
    """(``run``, its name below the ``artifacts`` folder) for a run record below an ``artifacts``
    folder, (``index``, the path) for an index, else None."""
    parts = path.split("/")
    for at, part in enumerate(parts):
        if part != "artifacts":
            continue
        rest = parts[at + 1 :]
        if rest == [INDEX_NAME]:
            return "index", path
        if len(rest) >= 2 and rest[0] == "runs" and rest[-1].endswith(".json") and all(rest):
            return "run", "/".join(rest)
    return None


def _listing(root: Path, commit: str) -> dict[str, tuple[str, str]]:
    """blob id -> ``_wanted``'s answer for its first path, for the commit's tree; CommitUnreadable
    when git cannot say."""
    try:
        kind = git(["cat-file", "-t", commit], root).strip().decode("ascii", "replace")
    except GitError as exc:
        raise CommitUnreadable(f"git finds no such object here ({exc})") from None
    if kind != "commit":
        raise CommitUnreadable(f"it names a {kind}, not a commit")
    try:
        entries = list(tree_entries(root, commit))
    except GitError as exc:
        raise CommitUnreadable(f"its tree cannot be read ({exc})") from None
    found: dict[str, tuple[str, str]] = {}
    for mode, kind, oid, path in entries:
        what = _wanted(path) if kind == "blob" and mode not in (LINK, GITLINK) else None
        if what is not None:
            found.setdefault(oid, what)
    return found


@dataclass(frozen=True, slots=True)
class Held:
    """One run record of the tree (``line`` False: ``name`` below its ``artifacts`` folder, as the
    loader names it, ``data`` its bytes) or one non-blank index line (``line`` True: ``name`` the
    index's path, ``data`` the line, stripped); ``oid``: the blob it came from."""

    name: str
    oid: str
    data: bytes
    line: bool = False


def commit_holds(root: Path, commit: str) -> list[Held]:
    """The run records and index lines ``commit``'s tree holds. A record or index git cannot
    hand over (a partial clone) is CommitUnreadable: runs would go unseen."""
    listing = _listing(root, commit)
    blobs = cat_file(root, list(listing), bounded=True) if listing else {}
    held: list[Held] = []
    for oid, (what, name) in listing.items():
        data = blobs.get(oid)
        if not isinstance(data, bytes):
            why = "is over the file-size limit" if data is not None else "is not in this clone"
            raise CommitUnreadable(f"its {'index' if what == 'index' else 'run record'} {oid} {why}")
        if what == "run":
            held.append(Held(name, oid, data))
            continue
        held.extend(Held(name, oid, row, line=True) for row in index_rows(data.splitlines()))
    return held
