"""``kernel.spawn``: the commit hook's programs, started without ``subprocess``. Since issue 17
they take input too (``cat-file`` in the hook's folder) and may run beside the hook
(``git worktree list``), so the pipes must never stall, whatever the sizes."""

from __future__ import annotations

import os
import shutil

from ds_gate.kernel.spawn import start

ENV = dict(os.environ)


def program(name: str) -> str:
    found = shutil.which(name)
    assert found is not None
    return found


def test_input_larger_than_a_pipe_comes_back_whole() -> None:
    data = bytes(range(256)) * 16_384  # 4 MB: far beyond a pipe's buffer, both ways at once
    done = start([program("cat")], ENV, data).wait()
    assert (done.returncode, done.stdout, done.stderr) == (0, data, b"")


def test_a_program_that_reads_no_input_is_not_waited_for_forever() -> None:
    done = start([program("true")], ENV, b"x" * (4 << 20)).wait()
    assert done.returncode == 0 and done.stdout == b""


def test_a_started_program_runs_while_this_process_works_and_is_read_later() -> None:
    running = start([program("sh"), "-c", "echo out; echo err >&2; exit 3"], ENV)
    total = sum(range(100_000))  # this process's own work meanwhile
    done = running.wait()
    assert total and (done.returncode, done.stdout, done.stderr) == (3, b"out\n", b"err\n")


def test_without_input_the_program_reads_nothing() -> None:
    done = start([program("cat")], ENV).wait()
    assert (done.returncode, done.stdout) == (0, b"")
