"""Issue 28's figures: the pytest route against the CLI, a home over xdist workers, ``closure --all-quests``.

    python bench/home.py --keep DIR [--runs 5] [--only pytest|xdist|home]

The quests are generated once in ``DIR`` (``make_home``): one quest of 20,000 runs, and homes of
8 quests × 500 runs and 24 quests × 1,000 runs (``gen.make_quest``, each quest its own id,
95 % of its runs covered). Each figure is timed against its baseline interleaved in rounds (the
order alternates; one warm-up round first), and is the median of the pairwise ratios; the load
average is printed before and after. Every pytest run starts in an empty folder, as the recipe
(``docs/ci-many-quests.md``) says, with ``-p no:cacheprovider``; every run keeps ds-gate's
record cache as a second run leaves it (two warm-up rounds), the same for both sides.

- ``pytest``: ``pytest --ds-gate QUEST`` (serial) against ``ds-gate closure QUEST`` on the
  20,000-run quest, and ``pytest --ds-gate HOME`` against ``ds-gate closure --all-quests --home
  HOME`` on the 24-quest home: goal ≤ 2×.
- ``xdist``: ``pytest --ds-gate HOME -n 2`` (workers really started: the header line says so)
  against serial, on both homes: goal ≤ 0.65×.
- ``home``: ``ds-gate closure --all-quests --home HOME`` against 24 ``ds-gate closure QUEST``
  processes one after the other: goal < 1×.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402

Step = Callable[[], int]


def make_home(home: Path, quests: int, runs: int) -> Path:
    """A DeepScientist home of ``quests`` quests with ``runs`` runs each (kept once made)."""
    if not (home / "quests").is_dir():
        for n in range(quests):
            gen.make_quest(home / "quests" / f"q{n:03d}", runs, max(1, runs // 100), max(1, runs // 50),
                           quest_id=f"q{n:03d}")
    return home


def make_one(root: Path, runs: int) -> Path:
    if not root.is_dir():
        gen.make_quest(root, runs, runs // 100, runs // 50)
    return root


def process(args: Sequence[str], cwd: Path) -> Step:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTEST_ADDOPTS")}

    def run() -> int:
        return subprocess.run(list(args), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return run


def pytest_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--noconftest", "--rootdir=.", "-q", *args]


def closure_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "ds_gate", "closure", *args, "--format", "json"]


def quests_one_by_one(home: Path, empty: Path) -> Step:
    steps = [process(closure_cmd(str(q), "--home", str(home)), empty) for q in sorted((home / "quests").iterdir())]

    def run() -> int:
        return max(step() for step in steps)
    return run


def interleaved(name: str, a: Step, b: Step, rounds: int, goal: str) -> None:
    """Time ``a`` against ``b``, alternating; print medians and the median pairwise ratio."""
    for step in (a, b, a, b):  # warm-up: two runs each (the record cache as a second run leaves it)
        step()
    times: dict[str, list[float]] = {"a": [], "b": []}
    codes = set()
    for r in range(rounds):
        order = (("a", a), ("b", b)) if r % 2 == 0 else (("b", b), ("a", a))
        for key, step in order:
            start = time.perf_counter()
            codes.add((key, step()))
            times[key].append(time.perf_counter() - start)
    ratios = [x / y for x, y in zip(times["a"], times["b"], strict=True)]
    print(f"| {name} | {statistics.median(times['a']) * 1000:,.0f} vs {statistics.median(times['b']) * 1000:,.0f} ms "
          f"| **{statistics.median(ratios):.2f}×** | {goal} | exit codes {sorted(codes)} |", flush=True)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--keep", type=Path, required=True, help="where the quests are generated once and kept")
    parser.add_argument("--runs", type=int, default=5, help="interleaved rounds per figure")
    parser.add_argument("--only", choices=("pytest", "xdist", "home"))
    args = parser.parse_args(argv)
    keep = args.keep.resolve()
    started = time.perf_counter()
    big = make_one(keep / "one-20000", 20_000)
    small, large = make_home(keep / "home-8x500", 8, 500), make_home(keep / "home-24x1000", 24, 1000)
    print(f"quests ready in {time.perf_counter() - started:.0f} s; load average before: {load()}", flush=True)
    print("| figure | A vs B (medians) | A/B | goal | |\n|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp)
        if args.only in (None, "pytest"):
            interleaved("pytest serial / `closure`, one 20,000-run quest",
                        process(pytest_cmd(f"--ds-gate={big}"), empty), process(closure_cmd(str(big)), empty),
                        args.runs, "≤ 2×")
            interleaved("pytest serial / `closure --all-quests`, 24 × 1,000 home",
                        process(pytest_cmd(f"--ds-gate={large}"), empty),
                        process(closure_cmd("--all-quests", "--home", str(large)), empty), args.runs, "≤ 2×")
        if args.only in (None, "xdist"):
            for home in (small, large):
                interleaved(f"pytest `-n 2` / serial, {home.name}", process(pytest_cmd(f"--ds-gate={home}", "-n", "2"), empty),
                            process(pytest_cmd(f"--ds-gate={home}"), empty), args.runs, "≤ 0.65×")
            interleaved(f"(context) the same, `--ds-gate-no-cache` (a first run), {large.name}",
                        process(pytest_cmd(f"--ds-gate={large}", "--ds-gate-no-cache", "-n", "2"), empty),
                        process(pytest_cmd(f"--ds-gate={large}", "--ds-gate-no-cache"), empty), args.runs, "—")
            trivial = keep / "one-test"
            trivial.mkdir(exist_ok=True)
            (trivial / "test_one.py").write_text("def test_one():\n    pass\n")
            interleaved("(context) xdist's own start-up: `-n 2` / serial, one empty test, no ds-gate",
                        process(pytest_cmd("-p", "no:ds_gate", "-n", "2"), trivial),
                        process(pytest_cmd("-p", "no:ds_gate"), trivial), args.runs, "—")
        if args.only in (None, "home"):
            interleaved("`closure --all-quests` / 24 `closure` calls, 24 × 1,000 home",
                        process(closure_cmd("--all-quests", "--home", str(large)), empty),
                        quests_one_by_one(large, empty), args.runs, "< 1×")
    print(f"load average after: {load()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
