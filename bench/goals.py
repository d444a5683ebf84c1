"""Issue 17's goals, each against its baseline, measured in one run, interleaved, medians.

    python bench/goals.py [--runs 7] [--sizes 2000 20000 100000] [--keep DIR] [--only closure|hook|xdist] [--old TREE]
    # (also called by run.py)

- closure, 2,000 runs in 20 worktrees (odd worktrees branch from the previous one, so they
  hold copies of its records, as DeepScientist's quests do): in process against PR #60's
  gate (``bench/pr60.py``, a re-implementation: PR #60 is not installable); as a process on a
  first run (an empty record cache each time) and a repeated run (the cache warm) against
  the parse floor (``bench/floor.py``);
- larger quests: a first run against the floor, peak memory against PR #60's process;
- the commit hook against a minimal hook (``python -c pass && git diff --cached``);
- ``pytest --ds-gate`` with ``-n 2`` against serial, on one quest.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = sys.executable
sys.path.insert(0, str(HERE))

from gen import make_quest  # noqa: E402
from run import as_installed, row, timed  # noqa: E402

Step = tuple[list[str], dict[str, str] | None, Callable[[], None] | None]


def rounds(steps: dict[str, Step], runs: int, cwd: Path | None = None) -> dict[str, tuple[list[float], int]]:
    """Every step once per round (after one warm-up round): times and peak RSS (KB) per step.
    The order rotates each round, so no step always follows the same one."""
    out: dict[str, tuple[list[float], int]] = {name: ([], 0) for name in steps}
    names = list(steps)
    for n in range(runs + 1):
        for name in names[n % len(names):] + names[:n % len(names)]:
            cmd, env, prep = steps[name]
            if prep is not None:
                prep()
            seconds, rss, _ = timed(cmd, cwd, env)
            if n:
                times, peak = out[name]
                times.append(seconds)
                out[name] = (times, max(peak, rss))
    return out


def ratio(data: dict[str, tuple[list[float], int]], a: str, b: str) -> float:
    return statistics.median(x / y for x, y in zip(data[a][0], data[b][0], strict=True))


def med(data: dict[str, tuple[list[float], int]], name: str) -> float:
    return statistics.median(data[name][0])


def closure_steps(quest: Path, cache: Path) -> dict[str, Step]:
    env = {**os.environ, "DS_GATE_CACHE_DIR": str(cache)}
    gate = [PY, "-m", "ds_gate", "closure", str(quest), "--format", "json"]
    return {
        "first": (gate, env, lambda: shutil.rmtree(cache, ignore_errors=True)),  # an empty cache: a first run
        "floor": ([PY, str(HERE / "floor.py"), str(quest)], None, None),
        "pr60": ([PY, str(HERE / "pr60.py"), str(quest)], None, None),
        "repeated": (gate, env, None),  # the cache the first run left
    }


def bench_closure(base: Path, runs: int, sizes: list[int]) -> None:
    for size in sizes:
        worktrees = max(20, size // 100)
        quest = base / f"q{size}" / "quests" / "001"
        if not quest.exists():
            print(f"generating {size:,} runs / {worktrees} worktrees (with inherited copies) ...", flush=True)
            make_quest(quest, size, worktrees, worktrees * 2, inherit=True)
        lines = sum(1 for p in quest.rglob("artifacts/_index.jsonl") for _ in p.open())
        print(f"{size:,} runs: {lines:,} index lines", flush=True)
        os.utime(quest)  # the record cache trusts only files older than its granularity (2 s)
        import time

        time.sleep(2.2)
        label = f"{size:,} runs"
        if size == sizes[0]:
            done = subprocess.run([PY, str(HERE / "inprocess.py"), str(quest), "--runs", str(runs + 2)],
                                  capture_output=True, text=True, check=True)
            inproc = json.loads(done.stdout)
            row(f"closure in process, {label}, first run (no cache)", inproc["first_ms"] / 1000, inproc["pr60_ms"] / 1000,
                inproc["first_ratio"], "<= 0.5x PR #60 in process", inproc["first_ratio"] <= 0.5)
            row(f"closure in process, {label}, repeated run", inproc["repeated_ms"] / 1000, inproc["pr60_ms"] / 1000,
                inproc["repeated_ratio"], "<= 0.5x PR #60 in process", inproc["repeated_ratio"] <= 0.5)
        # from a folder of its own: run from a checkout, `python -m ds_gate` would import that checkout's
        data = rounds(closure_steps(quest, base / "cache"), runs, cwd=base)
        r = ratio(data, "first", "floor")
        row(f"closure process, {label}, first run", med(data, "first"), med(data, "floor"), r, "<= 1.2x parse floor",
            r <= 1.2)
        if size == sizes[0]:
            r = ratio(data, "repeated", "floor")
            row(f"closure process, {label}, repeated run", med(data, "repeated"), med(data, "floor"), r,
                "<= 0.5x parse floor", r <= 0.5)
        r = ratio(data, "first", "pr60")
        row(f"closure process, {label}, first run", med(data, "first"), med(data, "pr60"), r, "vs PR #60 as a process", None)
        ours, theirs = data["first"][1], data["pr60"][1]
        limit = " and <= 80 MB" if size >= 100_000 else ""  # the absolute bound at 100,000 runs
        row(f"closure peak RSS, {label}", f"{ours // 1024} MB", f"{theirs // 1024} MB (PR #60)", ours / theirs,
            f"<= 1.5x PR #60's{limit}", ours <= 1.5 * theirs and (not limit or ours <= 80 * 1024))


def bench_hook(base: Path, runs: int, size: int = 2000, old: Path | None = None) -> None:
    """``old``: another checkout of ds-gate, timed in the same rounds (``PYTHONPATH`` puts its
    ``ds_gate`` first), so before and after are measured against one minimal hook."""
    ws = base / f"q{size}" / "quests" / "001" / ".ds" / "worktrees" / "run-000"
    if not ws.exists():
        make_quest(ws.parents[2], size, 20, 40, inherit=True)
    subprocess.run(["git", "config", "core.hooksPath", "/dev/null"], cwd=ws, check=True)
    (ws / "notes.md").write_text("progress\n")
    subprocess.run(["git", "add", "notes.md"], cwd=ws, check=True)
    # the installed hook's own command line (hooks/pre-commit): not -m, which would put the quest on sys.path
    hook = 'import sys; sys.argv[0] = "ds-gate"; sys.path[:] = [p for p in sys.path if p]; import ds_gate.__main__'
    steps: dict[str, Step] = {
        "hook": ([PY, "-c", hook, "commit-check"], None, None),
        "minimal": (["sh", "-c", f"{PY} -c pass && git diff --cached --name-only >/dev/null"], None, None),
    }
    if old is not None:
        steps["old"] = ([PY, "-c", hook, "commit-check"], {**os.environ, "PYTHONPATH": str(old)}, None)
    data = rounds(steps, runs, cwd=ws)
    r = ratio(data, "hook", "minimal")
    row("commit hook, ordinary checkpoint", med(data, "hook"), med(data, "minimal"), r, "<= 1.5x minimal hook", r <= 1.5)
    versus_old(data, "commit hook, ordinary checkpoint")
    record = ws / "artifacts" / "runs" / "run-bench.json"
    record.write_text('{"kind": "run", "artifact_id": "run-bench", "run_kind": "main_experiment", "status": "running"}\n')
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    data = rounds(steps, runs, cwd=ws)
    r = ratio(data, "hook", "minimal")
    row("commit hook, staging a run record", med(data, "hook"), med(data, "minimal"), r, "<= 2x minimal hook", r <= 2)
    versus_old(data, "commit hook, staging a run record")
    record.unlink()
    (ws / "notes.md").unlink()
    subprocess.run(["git", "reset", "-q"], cwd=ws, check=True)


def versus_old(data: dict[str, tuple[list[float], int]], what: str) -> None:
    if "old" in data:
        r = ratio(data, "old", "minimal")
        row(f"{what}, old checkout", med(data, "old"), med(data, "minimal"), r, "(before)", None)


def bench_xdist(base: Path, runs: int, size: int = 2000) -> None:
    quest = base / f"q{size}" / "quests" / "001"
    if not quest.exists():
        make_quest(quest, size, 20, 40, inherit=True)
    empty = base / "empty"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "DS_GATE_CACHE_DIR": str(base / "cache")}
    plugin = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--ds-gate={quest}"]
    steps: dict[str, Step] = {"parallel": ([*plugin, "-n", "2"], env, None), "serial": (plugin, env, None)}
    data = rounds(steps, runs, cwd=empty)
    r = ratio(data, "parallel", "serial")
    row(f"pytest --ds-gate -n 2, {size:,} runs", med(data, "parallel"), med(data, "serial"), r, "<= 1x serial", r <= 1.0)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000, 100000])
    parser.add_argument("--keep", metavar="DIR")
    parser.add_argument("--only", choices=("closure", "hook", "xdist"), help="run one part (a quicker check of one goal)")
    parser.add_argument("--old", type=Path, metavar="TREE", help="the hook of another checkout too, in the same rounds")
    args = parser.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ds-gate-goals-"))
    base.mkdir(parents=True, exist_ok=True)
    os.environ["GIT_CONFIG_GLOBAL"] = os.devnull
    os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
    as_installed()
    if args.old:
        import compileall

        compileall.compile_dir(str(args.old / "ds_gate"), quiet=1)
    print(f"load: {os.getloadavg()}", flush=True)
    try:
        if args.only in (None, "closure"):
            bench_closure(base, args.runs, args.sizes)
        if args.only in (None, "hook"):
            bench_hook(base, args.runs, args.sizes[0], args.old)
        if args.only in (None, "xdist"):
            bench_xdist(base, max(3, args.runs // 2), args.sizes[0])
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print(f"load: {os.getloadavg()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
