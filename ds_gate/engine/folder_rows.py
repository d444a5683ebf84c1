"""An ``artifacts`` folder through the gate's cache (``engine.record_store``): the collector
(``engine.collector``) asks ``FolderRows`` for a folder, which lists its files and stats them,
takes the whole folder from its row when the folder's *stamp* (``stamp``: the workspace it was
read as, each record file's name and stat key, the index's stat key) still matches, and else
reads it, whole, and offers the new row. A folder is kept only when every file in it is older
than the cache's granularity (``io.cache_file``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Iterable
from dataclasses import fields
from stat import S_ISREG
from typing import Any

from ds_gate.engine.copies import Copies
from ds_gate.engine.record_store import RecordStore
from ds_gate.engine.slim import SKIPPED, Slim, SlimRun, at
from ds_gate.engine.slim_rows import finding_of, from_row, to_row
from ds_gate.kernel import fs
from ds_gate.kernel.cache_folder import StatKey, file_key, stat_key
from ds_gate.kernel.digest import blake2b
from ds_gate.kernel.layout import INDEX_NAME
from ds_gate.model.findings import Finding
from ds_gate.model.records import Decision, Run, Workspace
from ds_gate.sources.folders import FolderReader
from ds_gate.sources.problems import unreadable
from ds_gate.sources.records import IndexEntry, read_index

Row = tuple[Any, ...]
INDEX_DISPLAY = f"artifacts/{INDEX_NAME}"
_ENTRY_SIZE = len(fields(IndexEntry))  # an index line's row; a finding's has more


def stamp(prefix: str, names: list[str], keys: list[StatKey], index: StatKey | None) -> bytes:
    """What a folder's row is valid for: read as ``prefix`` (its workspace), these record files
    with these stat keys, and its index with this one (None: no index)."""
    digest = blake2b("\0".join((prefix, *names)).encode("utf-8", "surrogateescape"), digest_size=16)
    digest.update(b"".join(keys))
    digest.update(b"-" if index is None else index)
    return digest.digest()


class FolderRows:
    """What the collector (``engine.collector``) does with an ``artifacts`` folder through the cache."""

    store: RecordStore | None
    limit: int
    index_kinds: tuple[str, ...]
    order: dict[str, int]
    runs: Copies[Run]
    decisions: Copies[Decision]
    findings: list[Finding]
    indexed_run_ids: set[str]
    indexed_decision_ids: set[str]
    index_entries: list[tuple[Workspace, IndexEntry]]

    def add(self, ws: Workspace, name: str, display: str, raw: bytes) -> Slim | None:
        raise NotImplementedError

    def place(self, ws: Workspace, name: str, display: str, slim: Slim) -> None:
        raise NotImplementedError

    def _offer_run(self, rel: str, order: int, display: str, *fields: Any) -> None:
        raise NotImplementedError

    def _index(self, ws: Workspace, items: Iterable[IndexEntry | Finding], lines: list[Row] | None = None) -> None:
        raise NotImplementedError

    def _read_folder(self, reader: FolderReader, base: str, names: list[str]) -> bool:
        """An ``artifacts`` folder through the cache (``engine.record_store``): placed whole from
        its row while its stamp holds, else read and, when every file in it has settled, kept.
        False: read it as usual (its index is a link or cannot be looked at: reported there)."""
        before = len(reader.findings)
        index = reader.index_path()
        if len(reader.findings) != before:
            del reader.findings[before:]
            return False
        ws, prefix = reader.workspace, reader.workspace.display("artifacts/")
        row = f"{base}{os.sep}\0{prefix}"
        index_st = regular_stat(str(index)) if index is not None else None
        index_key = stat_key(index_st) if index_st is not None else None
        store = self.store
        assert store is not None
        held = store.get(row)
        folder = fs.open_folder(base) if names else None
        try:
            if held is not None:
                keys = _stat_keys(folder, f"{base}{os.sep}", names)
                if (
                    keys is not None
                    and held[0] == stamp(prefix, names, keys, index_key)
                    and self._place_held(ws, prefix, held[1])
                ):
                    return True
            kept = self._read_fresh(ws, prefix, f"{base}{os.sep}", folder, names, store.file.settles)
        finally:
            if folder is not None:
                os.close(folder)
        lines: list[Row] = []
        self._index(ws, read_index(reader, self.index_kinds), lines)
        settled = index is None or (index_st is not None and store.file.settles(index_st))
        if kept is not None and settled and ("elsewhere",) not in lines and len(reader.findings) == before:
            store.put(row, stamp(prefix, names, kept[1], index_key), (kept[0], lines))
        return True

    def _read_fresh(
        self,
        ws: Workspace,
        prefix: str,
        base: str,
        folder: int | None,
        names: list[str],
        settles: Callable[[os.stat_result], bool],
    ) -> tuple[list[Row], list[StatKey]] | None:
        """Read and place every record of the folder: its cache row's items and the stat keys
        of the reads (the ``fstat`` of each read itself), or None when it may not be kept (a
        file gone, unreadable, too young, or one whose findings lie elsewhere)."""
        items: list[Row] = []
        keys: list[StatKey] = []
        kept = True
        for name in names:
            display = prefix + name
            try:
                raw, st = fs.read_with_stat(base + name if folder is None else name, limit=self.limit, dir_fd=folder)
            except FileNotFoundError:
                kept = False  # gone since it was listed: DeepScientist renamed or deleted it mid-read; not an error
                continue
            except OSError as exc:
                self.findings.append(unreadable(display, exc))
                kept = False
                continue
            slim = self.add(ws, name, display, raw)
            if slim is None or not (kept and settles(st)):
                kept = False
                continue
            keys.append(stat_key(st))
            if type(slim) is SlimRun and not slim.notes and not slim.found:  # the most: ready to place
                items.append(
                    (
                        name,
                        slim.artifact_id,
                        slim.run_id,
                        slim.run_kind,
                        slim.status,
                        slim.updated_at,
                        slim.created_at,
                        slim.home_rel == ws.rel,
                        slim.done,
                    )
                )
            elif slim is not SKIPPED:
                items.append((name, to_row(slim)))
        return (items, keys) if kept else None

    def _place_held(self, ws: Workspace, prefix: str, value: Any) -> bool:
        """A folder's row placed as reading it placed it; False (nothing placed) when it does not decode."""
        try:
            items, lines = value
            slims = {i: from_row(item[1]) for i, item in enumerate(items) if len(item) == 2}
            found = {i: finding_of(line) for i, line in enumerate(lines) if len(line) != _ENTRY_SIZE}
        except (TypeError, ValueError):
            return False
        if None in slims.values():
            return False
        rel, order, best, first = ws.rel, self.order.get(ws.rel, len(self.order)), self.runs.best, self.runs.first
        for i, item in enumerate(items):
            slim = slims.get(i)
            if slim is not None:
                self.place(ws, item[0], prefix + item[0], slim)
            elif item[1] in best:  # a copy of a run read before: ranked against it
                self._offer_run(rel, order, prefix + item[0], *item[1:])
            else:  # the most: the first copy, which wins
                name, artifact_id, run_id, run_kind, status, updated, created, home, done = item
                first(
                    artifact_id,
                    Run(artifact_id, run_id, run_kind, status, rel, prefix + name, updated, created),
                    home,
                    done,
                )
        display = ws.display(INDEX_DISPLAY)
        runs: tuple[set[str], Container[str]] = (self.indexed_run_ids, self.runs.best)
        decisions: tuple[set[str], Container[str]] = (self.indexed_decision_ids, self.decisions.best)
        for i, line in enumerate(lines):  # as ``_index``, an object made only for a line kept
            if i in found:
                self.findings.append(at(found[i], display))
                continue
            ids, held = runs if line[1] == "run" else decisions
            ids.add(line[0])
            if line[0] not in held:
                self.index_entries.append((ws, IndexEntry(*line)))
        return True


def _stat_keys(folder: int | None, base: str, names: list[str]) -> list[StatKey] | None:
    """Each record's stat key (relative to the open ``folder``, else below ``base``), or None
    when one is gone or no longer a regular file."""
    keys = []
    for name in names:
        key = file_key(name, folder) if folder is not None else file_key(base + name)
        if key is None:
            return None
        keys.append(key)
    return keys


def regular_stat(path: str) -> os.stat_result | None:
    """A regular file's stat (a link inside the quest followed), else None."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st if S_ISREG(st.st_mode) else None
