"""Bytes of artifact records and index lines, from a workspace folder or from git's index.

A reader knows one workspace and how to list and read ``artifacts/<dir>/<id>.json`` and
``artifacts/_index.jsonl``; it knows nothing of what a valid record is. Two readers give
the same answers in different places:

- ``FolderReader``: the files on disk, never following a symlink out of the quest;
- ``StagedReader``: the files as staged in git's index, which is what a commit will hold
  (the commit hook reads the committing workspace this way, so "the covering review is
  staged" means exactly that).

Records are yielded one at a time so a quest with tens of thousands of runs never holds
more than one parsed document.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ds_gate.model import ERROR, WARNING, Finding, Workspace
from ds_gate.sources.gitio import cat_file, git, split_z
from ds_gate.sources.quest import is_inside

# artifact/schemas.py ARTIFACT_DIRS in DeepScientist
ARTIFACT_DIRS = {
    "baseline": "baselines",
    "idea": "ideas",
    "decision": "decisions",
    "progress": "progress",
    "answer": "answers",
    "milestone": "milestones",
    "run": "runs",
    "report": "reports",
    "approval": "approvals",
    "graph": "graphs",
}
KIND_OF_DIR = {folder: kind for kind, folder in ARTIFACT_DIRS.items()}


def record_kind(data: dict[str, Any], folder: str) -> str | None:
    """A record's kind; one without (invalid, and its schema says so) is taken from its folder."""
    kind = data.get("kind")
    return kind if isinstance(kind, str) else KIND_OF_DIR.get(folder)
INDEX_NAME = "_index.jsonl"


class Reader(Protocol):
    workspace: Workspace
    findings: list[Finding]

    def index_bytes(self) -> bytes | None: ...

    def record_names(self, skip: Collection[str]) -> list[str]: ...

    def read_many(self, names: list[str]) -> Iterator[tuple[str, bytes | OSError]]: ...


def symlink_finding(display: str, target: str, outside: str = "the quest", what: str = "artifacts") -> Finding:
    return Finding(
        rule="path.symlink-outside-quest",
        severity=WARNING,
        path=display,
        message=f"{display} is a symbolic link to {target}, outside {outside}; not followed",
        hint=f"{what} must live inside {outside}; replace the link with the file itself",
    )


