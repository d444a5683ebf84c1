"""The RFC's ``artifact.list_recent(kind, limit)``: what the quest just did, newest first.

PR #60's version lists the index lines of every workspace: the records ``artifact.record``
wrote. So does this one, and it shows each indexed record from its file when the file is
there (its newest copy, its decision's action and verdict), and, with the git source, from
the tips of branches too. A file no index line names is not listed: DeepScientist writes
some itself outside ``record`` (``artifacts/graphs/git-graph.json``, with no timestamp,
at every quest's creation). Copies collapse by ``artifact_id`` to the newest
``updated_at``; the order is total (``updated_at`` descending, then artifact id).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.jsondoc import loads
from ds_gate.kernel.layout import ARTIFACT_DIRS, KIND_OF_DIR, MEMORY_KINDS, record_kind
from ds_gate.model.records import timestamp
from ds_gate.model.reports import check_limit
from ds_gate.sources.folders import Reader
from ds_gate.sources.location import locate
from ds_gate.sources.records import index_lines, read_records
from ds_gate.sources.select import readers
from ds_gate.sources.workspaces import discover_workspaces

if TYPE_CHECKING:
    from ds_gate.sources.location import Location


def checked_kind(kind: str | None) -> None:
    """A usage error (exit 2; the MCP tool's error) unless ``kind`` is an artifact kind as
    DeepScientist spells it (``run``), naming that spelling. Refused, not translated:
    ``recall`` takes the plural memory kinds (``papers``, ``ideas``), so ``runs`` here is most
    likely that command's habit; the answer's ``request.kind`` then always echoes a kind the
    records hold, and a typo is said, not answered with an empty listing."""
    if kind is None or (isinstance(kind, str) and kind in ARTIFACT_DIRS):
        return
    if not isinstance(kind, str):
        raise QuestError(f"kind must be one artifact kind ({', '.join(ARTIFACT_DIRS)}), not {shown(kind, 60)}")
    word = kind.strip().lower()
    guess = (
        KIND_OF_DIR.get(word)
        or (word if word in ARTIFACT_DIRS else None)
        or next(iter(difflib.get_close_matches(word, list(ARTIFACT_DIRS), n=1, cutoff=0.75)), None)
    )
    mean = f"did you mean {guess}? " if guess else ""
    recall = (
        f"; {word} is a memory kind: recall takes it (ds-gate recall --kind {word})" if word in MEMORY_KINDS else ""
    )
    raise QuestError(
        f"kind {shown(kind)} is not an artifact kind: {mean}recent takes one artifact kind, singular "
        f"({', '.join(ARTIFACT_DIRS)}){recall}"
    )


def list_recent(
    quest: Path | str | Location,
    kind: str | None = None,
    limit: int = 20,
    *,
    source: str = "auto",
    refs: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    check_limit(limit)
    checked_kind(kind)

    loc = locate(quest)
    workspaces, _ = discover_workspaces(loc) if source != "git" else ([], [])
    chosen, _ = readers(loc, workspaces, source, refs=refs)
    best: dict[str, dict[str, Any]] = {}
    indexed: set[str] = set()
    for reader in chosen:
        for rec in read_records(reader, ()):
            data = rec.data
            if data is None:
                continue
            item = _item(data, rec.name, rec.display, reader.workspace.rel)
            if item is None or (kind is not None and item["kind"] != kind):
                continue
            current = best.get(item["artifact_id"])
            if current is None or timestamp(item["updated_at"]) > timestamp(current["updated_at"]):
                best[item["artifact_id"]] = item
        for line in _index_lines(reader):
            aid = line.get("artifact_id")
            if isinstance(aid, str):
                indexed.add(aid)
            if kind is not None and line.get("kind") != kind:
                continue
            if isinstance(aid, str) and aid not in best:  # an index line is the agent's text: only strings kept
                text = {
                    key: value if isinstance(value := line.get(key), str) else None
                    for key in ("kind", "status", "updated_at", "summary")
                }
                best[aid] = {
                    "artifact_id": aid,
                    **text,
                    "summary": (text["summary"] or "")[:400] or None,
                    "workspace": reader.workspace.rel,
                    "path": None,
                }
    listed = [item for aid, item in best.items() if aid in indexed]
    ordered = sorted(listed, key=lambda i: (-timestamp(i["updated_at"]), i["artifact_id"]))
    return ordered[:limit]


def _item(data: dict[str, Any], name: str, display: str, workspace: str) -> dict[str, Any] | None:
    kind = record_kind(data, name.split("/", 1)[0])
    aid = data.get("artifact_id") or data.get("id") or Path(name).stem
    if not isinstance(aid, str):
        return None
    updated = data.get("updated_at") if isinstance(data.get("updated_at"), str) else data.get("created_at")
    summary = data.get("summary")
    item = {
        "artifact_id": aid,
        "kind": kind,
        "status": data.get("status"),
        "updated_at": updated if isinstance(updated, str) else None,
        "summary": summary[:400] if isinstance(summary, str) else None,
        "workspace": workspace,
        "path": display,
    }
    if kind == "decision":  # what was decided, and the verdict: the two things a reader of decisions wants
        item.update(
            {key: value[:200] if isinstance(value := data.get(key), str) else None for key in ("action", "verdict")}
        )
    return item


def _index_lines(reader: Reader) -> Iterator[dict[str, Any]]:
    """The index's object lines, streamed (broken lines are ``check``'s to report)."""
    for line in index_lines(reader):
        if not isinstance(line, bytes):
            continue  # a line too long to read
        try:
            data = loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            yield data
