"""The persistent record cache for one quest: where it lives and what version it must carry.

The version covers everything a slim depends on besides a record's bytes: ds-gate's and
Python's versions, the record schemas' bytes, the code that makes slims (by file size and
``mtime_ns``, so an edited checkout never reuses an older rule's findings), the quest's
decision actions, the kinds read and the file size limit. Anything else, and the cache is simply empty.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ds_gate.engine.slim import well_formed
from ds_gate.io.record_cache import RecordCache, version_of

RECORD_SCHEMAS = ("decision", "distill_review", "distill_review_report", "run")
# modules whose code decides a slim; their size and mtime join the version
SLIM_CODE = ("ds_gate.engine.slim", "ds_gate.engine.collector", "ds_gate.rules.records", "ds_gate.rules.vocabulary",
             "ds_gate.rules.schema", "ds_gate.rules.reading", "ds_gate.io.schema_fast", "ds_gate.io.schemas",
             "ds_gate.io.schema_explain", "ds_gate.io.schema_files", "ds_gate.io.jsondoc", "ds_gate.model.records",
             "ds_gate.model.findings", "ds_gate.sources.records", "ds_gate.sources.paths", "ds_gate.sources.record_json",
             "ds_gate.rules.words")


def _schemas_digest() -> bytes:
    from ds_gate.io.resources import data_dir

    digest = hashlib.blake2b(digest_size=16)
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
    from ds_gate.io.cache_dir import cache_name, trusted, user_cache_dir
    from ds_gate.io.fs import max_file_bytes

    folder = user_cache_dir()
    # one file per quest and kinds read: lineage's runs-only reads never replace the gate's file
    name = cache_name("records", f"{root}\0{','.join(kinds)}", ".bin")
    usable = trusted(folder, name) or not os.path.lexists(folder)  # a missing folder is made on save
    # a file over the size limit is a finding, never a slim: the limit joins the version
    version = version_of(_schemas_digest(), _code_stamp(), key, "\0".join(kinds).encode(),
                         str(max_file_bytes()).encode())
    return RecordCache(folder / name if usable else None, version, well_formed)