class FolderReader:
    def __init__(self, workspace: Workspace, quest_root: Path) -> None:
        self.workspace = workspace
        self.root = quest_root
        self.findings: list[Finding] = []
        self._dir = self._checked(workspace.path / "artifacts", "artifacts")

    def _checked(self, path: Path, rel: str) -> Path | None:
        """``path`` if it may be read: missing is quiet, a link out of the quest is reported."""
        if not path.is_symlink():
            return path if path.exists() else None
        real = Path(os.path.realpath(path))
        if not is_inside(self.root, real):
            self.findings.append(symlink_finding(self.workspace.display(rel), str(real)))
            return None
        return real if real.exists() else None

    def _index_path(self) -> Path | None:
        if self._dir is None:
            return None
        path = self._checked(self._dir / INDEX_NAME, f"artifacts/{INDEX_NAME}")
        if path is None or not path.is_file():  # a FIFO would block the read forever
            return None
        return path

    def index_bytes(self) -> bytes | None:
        return b"".join(self.index_stream())

    def index_stream(self) -> Iterator[bytes]:
        path = self._index_path()
        if path is None:
            return
        try:
            with open(path, "rb") as handle:
                yield from handle
        except OSError as exc:
            self.findings.append(unreadable(self.workspace.display(f"artifacts/{INDEX_NAME}"), exc, WARNING))

    def record_names(self, skip: Collection[str]) -> list[str]:
        if self._dir is None:
            return []
        names: list[str] = []
        try:
            subdirs = sorted(e.name for e in os.scandir(self._dir) if e.is_dir() and e.name not in skip)
        except OSError:
            return []
        for sub in subdirs:
            folder = self._checked(self._dir / sub, f"artifacts/{sub}")
            if folder is None:
                continue
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError as exc:
                self.findings.append(unreadable(self.workspace.display(f"artifacts/{sub}"), exc, ERROR))
                continue
            for entry in entries:
                if not entry.name.endswith(".json"):
                    continue
                rel = f"{sub}/{entry.name}"
                if entry.is_symlink() and self._checked(Path(entry.path), f"artifacts/{rel}") is None:
                    continue
                if entry.is_file():
                    names.append(rel)
        return names

    def read_many(self, names: list[str]) -> Iterator[tuple[str, bytes | OSError]]:
        base = f"{self._dir}{os.sep}"  # plain strings: a Path per file costs more than the read
        for name in names:
            try:
                with open(base + name, "rb") as handle:
                    yield name, handle.read()
            except OSError as exc:
                yield name, exc


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
            if not path.startswith("artifacts/"):
                continue
            rel = path[len("artifacts/") :]
            if mode == "120000":
                self.findings.append(symlink_finding(workspace.display(path), "a staged symbolic link"))
                continue
            self._entries[rel] = blob

    def index_bytes(self) -> bytes | None:
        blob = self._entries.get(INDEX_NAME)
        if blob is None:
            return None
        return cat_file(self.workspace.path, [blob]).get(blob)

    def record_names(self, skip: Collection[str]) -> list[str]:
        names = []
        for rel in self._entries:
            sub, sep, name = rel.partition("/")
            if sep and "/" not in name and name.endswith(".json") and sub not in skip:
                names.append(rel)
        return sorted(names)

    def read_many(self, names: list[str]) -> Iterator[tuple[str, bytes | OSError]]:
        blobs = cat_file(self.workspace.path, [self._entries[n] for n in names])
        for name in names:
            data = blobs.get(self._entries[name])
            yield name, data if data is not None else FileNotFoundError(f"blob {self._entries[name]} is missing")


def unreadable(display: str, exc: OSError | Exception, severity: str = ERROR, rule: str = "artifact.unreadable") -> Finding:
    reason = getattr(exc, "strerror", None) or str(exc)
    return Finding(
        rule=rule,
        severity=severity,
        path=display,
        message=f"cannot read {display}: {reason}",
        hint="check the file's permissions; ds-gate only reads it",
    )


