"""What the sources report when input cannot be read as DeepScientist wrote it
(``sources.problems``), driven on in-memory bytes and readers; a few need a real folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ds_gate.engine.collector import Collector
from ds_gate.engine.documents import GivenFile, check_documents, validate_files
from ds_gate.model.findings import INFO, WARNING, Finding
from ds_gate.model.records import Workspace
from ds_gate.sources.folders import FolderReader
from ds_gate.sources.location import Location
from ds_gate.sources.memory import parse_card
from ds_gate.sources.quest_yaml import read_quest_yaml, toggle_finding
from ds_gate.sources.records import parse_json_object, read_index, read_records
from ds_gate.sources.registered import GONE, Registration
from ds_gate.sources.workspaces import discover_workspaces

from rulecases import ROOT, MemoryReader, fired, raw_of

FAILS = {
    "artifact.invalid-json",
    "artifact.not-object",
    "artifact.too-deep",
    "artifact.unreadable",
    "artifact.id-mismatch",
    "index.invalid-line",
    "index.partial-line",
    "index.missing-record",
    "quest.no-quest-yaml",
    "quest.yaml-invalid",
    "quest.toggle-unrecognised",
    "quest.research-state-invalid",
    "workspace.outside-quest",
    "workspace.missing",
    "path.symlink-outside-quest",
    "card.frontmatter-invalid",
    "input.unreadable",
    "review.runs-not-checked",
    "input.too-large",
}
PASSES = set(FAILS)
RUN = {"kind": "run", "artifact_id": "run-1", "run_kind": "main_experiment", "status": "completed"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (raw_of(RUN), []),
        (b'{"kind": "run", "run_id": ', ["artifact.invalid-json"]),
        (b'{"kind": "run", "x": NaN, "y": [Infinity, -Infinity]}', []),  # DeepScientist's json.dumps writes them
        (b'\xff\xfe{"kind": "run"}', ["artifact.invalid-json"]),
        (b"[1, 2]", ["artifact.not-object"]),
        (b'{"kind": "run", "run_kind": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", ["artifact.too-deep"]),
    ],
    ids=["valid", "truncated", "NaN", "not UTF-8", "a list", "nested past any stack"],
)
def test_a_record_file_that_is_not_a_json_object(raw: bytes, expected: list[str]) -> None:
    data, problem = parse_json_object(raw, "artifacts/runs/run-1.json")
    assert fired([problem] if problem else []) == expected
    assert (data is None) == bool(expected)


def test_a_record_that_cannot_be_read_is_unreadable_not_missing() -> None:
    reader = MemoryReader({"runs/run-1.json": raw_of(RUN), "runs/run-2.json": PermissionError(13, "Permission denied")})
    files = list(read_records(reader, ()))
    assert [fired([f.problem]) if f.problem else [] for f in files] == [[], ["artifact.unreadable"]]
    assert "Permission denied" in files[1].problem.message  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (b'{"artifact_id": "run-1", "kind": "run"}\n', []),
        (b"not json\n", ["index.invalid-line"]),
        (b"[1]\n", ["index.invalid-line"]),
        (b'{"artifact_id": "run-1", "kind": "run"}\n{"artifact_id": "run-2", "ki', ["index.partial-line"]),
    ],
    ids=["valid", "not JSON", "not an object", "an unfinished last line"],
)
def test_index_lines(index: bytes, expected: list[str]) -> None:
    found = [item for item in read_index(MemoryReader({}, index), None) if isinstance(item, Finding)]
    assert fired(found) == expected and all(f.severity == WARNING for f in found)


def _collect(reader: MemoryReader) -> list[Finding]:
    collector = Collector(ROOT, [Workspace(ROOT, ".")])
    collector.read(reader)
    collector.resolve_index()
    return collector.findings


def test_an_indexed_run_without_its_record_is_missing() -> None:
    index = json.dumps({"artifact_id": "run-2", "kind": "run", "path": "/elsewhere/run-2.json"}).encode() + b"\n"
    assert fired(_collect(MemoryReader({"runs/run-1.json": raw_of(RUN)}, index))) == ["index.missing-record"]
    indexed = json.dumps({"artifact_id": "run-1", "kind": "run"}).encode() + b"\n"
    assert _collect(MemoryReader({"runs/run-1.json": raw_of(RUN)}, indexed)) == []


def test_a_record_whose_artifact_id_differs_from_its_file_name() -> None:
    assert fired(_collect(MemoryReader({"runs/run-9.json": raw_of(RUN)}))) == ["artifact.id-mismatch"]
    assert _collect(MemoryReader({"runs/run-1.json": raw_of(RUN)})) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("on", []),
        ({"mode": "ON"}, []),
        ("off", []),
        (None, []),
        (False, []),
        ("yes", ["quest.toggle-unrecognised"]),
        ({"mode": "enabled"}, ["quest.toggle-unrecognised"]),
    ],
)
def test_a_toggle_read_as_off_but_meant_as_on(value: object, expected: list[str]) -> None:
    finding = toggle_finding("experience_distill", value)
    assert fired([finding] if finding else []) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("quest_id: '001'\nstatus: active\n", []),
        (None, ["quest.no-quest-yaml"]),
        ("quest_id: [unclosed\n", ["quest.yaml-invalid"]),
        ("- a list\n", ["quest.yaml-invalid"]),
    ],
    ids=["valid", "missing", "not YAML", "not a mapping"],
)
def test_quest_yaml(tmp_path: Path, text: str | None, expected: list[str]) -> None:
    if text is not None:
        (tmp_path / "quest.yaml").write_text(text)
    _, found = read_quest_yaml(tmp_path)
    assert fired(found) == expected


def test_registered_worktrees_outside_the_quest_or_gone(tmp_path: Path) -> None:
    root = tmp_path / "quest"
    (root / ".ds" / "worktrees" / "idea").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    gone = Registration(root / ".ds" / "gone", "b2", "1" * 40, prunable=True, unlike=GONE, ref="refs/heads/b2")
    loc = Location(root=root, top=root, is_git=True, registered=[Registration(outside, "b1", "1" * 40), gone])
    workspaces, found = discover_workspaces(loc)
    assert fired(found) == ["workspace.missing", "workspace.outside-quest"]
    assert [f.severity for f in sorted(found, key=lambda f: f.rule)] == [INFO, WARNING]
    assert [ws.rel for ws in workspaces] == [".", ".ds/worktrees/idea"]
    assert discover_workspaces(Location(root=root, top=root, is_git=True))[1] == []


def test_a_research_state_that_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / ".ds").mkdir()
    (tmp_path / ".ds" / "research_state.json").write_text("{not json")
    assert fired(discover_workspaces(Location(root=tmp_path, top=tmp_path, is_git=False))[1]) == [
        "quest.research-state-invalid"
    ]
    (tmp_path / ".ds" / "research_state.json").write_text('{"research_head_worktree_root": null}')
    assert discover_workspaces(Location(root=tmp_path, top=tmp_path, is_git=False))[1] == []


def test_a_symbolic_link_out_of_the_quest_is_never_followed(tmp_path: Path) -> None:
    root, outside = tmp_path / "quest", tmp_path / "outside"
    (outside / "runs").mkdir(parents=True)
    (outside / "runs" / "run-1.json").write_bytes(raw_of(RUN))
    root.mkdir()
    os.symlink(outside, root / "artifacts")
    reader = FolderReader(Workspace(root, "."), root)
    assert fired(reader.findings) == ["path.symlink-outside-quest"] and reader.record_names(()) == []
    (root / "artifacts").unlink()
    (root / "artifacts").mkdir()
    assert FolderReader(Workspace(root, "."), root).findings == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"---\nid: knowledge-1\ntitle: t\n---\nbody\n", []),
        (b"---\nid: [unclosed\n---\nbody\n", ["card.frontmatter-invalid"]),
        (b"---\nid: knowledge-1\n", ["card.frontmatter-invalid"]),
        (b"---\n- a\n- list\n---\n", ["card.frontmatter-invalid"]),
    ],
    ids=["valid", "not YAML", "never closed", "not a mapping"],
)
def test_card_frontmatter(raw: bytes, expected: list[str]) -> None:
    card = parse_card(raw, path=Path("/nowhere/k.md"), display="memory/knowledge/k.md", scope="quest", kind="knowledge")
    assert card is not None and fired(card.findings) == expected and card.broken == bool(expected)


def test_a_review_validated_outside_a_quest_says_its_runs_were_not_checked() -> None:
    review = {
        "kind": "decision",
        "action": "distill_review",
        "verdict": "covered",
        "reason": "r",
        "reviewed_run_ids": ["run-1"],
        "cards_written": [],
        "reason_if_empty": "nothing",
    }
    found, checked = check_documents([GivenFile("review.json", raw_of(review), "decisions")], lambda doc: None)
    assert fired(found) == ["review.runs-not-checked"] and checked == 1 and found[0].severity == INFO
    plain = dict(review, action="continue")
    assert check_documents([GivenFile("d.json", raw_of(plain), "decisions")], lambda doc: None)[0] == []


def test_a_file_named_on_the_command_line_that_does_not_exist(tmp_path: Path) -> None:
    report, readable = validate_files([tmp_path / "nope.json"])
    assert fired(report.findings) == ["input.unreadable"] and not readable
    (tmp_path / "run-1.json").write_bytes(raw_of(RUN))
    report, readable = validate_files([tmp_path / "run-1.json"])
    assert report.findings == [] and readable


def test_an_impossible_date_in_yaml_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    """PyYAML parses 2026-02-30 as a timestamp and then fails to build it: bad input, not a bug."""
    card = parse_card(
        b"---\nid: k\ncreated_at: 2026-02-30\n---\nbody\n",
        path=Path("/nowhere/k.md"),
        display="memory/knowledge/k.md",
        scope="quest",
        kind="knowledge",
    )
    assert card is not None and fired(card.findings) == ["card.frontmatter-invalid"]
    (tmp_path / "quest.yaml").write_text("quest_id: '001'\ncreated_at: 2026-02-30\n")
    assert fired(read_quest_yaml(tmp_path)[1]) == ["quest.yaml-invalid"]


def test_a_record_that_vanishes_between_listing_and_reading_is_skipped_not_an_error(tmp_path: Path) -> None:
    """Issue 15: DeepScientist writes while the gate reads; a file gone since the listing is no finding."""
    (tmp_path / "artifacts" / "runs").mkdir(parents=True)
    for name in ("run-1", "run-2"):
        (tmp_path / "artifacts" / "runs" / f"{name}.json").write_bytes(raw_of(dict(RUN, artifact_id=name)))
    reader = FolderReader(Workspace(tmp_path, "."), tmp_path)
    names = reader.record_names(())
    (tmp_path / "artifacts" / "runs" / "run-2.json").unlink()
    assert [name for name, _ in reader.read_many(names)] == ["runs/run-1.json"]
    assert [f.problem for f in read_records(reader, ())] == [None]


# ---------------------------------------------------------------- the size limit (issue 15, class 12)

MB = 1 << 20


def sparse(path: Path, size: int, prefix: bytes = b"{") -> Path:
    """A file of ``size`` bytes that costs no disk: ``prefix``, then a hole of zeros."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        out.write(prefix)
        out.truncate(size)
    return path


