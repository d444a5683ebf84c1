"""The runs one commit's tree holds: what a baseline's ``commit`` names (``engine.baseline``).

A run is in the commit when its record (``artifacts/runs/…/<id>.json``) or a ``kind: run`` line of
an index (``artifacts/_index.jsonl``) is in its tree, below any ``artifacts`` folder; its id is the
``artifact_id`` written there, as the gate identifies runs everywhere. Read by object id through
the safe git door: the commit is named by a full id in the trusted configuration, so nothing the
quest's agent can move (a branch, a replace ref, a graft) decides which tree is read. A commit
git cannot read is ``CommitUnreadable``, never an empty set: the gate stops on it (fail closed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.git import GitError, git, split_z
from ds_gate.kernel.layout import INDEX_NAME, record_kind
from ds_gate.kernel.triage import parse_record

if TYPE_CHECKING:
    from pathlib import Path

LINK, GITLINK = "120000", "160000"


class CommitUnreadable(Exception):
    """A baseline's commit git cannot read here: what is wrong, in a clause."""


def _wanted(path: str) -> str | None:
    """``run`` for a run record below an ``artifacts`` folder, ``index`` for an index, else None."""
    parts = path.split("/")
    for at, part in enumerate(parts):
        if part != "artifacts":
            continue
        rest = parts[at + 1 :]
        if rest == [INDEX_NAME]:
            return "index"
        if len(rest) >= 2 and rest[0] == "runs" and rest[-1].endswith(".json") and all(rest):
            return "run"
    return None


def _listing(root: Path, commit: str) -> dict[str, str]:
    """blob id -> ``run`` or ``index``, for the commit's tree; CommitUnreadable when git cannot say."""
    try:
        kind = git(["cat-file", "-t", commit], root).strip().decode("ascii", "replace")
    except GitError as exc:
        raise CommitUnreadable(f"git finds no such object here ({exc})") from None
    if kind != "commit":
        raise CommitUnreadable(f"it names a {kind}, not a commit")
    try:
        out = git(["ls-tree", "-r", "-z", "--full-tree", commit], root)
    except GitError as exc:
        raise CommitUnreadable(f"its tree cannot be read ({exc})") from None
    found: dict[str, str] = {}
    for item in split_z(out):
        meta, _, path = item.partition("\t")
        mode, _, rest = meta.partition(" ")
        kind, _, oid = rest.partition(" ")
        what = _wanted(path) if kind == "blob" and mode not in (LINK, GITLINK) else None
        if what is not None:
            found.setdefault(oid, what)
    return found


def runs_in_commit(root: Path, commit: str) -> frozenset[str]:
    """The artifact ids of the runs ``commit``'s tree holds (records and index lines). A record
    or index git cannot hand over (a partial clone) is CommitUnreadable: runs would go unseen."""
    listing = _listing(root, commit)
    blobs = cat_file(root, list(listing), bounded=True) if listing else {}
    ids: set[str] = set()
    for oid, what in listing.items():
        data = blobs.get(oid)
        if not isinstance(data, bytes):
            why = "is over the file-size limit" if data is not None else "is not in this clone"
            raise CommitUnreadable(f"its {'index' if what == 'index' else 'run record'} {oid} {why}")
        rows = [data] if what == "run" else data.splitlines()
        for row in rows:
            record = parse_record(row) if row.strip() else None
            if record is None:
                continue  # not JSON: no id to read (the run, if pending now, stays pending)
            artifact_id = record.get("artifact_id")
            if isinstance(artifact_id, str) and artifact_id and record_kind(record, "runs") == "run":
                ids.add(artifact_id)
    return frozenset(ids)
