"""Two checkouts of ds-gate side by side: the same commands, interleaved, one table.

    python bench/versus.py OLD_TREE [NEW_TREE] [--runs 9] [--scale 2000]

For a refactor that must not cost speed: each command runs from each tree (``PYTHONPATH``
puts that tree's ``ds_gate`` first), alternating A, B, A, B, ... on the same generated
quest, so both see the same machine. Prints medians and the median of pairwise ratios
(new / old); a ratio near 1.00 means no change.
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
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen import make_decisions, make_quest  # noqa: E402
from run import timed  # noqa: E402


def env_for(tree: Path) -> dict[str, str]:
    # no bytecode written into a tree being compared (it may be another engineer's checkout)
    return {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}


def compare(
    name: str, cmd: list[str], old: Path, new: Path, runs: int, cwd: Path, prep: Callable[[], None] | None = None
) -> tuple[str, float, float, float]:
    """``prep`` runs before each timed run (untimed): e.g. emptying the record cache for a first run."""
    a_env, b_env = env_for(old), env_for(new)
    for env in (a_env, b_env):  # warm caches
        subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, check=False)
    olds, news = [], []
    for _ in range(runs):
        if prep is not None:
            prep()
        olds.append(timed(cmd, cwd, a_env)[0])
        if prep is not None:
            prep()
        news.append(timed(cmd, cwd, b_env)[0])
    ratio = statistics.median(n / o for n, o in zip(news, olds, strict=True))
    return name, statistics.median(olds), statistics.median(news), ratio


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path, nargs="?", default=HERE.parent)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--scale", type=int, default=2000)
    args = parser.parse_args()
    os.environ.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    py = [sys.executable, "-m", "ds_gate"]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["DS_GATE_CACHE_DIR"] = str(base / "cache")  # the record cache (issue 17), never the user's
        quest = base / "quest"
        make_quest(quest, runs=args.scale, worktrees=20, reviews=40, inherit=True)
        time.sleep(2.2)  # the record cache trusts only files older than its granularity
        rows = [
            compare(
                "closure --format json, first run (record cache emptied)",
                [*py, "closure", str(quest), "--format", "json"],
                args.old,
                args.new,
                args.runs,
                base,
                prep=lambda: shutil.rmtree(base / "cache", ignore_errors=True),
            )
        ]
        files = [str(p) for p in make_decisions(base / "decisions", 1000)]
        ws = quest / ".ds" / "worktrees" / "run-000"
        subprocess.run(["git", "config", "core.hooksPath", "/dev/null"], cwd=ws, check=True)
        (ws / "notes.md").write_text("progress\n")
        subprocess.run(["git", "add", "notes.md"], cwd=ws, check=True)
        rows += [
            compare(
                "closure --format json, repeated run",
                [*py, "closure", str(quest), "--format", "json"],
                args.old,
                args.new,
                args.runs,
                base,
            ),
            compare(
                "check --format json",
                [*py, "check", str(quest), "--format", "json"],
                args.old,
                args.new,
                args.runs,
                base,
            ),
            compare("candidates (text)", [*py, "candidates", str(quest)], args.old, args.new, args.runs, base),
            compare("commit hook, ordinary checkpoint", [*py, "commit-check"], args.old, args.new, args.runs, ws),
        ]
        record = ws / "artifacts" / "runs" / "run-ffffffff.json"
        record.write_text(
            '{"kind": "run", "artifact_id": "run-ffffffff", "run_kind": "main_experiment", "status": "running"}'
        )
        subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
        rows.append(
            compare("commit hook, a run record staged", [*py, "commit-check"], args.old, args.new, args.runs, ws)
        )
        (ws / "paper").mkdir()
        (ws / "paper" / "paper_bundle_manifest.json").write_text("{}")
        subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
        rows.append(
            compare("commit hook, finalization commit", [*py, "commit-check"], args.old, args.new, args.runs, ws)
        )
        rows.append(
            compare(
                "validate 1,000 decision files",
                [*py, "validate", *files, "--format", "json"],
                args.old,
                args.new,
                args.runs,
                base,
            )
        )
    print(f"| what ({args.scale:,} runs, {args.runs} runs each) | old | new | new/old |")
    print("|---|---|---|---|")
    for name, old, new, ratio in rows:
        print(f"| {name} | {old * 1000:,.0f} ms | {new * 1000:,.0f} ms | {ratio:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
