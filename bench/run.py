"""ds-gate against its floors and against the tools a user would reach for: one table.

    python bench/run.py [--runs 7] [--quick] [--keep DIR]

Generates the scale quests (bench/gen.py; real git repositories with real worktrees),
warms every command once, then times each pair interleaved (A, B, A, B, ...) so both
sides see the same machine. Each row gives medians over ``--runs`` runs, the median of
the pairwise ratios, and the goal beside it. Peak RSS comes from ``wait4`` on the child.
``--quick`` uses 1/10 of the sizes (for a smoke run, not for RESULTS.md).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PY = sys.executable
sys.path.insert(0, str(HERE))

import peer as peers  # noqa: E402
from gen import make_decisions, make_quest  # noqa: E402


def as_installed() -> None:
    """Measure ds-gate as ``pip install`` leaves it, with bytecode compiled: a shell with
    ``PYTHONDONTWRITEBYTECODE=1`` (this workplace sets it) would otherwise compile every
    changed module on every run, ~3 ms each, and charge it to ds-gate."""
    import compileall

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(str(REPO / "ds_gate"), quiet=1)


def timed(
    cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None, stdin: Path | None = None
) -> tuple[float, int, int]:
    """(seconds, peak RSS in KB, exit code) of one run of ``cmd``; ``stdin``: a file to read from."""
    with open(stdin if stdin is not None else os.devnull, "rb") as source:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss, proc.returncode


def pair(
    a: list[str], b: list[str], runs: int, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[float, float, float, int]:
    """Medians of A and B, median of A/B ratios, max peak RSS of A."""
    timed(a, cwd, env)
    timed(b, cwd, env)
    ta, tb, rss = [], [], 0
    for _ in range(runs):
        t, r, _ = timed(a, cwd, env)
        ta.append(t)
        rss = max(rss, r)
        tb.append(timed(b, cwd, env)[0])
    return (
        statistics.median(ta),
        statistics.median(tb),
        statistics.median(x / y for x, y in zip(ta, tb, strict=True)),
        rss,
    )


ROWS: list[tuple[str, str, str, str, str, str]] = []


def row(what: str, ours: float | str, base: float | str, ratio: float | str, goal: str, met: bool | None) -> None:
    def fmt(v: float | str) -> str:
        return v if isinstance(v, str) else (f"{v * 1000:.0f} ms" if v >= 0.01 else f"{v * 1000:.2f} ms")

    ROWS.append(
        (
            what,
            fmt(ours),
            fmt(base),
            ratio if isinstance(ratio, str) else f"{ratio:.2f}x",
            goal,
            "-" if met is None else ("met" if met else "MISSED"),
        )
    )
    print(f"  {what}: {ROWS[-1][1]} vs {ROWS[-1][2]} ({ROWS[-1][3]}; goal {goal}: {ROWS[-1][5]})", flush=True)


def gate(*args: str) -> list[str]:
    return [PY, "-m", "ds_gate", *args]


def bench_finalization(base: Path, runs: int, scale: int) -> None:
    """The finalization commit against the closure it runs (the checkpoint rows are goals.py's)."""
    ws = base / f"q{2000 // scale}" / "quests" / "001" / ".ds" / "worktrees" / "run-000"
    subprocess.run(["git", "config", "core.hooksPath", "/dev/null"], cwd=ws, check=True)
    (ws / "paper").mkdir()
    (ws / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    ours, closure, ratio, _ = pair(gate("commit-check"), gate("closure", "--format", "json"), runs, cwd=ws)
    row(
        f"commit hook, finalization commit ({2000 // scale:,} runs)",
        ours,
        closure,
        ratio,
        "<= 1.2x closure",
        ratio <= 1.2,
    )
    subprocess.run(["git", "reset", "-q"], cwd=ws, check=True)
    shutil.rmtree(ws / "paper")


def bench_validate(base: Path, runs: int) -> None:
    files = [str(p) for p in make_decisions(base / "decisions" / "artifacts" / "decisions", 1000)]
    tool = shutil.which("check-jsonschema", path=str(Path(PY).parent)) or shutil.which("check-jsonschema")
    if tool is None:
        row("validate 1,000 decision files", "n/a", "n/a", "n/a", "<= 0.5x check-jsonschema", None)
        print("  (pip install check-jsonschema to compare)")
        return
    ours, theirs, ratio, _ = pair(
        gate("validate", *files),
        [tool, "--schemafile", str(REPO / "schemas" / "distill_review.schema.json"), *files],
        runs,
    )
    done = subprocess.run(gate("validate", "--format", "json", *files), capture_output=True, text=True)
    import json

    errors = [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]
    every = len(errors) == 200 and len({f["path"] for f in errors}) == 100
    row("validate 1,000 decision files", ours, theirs, ratio, "<= 0.5x check-jsonschema", ratio <= 0.5)
    row("  errors reported (100 bad files x 2)", str(len(errors)), "", "", "all 200", every)


def bench_pytest(base: Path, runs: int, scale: int) -> None:
    quest = base / f"q{2000 // scale}" / "quests" / "001"
    empty = base / "empty"
    empty.mkdir(exist_ok=True)
    collect = [PY, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    plugin = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--ds-gate={quest}"]
    ours, plain, _, _ = pair(plugin, collect, runs, cwd=empty)
    closure = pair(gate("closure", str(quest), "--format", "json"), collect, runs, cwd=empty)[0]
    row(
        f"pytest --ds-gate, {2000 // scale:,} runs",
        ours,
        plain + closure,
        ours / (plain + closure),
        "vs collect-only + closure",
        None,
    )
    asked_not, without, ratio, _ = pair(collect, [*collect, "-p", "no:ds_gate"], runs, cwd=empty)
    row(
        "pytest start-up: plugin installed, not asked",
        asked_not,
        without,
        ratio,
        "no difference",
        abs(ratio - 1) < 0.05,
    )


def bench_git(base: Path, runs: int, scale: int) -> None:
    quest = base / "branches" / "quests" / "001"
    make_quest(quest, 2000 // scale, 200, 0)
    ours, folders, ratio, _ = pair(
        gate("candidates", str(quest), "--from-git", "--format", "json"),
        gate("candidates", str(quest), "--format", "json"),
        runs,
    )
    row(f"git source, 200 branches, {2000 // scale:,} runs", ours, folders, ratio, "vs folder source", None)


def bench_recall(sizes: list[int]) -> None:
    done = subprocess.run([PY, str(HERE / "recall.py"), "--sizes", *map(str, sizes)], capture_output=True, text=True)
    print(done.stdout, flush=True)
    for line in done.stdout.splitlines()[1:]:
        cards, cold, cache, p50, p95, *_ = line.split()
        if cards == "1000":
            row("recall 1,000 cards, cold", float(cold) / 1000, "", "", "<= 500 ms", float(cold) <= 500)
        row(
            f"recall {int(cards):,} cards, warm p50 / p95",
            f"{p50} / {p95} ms",
            f"(first call {cache} ms)",
            "",
            "p95 <= 10 ms" if cards == "10000" else "",
            float(p95) <= 10 if cards == "10000" else None,
        )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--keep", metavar="DIR")
    peers.add_argument(parser)
    args = parser.parse_args()
    peer = peers.find(args.deepscientist, reimplementation=args.reimplementation)
    print(f"peer: {peer.label} ({peer.source})", flush=True)
    before = os.getloadavg()
    scale = 10 if args.quick else 1
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ds-gate-bench-"))
    os.environ["GIT_CONFIG_GLOBAL"] = os.devnull
    os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
    as_installed()
    try:
        sys.modules.setdefault("run", sys.modules[__name__])  # goals' rows join this table, not a copy's
        import goals  # issue 26's goals: closure and memory against PR #60, the hooks, xdist

        os.environ["DS_GATE_CACHE_DIR"] = str(base / "cache")  # the record cache, never the user's
        goals.bench_closure(base, args.runs, [2000 // scale, 20000 // scale, 100000 // scale], peer)
        goals.bench_hook(base, args.runs, 2000 // scale)
        goals.bench_xdist(base, max(3, args.runs // 2), 2000 // scale)
        bench_finalization(base, args.runs, scale)
        bench_validate(base, args.runs)
        bench_pytest(base, args.runs, scale)
        bench_git(base, args.runs, scale)
        bench_recall([100, 1000] if args.quick else [1000, 10000])
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    widths = [max(len(r[i]) for r in ROWS + [("what", "ds-gate", "baseline", "ratio", "goal", "")]) for i in range(6)]
    print()
    print(
        f"{'what':<{widths[0]}}  {'ds-gate':>{widths[1]}}  {'baseline':>{widths[2]}}  {'ratio':>{widths[3]}}  "
        f"{'goal':<{widths[4]}}  result"
    )
    for r in ROWS:
        print(
            f"{r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:>{widths[3]}}  {r[4]:<{widths[4]}}  {r[5]}"
        )
    print(
        f"\nPeer: {peer.label} ({peer.source}). {args.runs} runs per side after one warm-up; medians; ratios are medians of pairwise ratios. "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; load average (1 min) {before[0]:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