# ---------------------------------------------------------------- parsing


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (NaN and Infinity are Python's extensions)")


_STRICT = json.JSONDecoder(parse_constant=_no_constant)


def loads(text: str | bytes) -> Any:
    """``json.loads`` without NaN/Infinity: DeepScientist writes strict JSON, and a NaN
    compares false with everything, so it would slip past every range rule. One decoder
    for all: ``json.loads`` with a keyword builds a new one per call."""
    return _STRICT.decode(text if isinstance(text, str) else text.decode("utf-8"))


def parse_json_object(raw: bytes, display: str) -> tuple[dict[str, Any] | None, Finding | None]:
    """A record file as a dict, or a finding that says where it stops being JSON."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, Finding(
            rule="artifact.invalid-json",
            severity=ERROR,
            path=display,
            line=raw.count(b"\n", 0, exc.start) + 1,
            message=f"not UTF-8 text (byte {exc.start})",
            hint="artifact records are UTF-8 JSON; rewrite the file with DeepScientist or fix its encoding",
        )
    try:
        data = loads(text)
    except json.JSONDecodeError as exc:
        return None, Finding(
            rule="artifact.invalid-json",
            severity=ERROR,
            path=display,
            line=exc.lineno,
            message=f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            hint="the file may be truncated by an interrupted write; restore it from git or re-record the artifact",
        )
    except RecursionError:
        return None, Finding(
            rule="artifact.invalid-json",
            severity=ERROR,
            path=display,
            message="JSON nested too deeply to read",
            hint="an artifact record is a flat JSON object; this file is not one",
        )
    except ValueError as exc:  # NaN / Infinity
        return None, Finding(
            rule="artifact.invalid-json",
            severity=ERROR,
            path=display,
            message=f"invalid JSON: {exc}",
            hint="write null (or a number) instead; DeepScientist's records are strict JSON",
        )
    if not isinstance(data, dict):
        return None, Finding(
            rule="artifact.not-object",
            severity=ERROR,
            path=display,
            line=1,
            message=f"an artifact record must be a JSON object, this is a {type(data).__name__}",
            hint="restore the record from git or re-record the artifact",
        )
    return data, None


@dataclass(slots=True)
class RecordFile:
    """One parsed record file, alive only while the loader looks at it."""

    name: str  # below artifacts/, e.g. "runs/run-51c9ad07.json"
    display: str  # quest-relative path, for findings
    data: dict[str, Any] | None
    raw: bytes
    problem: Finding | None


def folders_for(kinds: Collection[str]) -> frozenset[str]:
    """The folders to skip when only ``kinds`` matter: those DeepScientist reserves for other
    kinds. Unknown folders (a fork's, an older layout's) are read, so no run hides there."""
    return frozenset(folder for kind, folder in ARTIFACT_DIRS.items() if kind not in kinds) | {"science"}


def read_records(reader: Reader, skip: Collection[str]) -> Iterator[RecordFile]:
    """Every ``artifacts/<folder>/<name>.json`` outside the ``skip`` folders, parsed."""
    names = reader.record_names(skip)
    for name, raw in reader.read_many(names):
        display = reader.workspace.display(f"artifacts/{name}")
        if isinstance(raw, OSError):
            yield RecordFile(name, display, None, b"", unreadable(display, raw))
            continue
        data, problem = parse_json_object(raw, display)
        yield RecordFile(name, display, data, raw, problem)


@dataclass(slots=True)
class IndexEntry:
    artifact_id: str
    kind: str
    path: str | None
    line: int


def index_lines(reader: Reader) -> Iterator[bytes]:
    """The index a line at a time (with its newline): a folder's is streamed from the file,
    so a 50 MB index is never held whole."""
    stream = getattr(reader, "index_stream", None)
    if stream is not None:
        yield from stream()
        return
    raw = reader.index_bytes()
    if raw:
        import io

        yield from io.BytesIO(raw)


def read_index(reader: Reader, kinds: Collection[str] | None) -> Iterator[IndexEntry | Finding]:
    """Index lines of the wanted kinds; malformed lines become warnings, never stop the read.

    The index only adds what the record files cannot say (a record that was indexed but
    is gone), so a bad line is a warning: the records themselves are still read.
    """
    display = reader.workspace.display(f"artifacts/{INDEX_NAME}")
    for number, line in enumerate(index_lines(reader), start=1):
        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if not line.strip():
            continue
        try:
            entry = loads(line)
        except (ValueError, RecursionError) as exc:
            partial = not line.endswith(b"\n")  # the last line, unfinished: a writer may be mid-append
            yield Finding(
                rule="index.partial-line" if partial else "index.invalid-line",
                severity=WARNING,
                path=display,
                line=number,
                message=(
                    "the last line has no newline and is not complete JSON (a write in progress?); skipped"
                    if partial
                    else f"line is not valid JSON ({exc}); skipped"
                ),
                hint="the record files are still read; rewrite or delete the broken index line",
            )
            continue
        if not isinstance(entry, dict):
            yield Finding(
                rule="index.invalid-line",
                severity=WARNING,
                path=display,
                line=number,
                message=f"line is a JSON {type(entry).__name__}, not an object; skipped",
                hint="each index line is one JSON object describing one artifact",
            )
            continue
        kind, artifact_id = entry.get("kind"), entry.get("artifact_id")
        if not isinstance(kind, str) or not isinstance(artifact_id, str):
            continue
        if kinds is not None and kind not in kinds:
            continue
        path = entry.get("path")
        yield IndexEntry(artifact_id, kind, path if isinstance(path, str) else None, number)
