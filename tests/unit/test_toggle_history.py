"""``sources.toggle_seen`` reads the history of ``quest.yaml`` in batches bounded by the file
limit in total, not only per blob: a history of many large versions (which git compresses to
almost nothing) is never held whole. Driven on a real repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ds_gate.kernel.fs import MAX_FILE_VARIABLE
from ds_gate.sources.history import batches as _batches
from ds_gate.sources.toggle_seen import _history_blobs


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_history_blobs_are_read_in_batches_bounded_by_the_file_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    for i in range(6):  # six versions of ~300 KB each
        (tmp_path / "quest.yaml").write_text(f"quest_id: '001'\nversion: {i}\npadding: '{'x' * 300_000}'\n")
        git(tmp_path, "add", "-A")
        git(tmp_path, "commit", "-q", "-m", f"v{i}")
    monkeypatch.setenv(MAX_FILE_VARIABLE, "1")  # 1 MB: three versions at most a batch
    blobs = _history_blobs(tmp_path)
    batches = list(_batches(tmp_path, blobs))
    assert [item for batch in batches for item in batch] == blobs  # every blob, oldest first, once
    assert len(blobs) == 6 and [len(b) for b in batches] == [3, 3]
    monkeypatch.setenv(MAX_FILE_VARIABLE, "64")
    assert [len(b) for b in _batches(tmp_path, blobs)] == [6]
