"""A path that cannot be resolved is the usage error, exit 2, one line "ds-gate: <path>: <what> —
<fix>", as a missing path is, on every command that takes one; never exit 3 "internal error"
(issue 36, break 02: a 5,000-character path was ``OSError``, a loop of links ``RuntimeError``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate.demo.example_quest import ExampleQuest


@pytest.mark.slow
def test_bad_paths_are_usage_errors_on_the_command_line(make_quest, tmp_path: Path) -> None:
    quest: ExampleQuest = make_quest()
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "a-file").write_text("x")
    long, loop, a_file = "x" * 5000, str(tmp_path / "loop"), str(tmp_path / "a-file")
    root = str(quest.root)
    cases = [
        (["closure", long], "is longer than the file system allows — pass a shorter path"),
        (["candidates", long], "is longer than the file system allows"),
        (["recent", long], "is longer than the file system allows"),
        (["closure", loop], f"{loop}: its symbolic links lead in a loop — fix or remove the link"),
        (["closure", a_file + "/below"], "a part of the path that should be a folder is a file — pass the path"),
        (["recall", "--home", loop], f"{loop}: its symbolic links lead in a loop"),
        (["recall", "--home", a_file], f"{a_file}: the DeepScientist home (--home or home=) is not a folder — pass"),
        (["closure", root, "--home", loop], f"{loop}: its symbolic links lead in a loop"),
        (["closure", root, "--home", a_file], "is not a folder"),
        (["closure", str(tmp_path / "missing")], f"{tmp_path / 'missing'}: no such file or directory"),
    ]
    for args, words in cases:
        done = subprocess.run([sys.executable, "-m", "ds_gate", *args], capture_output=True, text=True, timeout=120)
        err = done.stderr.strip()
        assert (done.returncode, len(err.splitlines())) == (2, 1), (args[0], done.returncode, err[:300])
        assert err.startswith("ds-gate: ") and words in err and "internal error" not in err, (args[0], err[:300])
        assert len(err) < 600  # the 5,000-character path is cut, not pasted