def test_a_record_over_the_size_limit_is_too_large_and_one_at_the_limit_is_read(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DS_GATE_MAX_FILE_MB", "1")
    runs = tmp_path / "artifacts" / "runs"
    runs.mkdir(parents=True)
    raw = raw_of(RUN)
    (runs / "run-1.json").write_bytes(raw + b" " * (MB - len(raw)))  # exactly the limit: still JSON, still read
    sparse(runs / "run-2.json", MB + 1, raw_of(dict(RUN, artifact_id="run-2")))
    files = list(read_records(FolderReader(Workspace(tmp_path, "."), tmp_path), ()))
    assert [fired([f.problem]) if f.problem else [] for f in files] == [[], ["input.too-large"]]
    problem = files[1].problem
    assert problem is not None and problem.severity == "error" and "DS_GATE_MAX_FILE_MB" in (problem.hint or "")
    assert problem.message == "artifacts/runs/run-2.json is larger than 1 MB (1.0 MB), not read"
    assert files[1].raw == b""  # nothing of it is held


def test_the_limit_comes_from_the_environment_and_a_bad_value_is_a_usage_error(monkeypatch) -> None:
    from ds_gate.kernel.errors import QuestError
    from ds_gate.kernel.fs import DEFAULT_MAX_FILE_MB, max_file_bytes

    monkeypatch.delenv("DS_GATE_MAX_FILE_MB", raising=False)
    assert max_file_bytes() == DEFAULT_MAX_FILE_MB * MB == 64 * MB
    monkeypatch.setenv("DS_GATE_MAX_FILE_MB", " 0.5 ")
    assert max_file_bytes() == MB // 2
    for bad in ("0", "-3", "lots", "nan", "inf"):
        monkeypatch.setenv("DS_GATE_MAX_FILE_MB", bad)
        with pytest.raises(QuestError, match="DS_GATE_MAX_FILE_MB must be a positive number"):
            max_file_bytes()


def test_a_fifo_a_device_or_a_folder_is_refused_without_being_read(tmp_path: Path) -> None:
    """A FIFO with no writer would block ``open`` itself; ``/dev/zero`` would never end."""
    from ds_gate.kernel.fs import NotRegular, read_file

    os.mkfifo(tmp_path / "pipe.json")
    for path, kind in (
        (tmp_path / "pipe.json", "a named pipe"),
        ("/dev/zero", "a character device"),
        (tmp_path, "a directory"),
    ):
        with pytest.raises(NotRegular, match=f"not a regular file \\({kind}\\)"):
            read_file(path)


def test_a_link_is_followed_only_when_the_caller_says_so(tmp_path: Path) -> None:
    from ds_gate.kernel.fs import read_file

    (tmp_path / "real.json").write_bytes(b"{}")
    os.symlink(tmp_path / "real.json", tmp_path / "link.json")
    assert read_file(tmp_path / "link.json") == b"{}"
    with pytest.raises(OSError):
        read_file(tmp_path / "link.json", follow=False)  # O_NOFOLLOW: a path the caller resolved stays resolved


def test_validate_refuses_a_device_as_unreadable_and_a_large_file_as_too_large(tmp_path: Path, monkeypatch) -> None:
    report, readable = validate_files(["/dev/zero"])
    assert fired(report.findings) == ["input.unreadable"] and not readable  # exit 2: the caller named the wrong thing
    assert "not a regular file (a character device)" in report.findings[0].message
    monkeypatch.setenv("DS_GATE_MAX_FILE_MB", "1")
    report, readable = validate_files([sparse(tmp_path / "run-1.json", 2 * MB, raw_of(RUN))])
    assert fired(report.findings) == ["input.too-large"] and readable  # a finding like any record's (exit 1)


def test_an_index_line_over_the_limit_is_skipped_unread_and_later_lines_keep_their_numbers(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("DS_GATE_MAX_FILE_MB", "1")
    (tmp_path / "artifacts").mkdir()
    good = b'{"artifact_id": "run-1", "kind": "run"}\n'
    (tmp_path / "artifacts" / "_index.jsonl").write_bytes(good + b"x" * (2 * MB) + b"\n" + b"not json\n" + good)
    reader = FolderReader(Workspace(tmp_path, "."), tmp_path)
    items = list(read_index(reader, None))
    found = [(f.rule, f.line) for f in items if isinstance(f, Finding)]
    assert found == [("index.invalid-line", 2), ("index.invalid-line", 3)]
    assert "larger than 1 MB (2.0 MB)" in items[1].message  # type: ignore[union-attr]
    assert [e.line for e in items if not isinstance(e, Finding)] == [1, 4]


def test_an_index_is_streamed_so_it_may_be_larger_than_a_record_but_not_without_bound(
    tmp_path: Path, monkeypatch
) -> None:
    from ds_gate.kernel.fs import INDEX_FACTOR

    monkeypatch.setenv("DS_GATE_MAX_FILE_MB", "1")
    index = tmp_path / "artifacts" / "_index.jsonl"
    line = b'{"artifact_id": "run-1", "kind": "run"}\n'
    index.parent.mkdir()
    index.write_bytes(line * (2 * MB // len(line)))  # twice the file limit: read, a line at a time
    reader = FolderReader(Workspace(tmp_path, "."), tmp_path)
    assert not any(isinstance(i, Finding) for i in read_index(reader, None)) and reader.findings == []
    sparse(index, INDEX_FACTOR * MB + 1)
    reader = FolderReader(Workspace(tmp_path, "."), tmp_path)
    assert list(read_index(reader, None)) == []
    assert fired(reader.findings) == ["input.too-large"] and reader.findings[0].severity == WARNING
