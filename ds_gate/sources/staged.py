"""The committing workspace as git's index holds it: what the commit being made will hold.

The commit hook reads the committing workspace this way (honouring the hook's
``GIT_INDEX_FILE``), so "the covering review is staged" means exactly that.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.fs import TooLarge
from ds_gate.kernel.git import git, split_z
from ds_gate.kernel.layout import INDEX_NAME, KIND_OF_DIR
from ds_gate.model.findings import WARNING, Finding
from ds_gate.model.records import Workspace
from ds_gate.sources.gittrees import OPAQUE, linked
from ds_gate.sources.problems import too_large


def record_place(path: str) -> str | None:
    """What DeepScientist keeps at ``path`` (the artifacts folder, a record folder, the index,
    a record), or None for a path it keeps nothing of the gate's at."""
    parts = path.split("/")
    if parts == ["artifacts"]:
        return "the artifacts folder"
    if len(parts) == 2 and parts[1] == INDEX_NAME:
        return "the index"
    if len(parts) == 2 and parts[1] in KIND_OF_DIR:
        return f"the {parts[1]} folder"
    if len(parts) == 3 and parts[2].endswith(".json"):
        return "the record"
    return None


class StagedReader:
    """The committing workspace as git's index holds it (honours the hook's GIT_INDEX_FILE)."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.findings: list[Finding] = []
        self._entries: dict[str, str] = {}  # path below artifacts/ -> blob id
        out = git(["ls-files", "-s", "-z", "--", "artifacts"], workspace.path, staged=True)
        for item in split_z(out):
            meta, _, path = item.partition("\t")
            mode, blob, _stage = meta.split(" ")
            if mode in OPAQUE:  # the commit will hold a link or a gitlink: the same error as at a branch tip
                expected = record_place(path)
                if expected is not None:
                    self.findings.append(linked("", path, expected, mode, display=workspace.display(path)))
                continue
            if not path.startswith("artifacts/"):
                continue
            self._entries[path[len("artifacts/") :]] = blob

    def blob_of(self, name: str) -> str | None:
        """The staged blob id of ``artifacts/<name>``, or None when the index holds no such file."""
        return self._entries.get(name)

    def index_bytes(self) -> bytes | None:
        blob = self._entries.get(INDEX_NAME)
        if blob is None:
            return None
        data = cat_file(self.workspace.path, [blob]).get(blob)
        if isinstance(data, TooLarge):  # held whole, so the file limit applies: a warning, as for any index
            self.findings.append(too_large(self.workspace.display(f"artifacts/{INDEX_NAME}"), data, severity=WARNING))
            return None
        return data

    def record_names(self, skip: Collection[str]) -> list[str]:
        names = []
        for rel in self._entries:
            sub, sep, name = rel.partition("/")
            if sep and "/" not in name and name.endswith(".json") and sub not in skip:
                names.append(rel)
        return sorted(names)

    def read_many(self, names: list[str]) -> Iterator[tuple[str, bytes | OSError]]:
        """Each record's bytes; a blob over the size limit comes as a ``TooLarge`` (never read)."""
        blobs = cat_file(self.workspace.path, [self._entries[n] for n in names])
        for name in names:
            data = blobs.get(self._entries[name])
            yield name, data if data is not None else FileNotFoundError(f"blob {self._entries[name]} is missing")
