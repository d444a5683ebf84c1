"""Issue 38.8: a recall's answer is kept while nothing it read has changed, and a later process is
given it by the kernel before the command line loads (``kernel.answers``, ``cli.kept``); it never
gives a stale one. Each change below makes the next process answer anew, and that answer is the
full path's (``--no-cache``, which keeps nothing). Real processes, real files, a real cache folder.
"""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ds_gate.kernel.cache_folder import GRANULARITY

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

TAG = "topic:routing"
# what the kernel's answer never loads (the full path's first modules)
NEVER = ("argparse", "dataclasses", "typing", "json", "sqlite3", "pathlib")
# runs ``python -m ds_gate`` as -m does (runpy), then writes which ds_gate modules and NEVER it loaded
PROBE = (
    f"import sys, runpy\nNEVER = {NEVER!r}\n"
    "marker = sys.argv.pop(1)\n"
    "try:\n"
    "    runpy.run_module('ds_gate', run_name='__main__', alter_sys=True)\n"
    "finally:\n"
    "    with open(marker, 'w') as out:\n"
    "        out.write(' '.join(m for m in sys.modules if m.startswith('ds_gate.') or m in NEVER))\n"
)


def card(folder: Path, name: str, claim: str, tags: tuple[str, ...] = (TAG,), day: int = 1) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(
        f"---\nid: {name}\ntype: knowledge\nkind: knowledge\ntitle: {name} lesson\ntags: [{', '.join(tags)}]\n"
        f"updated_at: '2026-01-{day:02d}T00:00:00+00:00'\nclaim: {claim}\n---\n{claim} Routers drift.\n"
    )
    return path


def quest(home: Path, quest_id: str, claim: str) -> Path:
    root = home / "quests" / quest_id
    root.mkdir(parents=True)
    (root / "quest.yaml").write_text(f"quest_id: '{quest_id}'\n")
    card(root / "memory" / "knowledge", f"k-{quest_id}", claim)
    return root


def shared(home: Path) -> None:
    (home / "config").mkdir(exist_ok=True)
    (home / "config" / "config.yaml").write_text("memory:\n  read_visibility_mode: shared_across_quests\n")


