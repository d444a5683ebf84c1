"""Memory bounded by the size limit, not by the input (issue 15, class 12): a 1 GB sparse
record once cost 2.1 GB and ``validate /dev/zero`` was OOM-killed. Files over the limit are
refused from their size, and a FIFO or device is never read; each case runs the real CLI in
a subprocess, so a regression shows as a memory figure or a timeout, never a hung suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from corpus import GB, sparse
from helpers import git

MB = 1 << 20
PEAK = (
    "import resource, subprocess, sys; "
    "p = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=60); "
    "sys.stderr.write(p.stderr); sys.stdout.write(p.stdout); "
    "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


@pytest.fixture
def quest(one_run_quest):
    return one_run_quest


def ds_gate(*args: str, env: dict[str, str] | None = None, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ds_gate", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def check_json(quest: Any, *args: str, env: dict[str, str] | None = None) -> tuple[int, list[dict[str, Any]]]:
    done = ds_gate("check", str(quest.root), *args, "--format", "json", env=env)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)["findings"]


@pytest.mark.slow
def test_a_sparse_1_gb_record_is_refused_in_bounded_memory(quest) -> None:
    """Before: ``check`` peaked at 2,065 MB RSS (bytes, then text, then JSON). After: ~20 MB."""
    record = quest.root / "artifacts" / "runs" / "run-huge.json"
    sparse(record, GB, b'{"kind": "run", "artifact_id": "run-huge", "summary": "')
    done = subprocess.run(
        [sys.executable, "-c", PEAK, sys.executable, "-m", "ds_gate", "check", str(quest.root), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    report, tail = done.stdout.rsplit("\n", 2)[0], done.stdout.rsplit("\n", 2)[1]
    code, peak_kb = map(int, tail.split())
    findings = json.loads(report)["findings"]
    assert code == 1 and [f["rule"] for f in findings] == ["input.too-large"]
    assert findings[0]["path"] == "artifacts/runs/run-huge.json"
    assert findings[0]["message"] == "artifacts/runs/run-huge.json is larger than 64 MB (1,024.0 MB), not read"
    assert peak_kb < 200 * 1024, f"peak RSS {peak_kb // 1024} MB"


@pytest.mark.slow
def test_a_sparse_1_gb_card_is_refused_in_bounded_memory(quest) -> None:
    sparse(quest.root / "memory" / "knowledge" / "big.md", GB, b"---\nid: knowledge-big\ntitle: ")
    done = subprocess.run(
        [sys.executable, "-c", PEAK, sys.executable, "-m", "ds_gate", "check", str(quest.root), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    report, tail = done.stdout.rsplit("\n", 2)[0], done.stdout.rsplit("\n", 2)[1]
    code, peak_kb = map(int, tail.split())
    assert code == 1 and [(f["rule"], f["path"]) for f in json.loads(report)["findings"]] == [
        ("input.too-large", "memory/knowledge/big.md")
    ]
    assert peak_kb < 200 * 1024, f"peak RSS {peak_kb // 1024} MB"


@pytest.mark.slow
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_validate_refuses_a_device_at_once(device: str) -> None:
    done = ds_gate("validate", device, timeout=10)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    errors = [line for line in done.stdout.splitlines() if "error [" in line]
    assert errors == [
        f"{device}: error [input.unreadable] cannot read {device}: not a regular file (a character device)"
    ]


@pytest.mark.slow
def test_validate_refuses_a_fifo_without_waiting_for_a_writer(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "run-1.json")
    done = ds_gate("validate", str(tmp_path / "run-1.json"), timeout=10)
    assert done.returncode == 2 and "not a regular file (a named pipe)" in done.stdout


@pytest.mark.slow
def test_fifos_in_place_of_a_record_a_card_and_quest_yaml_never_block(quest) -> None:
    """Listed files that are FIFOs are skipped (they are not records DeepScientist wrote);
    ``quest.yaml`` as a FIFO is unreadable, so closure stops on it as on a broken one."""
    os.mkfifo(quest.root / "artifacts" / "runs" / "run-fifo.json")
    (quest.root / "memory" / "knowledge").mkdir(parents=True)
    os.mkfifo(quest.root / "memory" / "knowledge" / "fifo.md")
    code, findings = check_json(quest)
    assert code == 0 and findings == []
    (quest.root / "quest.yaml").unlink()
    os.mkfifo(quest.root / "quest.yaml")
    code, findings = check_json(quest)
    assert code == 0 and [f["rule"] for f in findings] == ["quest.yaml-invalid"]
    assert "not a regular file (a named pipe)" in findings[0]["message"]
    closure = ds_gate("closure", str(quest.root))
    assert closure.returncode == 2 and "not a regular file" in closure.stderr


def big_record(quest: Any, artifact_id: str = "run-big") -> Path:
    """A 2 MB run record: valid JSON, over a 1 MB limit."""
    data = {
        "kind": "run",
        "artifact_id": artifact_id,
        "run_kind": "main_experiment",
        "status": "completed",
        "summary": "x" * (2 * MB),
    }
    path = quest.root / "artifacts" / "runs" / f"{artifact_id}.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.slow
def test_the_limit_is_the_environments_and_a_record_under_it_is_read(quest) -> None:
    big_record(quest)
    code, findings = check_json(quest)  # 2 MB is well under the default 64 MB: read like any record
    assert code == 0 and "input.too-large" not in {f["rule"] for f in findings}
    code, findings = check_json(quest, env={**os.environ, "DS_GATE_MAX_FILE_MB": "1"})
    [finding] = [f for f in findings if f["rule"] == "input.too-large"]
    assert code == 1 and finding["path"] == "artifacts/runs/run-big.json"
    assert "larger than 1 MB (2.0 MB), not read" in finding["message"] and "DS_GATE_MAX_FILE_MB" in finding["hint"]
    bad = ds_gate("check", str(quest.root), env={**os.environ, "DS_GATE_MAX_FILE_MB": "lots"})
    assert (
        bad.returncode == 2
        and bad.stderr.strip() == "ds-gate: DS_GATE_MAX_FILE_MB must be a positive number of megabytes, not 'lots'"
    )


@pytest.mark.slow
def test_a_record_over_the_limit_in_git_is_the_same_finding_as_in_a_folder(quest) -> None:
    """A blob's size is asked first (``cat-file --batch-check``): it is never read, and the
    git source's verdict is the folder source's."""
    big_record(quest)
    quest.checkpoint(quest.root, "big")
    git(quest.root, "branch", "idea/001-a")  # a tip no folder has checked out: read from git by default
    env = {**os.environ, "DS_GATE_MAX_FILE_MB": "1"}
    code, from_folders = check_json(quest, "--from-folders", env=env)
    assert code == 1 and [(f["rule"], f["path"]) for f in from_folders if f["rule"] == "input.too-large"] == [
        ("input.too-large", "artifacts/runs/run-big.json")
    ]
    code, from_git = check_json(quest, "--from-git", env=env)
    too_large = [(f["rule"], f["path"]) for f in from_git if f["rule"] == "input.too-large"]
    assert code == 1 and too_large == [("input.too-large", "refs/heads/idea/001-a:artifacts/runs/run-big.json")]
    assert [f["message"].split(" is ", 1)[1] for f in from_git if f["rule"] == "input.too-large"] == [
        f["message"].split(" is ", 1)[1] for f in from_folders if f["rule"] == "input.too-large"
    ]


@pytest.mark.slow
def test_a_checkpoint_staging_a_record_over_the_limit_commits_with_a_warning(quest) -> None:
    """DeepScientist accepts a large record, so an ordinary checkpoint only warns (discipline);
    the closure gate fails closed on the record it could not read."""
    assert ds_gate("install", str(quest.root)).returncode == 0
    big_record(quest)
    env = {**os.environ, "DS_GATE_MAX_FILE_MB": "1"}
    git(quest.root, "add", "-A")
    done = subprocess.run(
        ["git", "commit", "-q", "-m", "artifact: big run"], cwd=quest.root, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning [input.too-large]" in done.stdout + done.stderr
    closure = ds_gate("closure", str(quest.root), "--format", "json", env=env)
    assert closure.returncode == 1 and "input.too-large" in {f["rule"] for f in json.loads(closure.stdout)["findings"]}


@pytest.mark.slow
def test_recall_refuses_a_jsonl_over_the_limit_with_one_line(home: Path, tmp_path: Path) -> None:
    findings = tmp_path / "findings.jsonl"
    sparse(findings, GB, b'{"type": "finding", "content": "')
    done = ds_gate("recall", "--tags", "topic:a", "--home", str(home), "--jsonl", str(findings), timeout=10)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "is larger than 64 MB (1,024.0 MB), not read" in done.stderr


def test_a_read_is_bounded_even_when_the_file_is_larger_than_fstat_said() -> None:
    """Not a race run for real: a file whose size ``fstat`` under-reports (``/proc`` files
    report 0) still stops at the limit plus one byte."""
    from ds_gate.kernel.fs import TooLarge, read_file

    status = Path("/proc/self/status")
    assert os.stat(status).st_size == 0 and len(read_file(status)) > 0  # read, though fstat said 0 bytes
    with pytest.raises(TooLarge):
        read_file(status, limit=10)
