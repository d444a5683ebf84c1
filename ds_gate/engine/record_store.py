"""The persistent record cache for one quest: where it lives and what version it must carry.

The version covers everything a slim depends on besides a record's bytes: ds-gate's and
Python's versions, the record schemas' bytes, the code that makes slims (by file size and
``mtime_ns``, so an edited checkout never reuses an older rule's findings), the quest's
decision actions, the kinds read and the file size limit. Anything else, and the cache is simply empty.
"""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.engine.slim import SlimIndex, pack_index, unpack_index
from ds_gate.engine.slim_rows import from_row, to_row
from ds_gate.io.cache_dir import cache_name, user_cache_dir
from ds_gate.io.record_cache import RecordCache, Shelf, StatKey, file_key, version_of
from ds_gate.kernel.digest import blake2b
from ds_gate.kernel.fs import max_file_bytes
from ds_gate.kernel.layout import INDEX_NAME, QUEST_YAML
from ds_gate.kernel.resources import data_dir
from ds_gate.model.findings import Finding
from ds_gate.sources import quest_yaml
from ds_gate.sources.location import linked_outside
from ds_gate.sources.records import read_index

if TYPE_CHECKING:
    from ds_gate.sources.folders import FolderReader
    from ds_gate.sources.records import IndexEntry

RECORD_SCHEMAS = ("decision", "distill_review", "distill_review_report", "run")
# modules whose code decides a slim; their size and mtime join the version
SLIM_CODE = ("ds_gate.engine.slim", "ds_gate.engine.slim_rows", "ds_gate.engine.collector", "ds_gate.rules.records", "ds_gate.rules.vocabulary",
             "ds_gate.rules.schema", "ds_gate.sources.problems", "ds_gate.kernel.schema_fast", "ds_gate.io.schemas",
             "ds_gate.io.schema_explain", "ds_gate.kernel.schema_files", "ds_gate.kernel.jsondoc", "ds_gate.model.records",
             "ds_gate.model.findings", "ds_gate.sources.records", "ds_gate.kernel.layout", "ds_gate.sources.record_json",
             "ds_gate.kernel.words", "ds_gate.sources.quest_yaml", "ds_gate.io.yamldoc", "ds_gate.engine.record_store",
             "ds_gate.io.record_cache")


def _schemas_digest() -> bytes:
    digest = blake2b(digest_size=16)
    folder = data_dir("schemas")
    for name in RECORD_SCHEMAS:
        try:
            digest.update((folder / f"{name}.schema.json").read_bytes())
        except OSError:
            digest.update(b"missing")
    return digest.digest()


def _code_stamp() -> bytes:
    package = Path(__file__).resolve().parents[1]  # stat the files, import nothing
    parts = []
    for name in SLIM_CODE:
        file = package.joinpath(*name.split(".")[1:]).with_suffix(".py")
        try:
            st = os.stat(file)
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}:?")
    return "\n".join(parts).encode()


def open_store(root: Path, key: bytes, kinds: tuple[str, ...]) -> RecordCache:
    """The cache of the quest at ``root`` (an empty one when the cache folder is unusable)."""
    # one file per quest and kinds read: lineage's runs-only reads never replace the gate's rows
    name = cache_name("records", f"{root}\0{','.join(kinds)}")
    # a file over the size limit is a finding, never a slim: the limit joins the version
    version = version_of(_schemas_digest(), _code_stamp(), key, "\0".join(kinds).encode(),
                         str(max_file_bytes()).encode())
    folder = user_cache_dir()
    return RecordCache(folder / name if folder is not None else None, version)


def _pyyaml() -> tuple[str, StatKey] | None:
    """The PyYAML that parsed: its file and stat, so an upgraded PyYAML misses."""
    module = sys.modules.get("yaml")
    file = getattr(module, "__file__", None)
    key = file_key(file) if isinstance(file, str) else None
    return (file, key) if isinstance(file, str) and key is not None else None


def _quest_yaml_entry(entry: object) -> bool:
    """A row ``(PyYAML's file, its stat, the mapping)`` whose PyYAML is still the one installed."""
    return (type(entry) is tuple and len(entry) == 3 and type(entry[2]) is dict
            and isinstance(entry[0], str) and file_key(entry[0]) == entry[1])


def read_quest_yaml(root: Path, store: RecordCache | None) -> tuple[dict[str, Any], list[Finding]]:
    """``quest.yaml`` as ``sources.quest_yaml`` reads it; with a store, a repeated run whose
    ``quest.yaml`` (and PyYAML) did not change takes the mapping from the cache and never
    imports PyYAML (~9 ms of the start). Only a clean parse is kept: a finding is made again
    each time, and a link out of the quest is refused before the cache is asked."""
    path = root / QUEST_YAML
    key = file_key(str(path)) if store is not None and linked_outside(root, path) is None else None
    if store is None or key is None:
        return quest_yaml.read_quest_yaml(root)
    shelf = store.shelf(str(root))
    held = shelf.get(QUEST_YAML, key)
    if held is not None and _quest_yaml_entry(held):
        store.store(shelf)
        return dict(held[2]), []
    meta, findings = quest_yaml.read_quest_yaml(root)
    parser = _pyyaml() if not findings else None
    if parser is not None:
        try:
            marshal.dumps(meta)  # dates and other YAML types marshal cannot hold are read each time
        except ValueError:
            parser = None
    if parser is not None:
        shelf.put(QUEST_YAML, key, (*parser, meta))
    else:
        shelf.drop(QUEST_YAML)
    store.store(shelf)
    return meta, findings


def cached_index(shelf: Shelf, reader: FolderReader, kinds: tuple[str, ...]) -> list[IndexEntry | Finding] | None:
    """A folder's index lines from its shelf, or read now and kept there; None: read it as
    usual (no index, or one whose folder or link is reported: that report comes from the read)."""
    before = len(reader.findings)
    path = reader.index_path()
    if path is None or len(reader.findings) != before:
        del reader.findings[before:]
        return None
    display = reader.workspace.display(f"artifacts/{INDEX_NAME}")
    name = str(path)  # absolute: never a record's name, which is relative to the folder
    key = file_key(name)
    held = from_row(shelf.get(name, key)) if key is not None else None
    if isinstance(held, SlimIndex):
        return unpack_index(held, display)
    items = list(read_index(reader, kinds))
    packed = pack_index(items, display) if key is not None and len(reader.findings) == before else None
    if packed is not None and key is not None:
        shelf.put(name, key, to_row(packed))
    else:
        shelf.drop(name)
    return items