class Asker:
    """Runs recall as a process in one environment, and says whether the kernel answered."""

    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        self.tmp, self.env = tmp, env

    def __call__(self, *args: str, stdout: Any = subprocess.PIPE) -> tuple[int, bytes, bytes, bool]:
        marker = self.tmp / "loaded"
        done = subprocess.run(
            [sys.executable, "-c", PROBE, str(marker), "recall", *args],
            env=self.env,
            cwd=self.tmp,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
        loaded = marker.read_text().split()
        kept = "ds_gate.kernel.answers" in loaded and "ds_gate.cli.main" not in loaded
        assert kept or "ds_gate.cli.main" in loaded, loaded
        return done.returncode, done.stdout or b"", done.stderr, kept

    def truth(self, *args: str) -> tuple[int, bytes, bytes]:
        """The full path's answer, which keeps and reads nothing kept (``--no-cache``)."""
        code, out, err, kept = self(*args, "--no-cache")
        assert not kept
        return code, out, err


def settle() -> None:
    """An answer is kept only from files older than the run's start by the granularity."""
    time.sleep(GRANULARITY / 1e9 + 0.2)


def make_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DS_", "DEEPSCIENTIST_"))}
    return {**env, "DS_GATE_CACHE_DIR": str(tmp / "cache"), "PYTHONDONTWRITEBYTECODE": "1", **extra}


# Each case: (set up the home and return the recall arguments and extra environment, the change)
Setup = Callable[[Path, Path], tuple[list[str], dict[str, str]]]
Change = Callable[[Path, Path, dict[str, str]], None]


def _global(home: Path, tmp: Path) -> tuple[list[str], dict[str, str]]:
    card(home / "memory" / "knowledge", "k-1", "Warm up the router first.")
    card(home / "memory" / "knowledge", "k-2", "Seed the router twice.", day=2)
    return ["--home", str(home), "--tags", TAG, "--format", "json"], {}


def _edit_in_place(home: Path, tmp: Path, env: dict[str, str]) -> None:
    path = home / "memory" / "knowledge" / "k-1.md"
    before = path.stat()
    path.write_text(path.read_text().replace("Warm up the router first.", "Cool down the routers now"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size, same mtime: ctime differs
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def _add(home: Path, tmp: Path, env: dict[str, str]) -> None:
    card(home / "memory" / "knowledge", "k-3", "Anneal the router.", day=3)


def _remove(home: Path, tmp: Path, env: dict[str, str]) -> None:
    (home / "memory" / "knowledge" / "k-2.md").unlink()


def _nested_idea(home: Path, tmp: Path, env: dict[str, str]) -> None:
    card(home / "memory" / "ideas" / "idea-7", "k-idea", "An idea about routers.", day=4)


def _siblings(home: Path, tmp: Path) -> tuple[list[str], dict[str, str]]:
    card(home / "memory" / "knowledge", "k-1", "Warm up the router first.")
    quest(home, "002", "The sibling's routing lesson.")
    return ["--home", str(home), "--tags", TAG, "--format", "json"], {}


def _visibility(home: Path, tmp: Path, env: dict[str, str]) -> None:
    shared(home)


def _shared_siblings(home: Path, tmp: Path) -> tuple[list[str], dict[str, str]]:
    args, env = _siblings(home, tmp)
    shared(home)
    return args, env


def _add_sibling(home: Path, tmp: Path, env: dict[str, str]) -> None:
    quest(home, "003", "A newer sibling's routing lesson.")


def _shared_with_a_folder(home: Path, tmp: Path) -> tuple[list[str], dict[str, str]]:
    args, env = _shared_siblings(home, tmp)
    card(home / "quests" / "004" / "memory" / "knowledge", "k-004", "Not yet a quest's routing lesson.")
    return args, env


def _initialise(home: Path, tmp: Path, env: dict[str, str]) -> None:
    (home / "quests" / "004" / "quest.yaml").write_text("quest_id: '004'\n")


def _quirks(home: Path, tmp: Path, env: dict[str, str]) -> None:
    (home / "framework_quirks.md").write_text(
        "# Framework quirks\n\n## routing router drift\nSymptom: routers drift.\n"
    )


def _jsonl(home: Path, tmp: Path) -> tuple[list[str], dict[str, str]]:
    card(home / "memory" / "knowledge", "k-1", "Warm up the router first.")
    (tmp / "findings.jsonl").write_text(json.dumps({"type": "pitfall", "lesson": "routing drift"}) + "\n")
    return ["--home", str(home), "--query", "routing drift", "--jsonl", "findings.jsonl", "--format", "json"], {}


def _jsonl_edit(home: Path, tmp: Path, env: dict[str, str]) -> None:
    path = tmp / "findings.jsonl"
    with path.open("a") as out:
        out.write(json.dumps({"type": "pitfall", "lesson": "routing drift again, worse"}) + "\n")


def _by_env(home: Path, tmp: Path) -> tuple[list[str], dict[str, str]]:
    card(home / "memory" / "knowledge", "k-1", "Warm up the router first.")
    card(tmp / "other-home" / "memory" / "knowledge", "k-other", "The other home's router lesson.")
    return ["--tags", TAG, "--format", "json"], {"DEEPSCIENTIST_HOME": str(home)}


def _env_var(home: Path, tmp: Path, env: dict[str, str]) -> None:
    env["DEEPSCIENTIST_HOME"] = str(tmp / "other-home")


def _trusted(home: Path, tmp: Path) -> tuple[list[str], dict[str, str]]:
    card(home / "memory" / "knowledge", "k-1", "Warm up the router first.")
    config = tmp / "trusted" / "config.yaml"
    config.parent.mkdir()
    config.write_text("require: false\n")
    (config.parent / "lessons.jsonl").write_text(json.dumps({"type": "pitfall", "lesson": "routing drift"}) + "\n")
    return ["--home", str(home), "--query", "routing drift", "--format", "json"], {"DS_GATE_CONFIG": str(config)}


def _trusted_edit(home: Path, tmp: Path, env: dict[str, str]) -> None:
    (tmp / "trusted" / "config.yaml").write_text("recall_jsonl: [lessons.jsonl]\n")


def _linked(home: Path, tmp: Path) -> tuple[list[str], dict[str, str]]:
    card(home / "memory" / "knowledge", "k-1", "Warm up the router first.")
    card(tmp / "other-home" / "memory" / "knowledge", "k-other", "The other home's router lesson.")
    (tmp / "home-link").symlink_to(home, target_is_directory=True)
    return ["--home", "home-link", "--tags", TAG, "--format", "json"], {}


def _relink(home: Path, tmp: Path, env: dict[str, str]) -> None:
    (tmp / "home-link").unlink()
    (tmp / "home-link").symlink_to(tmp / "other-home", target_is_directory=True)


CASES: dict[str, tuple[Setup, Change]] = {
    "a card edited in place (same size, same mtime)": (_global, _edit_in_place),
    "a card added": (_global, _add),
    "a card removed": (_global, _remove),
    "a card added in an idea's folder": (_global, _nested_idea),
    "config.yaml's visibility changed": (_siblings, _visibility),
    "a sibling quest added": (_shared_siblings, _add_sibling),
    "a folder of quests/ made a quest": (_shared_with_a_folder, _initialise),
    "a quirks file added": (_shared_siblings, _quirks),
    "a JSONL file changed": (_jsonl, _jsonl_edit),
    "an environment variable changed": (_by_env, _env_var),
    "the trusted configuration changed": (_trusted, _trusted_edit),
    "the home's link re-pointed": (_linked, _relink),
}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path, list[str], dict[str, str]]]:
    """Every case's home, made at once, then left to settle once (not a sleep per case)."""
    out = {}
    for name, (setup, _) in CASES.items():
        tmp = tmp_path_factory.mktemp("kept")
        home = tmp / "DeepScientist"
        (home / "quests").mkdir(parents=True)
        args, extra = setup(home, tmp)
        out[name] = (tmp, home, args, make_env(tmp, **extra))
    settle()
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_every_change_to_what_an_answer_read_makes_the_next_process_answer_anew(prepared, case) -> None:
    tmp, home, args, env = prepared[case]
    ask = Asker(tmp, env)
    first = ask(*args)
    assert not first[3] and first[0] == 0  # the full path answered, and kept its answer
    again = ask(*args)
    assert again[3], "the kernel gave the kept answer"
    assert again[:3] == first[:3]  # byte for byte, stdout and stderr, and the exit code
    CASES[case][1](home, tmp, env)
    code, out, err, kept = ask(*args)
    assert not kept
    assert (code, out, err) == ask.truth(*args)
    assert out != first[1], "the change changes the answer"


def test_a_tampered_answer_is_not_believed(tmp_path: Path) -> None:
    home = tmp_path / "DeepScientist"
    args, _ = _global(home, tmp_path)
    settle()
    ask = Asker(tmp_path, make_env(tmp_path))
    first = ask(*args)
    assert ask(*args)[3]
    (answer,) = (tmp_path / "cache" / "answers").iterdir()
    data = bytearray(answer.read_bytes())
    spot = data.find(b"Seed the router")
    data[spot : spot + 4] = b"Feed"  # a kept answer edited by hand: its seal no longer holds
    answer.write_bytes(bytes(data))
    code, out, err, kept = ask(*args)
    assert not kept and (code, out, err) == first[:3]


def test_text_to_a_terminal_is_answered_by_the_full_path(tmp_path: Path) -> None:
    home = tmp_path / "DeepScientist"
    args, _ = _global(home, tmp_path)
    text = [a for a in args if a not in ("--format", "json")]
    settle()
    ask = Asker(tmp_path, make_env(tmp_path))
    ask(*text)
    assert ask(*text)[3]  # to a pipe: kept, and given
    parent, child = pty.openpty()
    try:
        assert not ask(*text, stdout=child)[3]  # to a terminal: laid out for it, by the full path
    finally:
        os.close(parent)
        os.close(child)


def test_the_console_script_is_answered_by_the_kernel_too(tmp_path: Path) -> None:
    """``ds-gate`` (``cli.entry:main``): the same kept answer, without the command line's modules."""
    home = tmp_path / "DeepScientist"
    args, _ = _global(home, tmp_path)
    settle()
    env = make_env(tmp_path)
    script = shutil.which("ds-gate", path=str(Path(sys.executable).parent))
    assert script is not None
    runs = [
        subprocess.run(
            [sys.executable, "-X", "importtime", script, "recall", *args],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            timeout=120,
            check=True,
        )
        for _ in range(2)
    ]
    assert runs[0].stdout == runs[1].stdout and json.loads(runs[1].stdout)["results"]
    assert b"ds_gate.cli.main" in runs[0].stderr  # the first: the full path
    assert b"ds_gate.kernel.answers" in runs[1].stderr and b"ds_gate.cli.main" not in runs[1].stderr
    assert b"argparse" not in runs[1].stderr


def test_a_warm_recall_process_loads_the_kernel_alone(tmp_path: Path) -> None:
    home = tmp_path / "DeepScientist"
    args, _ = _global(home, tmp_path)
    settle()
    ask = Asker(tmp_path, make_env(tmp_path))
    ask(*args)
    ask(*args)
    loaded = (tmp_path / "loaded").read_text().split()
    assert "ds_gate.kernel.answers" in loaded
    assert all(m == "ds_gate.kernel" or m.startswith("ds_gate.kernel.") for m in loaded), loaded  # no model, cli
    assert not set(NEVER) & set(loaded), loaded
