"""Recall at 1,000 and 10,000 cards, cold and warm: medians and p95 in milliseconds.

    python bench/recall.py [--sizes 1000 10000] [--runs 30]

Generates a deterministic home per size (cards written as MemoryService writes them) in
a temporary folder, then measures ``list_knowledge_summaries`` in this process:
- cold: no cache file and no in-memory index (the first recall on a machine);
- cache: a new in-memory index over a warm cache file (the first recall of a process);
- warm: repeated calls in one process (stat of the memory folders, then ranking).
- process: ``ds-gate recall`` as its own process over a warm cache file (what an agent's
  shell call costs): the full path (``--refresh``, which is never kept nor given a kept answer),
  interleaved with the same command over an empty home (the floor: the interpreter, the imports,
  the argument parsing and the output every full recall pays) and the same recall with a text
  query; and the same two recalls given their kept answer (``kernel.answers``: nothing they read
  has changed), by ``python -m ds_gate`` and by the ``ds-gate`` console script, checked byte for
  byte against the full path's; medians of ``--process-runs``, wall and CPU time. With
  ``--against DIR`` (another checkout, e.g. ``git archive main | tar -x -C DIR``), the same two
  recalls run by DIR's ``ds_gate`` (``PYTHONPATH``, its own cache folder) in the same rounds,
  and the ratio is the median of the pairwise ratios. In the same rounds, a **stock FTS5
  process** (``STOCK``): ``python -c`` opening an SQLite file that already holds the same
  cards in an FTS5 table (title, tags, claim, body, path; ``porter unicode61``) and printing
  the top 20 of the same words as JSON: what a query process costs with no recall around it.
Goals (issue 6): warm p95 <= 10 ms at 10,000 cards; cold 1,000 cards <= 0.5 s.
Goal (issue 29): a recall process at 10,000 cards <= 250 ms warm.
Goal (issue 38): a recall process at 10,000 cards, warm, within 2x the stock FTS5 process.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

TOPICS = [f"topic:t{i}" for i in range(60)]
STAGES = ["stage:idea", "stage:experiment", "stage:analysis", "stage:write"]


def make_home(root: Path, size: int) -> Path:
    rng = random.Random(size)
    memory = root / "memory" / "knowledge"
    memory.mkdir(parents=True)
    for i in range(size):
        tags = [rng.choice(TOPICS), rng.choice(TOPICS), rng.choice(STAGES)]
        meta = {
            "id": f"knowledge-{i:08x}",
            "type": "knowledge",
            "kind": "knowledge",
            "title": f"Lesson {i}",
            "quest_id": f"{i % 40:03d}",
            "tags": tags,
            "created_at": f"2026-{1 + i % 12:02d}-01T00:00:00+00:00",
            "updated_at": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T00:00:00+00:00",
            "scope": "global",
            "claim": f"Claim {i} about {tags[0]}.",
        }
        body = f"Context: run {i}.\n\nObservation: " + " ".join(
            rng.choice(["loss", "router", "warmup", "eval", "seed", "tokens", "drift"]) for _ in range(40)
        )
        (memory / f"lesson-{i}.md").write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{body}\n")
    return root


STOCK = (
    "import json, sqlite3, sys\n"
    "db = sqlite3.connect(sys.argv[1])\n"
    "match = ' OR '.join('\"' + w + '\"' for w in sys.argv[2].split())\n"
    "rows = db.execute('SELECT card_id, title, claim, tags, path, bm25(f) FROM f WHERE f MATCH ? ORDER BY bm25(f) "
    "LIMIT 20', (match,)).fetchall()\n"
    "print(json.dumps([dict(zip(('card_id', 'title', 'claim', 'tags', 'path', 'score'), r)) for r in rows]))\n"
)


def stock_index(home: Path, path: Path) -> None:
    """The cards of ``home`` in a plain FTS5 file, made once (the stock process's warm state)."""
    db = sqlite3.connect(path)
    db.execute(
        "CREATE VIRTUAL TABLE f USING fts5(card_id UNINDEXED, title, tags, claim, body, path UNINDEXED, "
        "tokenize='porter unicode61')"
    )
    rows = []
    for card in sorted((home / "memory" / "knowledge").glob("*.md")):
        _, front, body = card.read_text(encoding="utf-8").split("---\n", 2)
        meta = yaml.safe_load(front)
        rows.append((meta["id"], meta["title"], " ".join(meta["tags"]), meta["claim"], body, str(card)))
    db.executemany("INSERT INTO f VALUES (?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def processes(home: Path, size: int, runs: int, against: Path | None = None) -> None:
    """Whole processes, interleaved so a change of load hits every command alike."""
    empty = home.parent / "empty-home"
    (empty / "memory" / "knowledge").mkdir(parents=True, exist_ok=True)
    module = (sys.executable, "-m", "ds_gate")
    script = (str(Path(sys.executable).parent / "ds-gate"),)  # the console script (cli.entry:main)

    def recall(where: Path, *asked: str, run: tuple[str, ...] = module) -> list[str]:
        scope = ("--home", str(where), "--scope", "global")
        return [*run, "recall", *scope, *asked, "--limit", "20", "--format", "json"]

    tags = ("--tags", "topic:t3,stage:experiment")
    query = ("--query", "router warmup drift")
    # --refresh: never kept nor given a kept answer (cli.kept), so the full path, over a warm cache file
    commands: dict[str, list[str]] = {
        "floor, full path (empty home)": recall(empty, *tags, "--refresh"),
        "recall --tags, full path": recall(home, *tags, "--refresh"),
        "recall --query, full path": recall(home, *query, "--refresh"),
        "recall --tags, kept (-m)": recall(home, *tags),
        "recall --query, kept (-m)": recall(home, *query),
        "recall --tags, kept (ds-gate)": recall(home, *tags, run=script),
        "recall --query, kept (ds-gate)": recall(home, *query, run=script),
    }
    stock = home.parent / "stock-fts5.sqlite3"
    stock_index(home, stock)
    commands["stock FTS5 (tags' words)"] = [sys.executable, "-c", STOCK, str(stock), "t3 experiment"]
    commands["stock FTS5 (query)"] = [sys.executable, "-c", STOCK, str(stock), "router warmup drift"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    envs = {name: env for name in commands}
    if against is not None:  # the other checkout's code, over its own cache (another version would empty this one's)
        other = {**env, "PYTHONPATH": str(against), "DS_GATE_CACHE_DIR": str(home.parent / "cache-against")}
        for name in ("recall --tags, full path", "recall --query, full path"):
            commands[f"{name} (against)"] = commands[name]
            envs[f"{name} (against)"] = other
    time.sleep(2.2)  # an answer is kept only from files older than the run by 2 s (kernel.answers): the empty home's
    before_load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    for name, command in commands.items():  # warm: the cache file, the kept answers, the bytecode, the page cache
        subprocess.run(command, env=envs[name], stdout=subprocess.DEVNULL, check=True)
    said = {
        name: subprocess.run(c, env=envs[name], capture_output=True, check=True).stdout for name, c in commands.items()
    }
    for kind in ("tags", "query"):  # a kept answer is the full path's, byte for byte
        full = said[f"recall --{kind}, full path"]
        assert all(said[f"recall --{kind}, kept ({how})"] == full for how in ("-m", "ds-gate")), kind
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, env=envs[name], stdout=subprocess.DEVNULL, check=True)
            times[name].append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    floor = statistics.median(times["floor, full path (empty home)"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"        process, {size} cards, warm cache (median of {runs}, load average {before_load:.2f} before, {load:.2f} "
        "after the rounds; CPU time is user+system,"
        " what a quiet machine's wall time comes to):"
    )
    for name, values in times.items():
        median = statistics.median(values)
        goal = "   goal <= 250 ms" if name.startswith("recall") and "against" not in name else ""
        print(
            f"          {name:<36} wall {median:>6.0f} ms  CPU {statistics.median(cpu[name]):>6.0f} ms  "
            f"{median / floor:>5.2f}x floor{goal}"
        )
    for name in commands:
        if not name.startswith("recall") or "against" in name:
            continue
        stock_name = "stock FTS5 (tags' words)" if name.startswith("recall --tags") else "stock FTS5 (query)"
        ratios = []
        for values in (times, cpu):
            pairs = [a / b for a, b in zip(values[name], values[stock_name], strict=True) if b > 0]
            ratios.append(statistics.median(pairs))
        print(
            f"          {name} / {stock_name}: wall {ratios[0]:.2f}x, CPU {ratios[1]:.2f}x "
            "(medians of pairwise ratios; goal <= 2x)"
        )
    for name in ("recall --tags, full path", "recall --query, full path"):
        if f"{name} (against)" in times:
            for what, values in (("wall", times), ("CPU", cpu)):
                pairs = [a / b for a, b in zip(values[name], values[f"{name} (against)"], strict=True) if b > 0]
                print(
                    f"          {name} / against, {what}: {statistics.median(pairs):.2f}x (median of pairwise ratios)"
                )
    print(f"          load average after: {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--process-runs", type=int, default=11, help="process timings per command (0: none)")
    parser.add_argument("--against", type=Path, help="a folder holding another version's ds_gate, run interleaved")
    args = parser.parse_args()
    from ds_gate import list_knowledge_summaries
    from ds_gate.recall import api as recall_api

    print(f"{'cards':>6}  {'cold ms':>8}  {'cache p50':>9}  {'warm p50':>8}  {'warm p95':>8}   goal")
    for size in args.sizes:
        base = Path(tempfile.mkdtemp(prefix="ds-gate-recall-"))
        try:
            home = make_home(base / "home", size)
            os.environ["DS_GATE_CACHE_DIR"] = str(base / "cache")  # cold means no cache file: a fresh folder
            query = ["topic:t3", "stage:experiment"]
            recall_api._INDEXES.clear()  # the in-process index cache (in recall.api since the layer layout)
            start = time.perf_counter()
            list_knowledge_summaries(query, home=home, scope="global")
            cold = (time.perf_counter() - start) * 1000
            cache_times = []
            for _ in range(5):
                recall_api._INDEXES.clear()  # the in-process index cache (in recall.api since the layer layout)
                start = time.perf_counter()
                list_knowledge_summaries(query, home=home, scope="global")
                cache_times.append((time.perf_counter() - start) * 1000)
            warm = []
            for i in range(args.runs):
                tags = [TOPICS[i % len(TOPICS)], STAGES[i % len(STAGES)]]
                start = time.perf_counter()
                list_knowledge_summaries(tags, home=home, scope="global")
                warm.append((time.perf_counter() - start) * 1000)
            goal = "cold <= 500 ms" if size <= 1000 else "warm p95 <= 10 ms"
            print(
                f"{size:>6}  {cold:>8.0f}  {statistics.median(cache_times):>9.1f}  {statistics.median(warm):>8.2f}  "
                f"{pct(warm, 0.95):>8.2f}   {goal}"
            )
            if args.process_runs:
                processes(home, size, args.process_runs, args.against)
        finally:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
