"""Issue 28's figures: the pytest route against the CLI, a home over xdist workers, ``closure --all-quests``.

    python bench/home.py --keep DIR [--runs 5] [--only pytest|xdist|home] [--old TREE]

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
  against serial, on both homes: goal ≤ 0.65×. For context: the same on a first run
  (``--ds-gate-no-cache``), xdist's own start-up on one empty test, and a home where the work
  outweighs that start-up (32 quests × 5,000 runs, a first run: ~7 s serial), where ``-n 2``
  is what a second core can give.
- ``home``: ``ds-gate closure --all-quests --home HOME`` against 24 ``ds-gate closure QUEST``
  processes one after the other: goal < 1×; on the 24 × 1,000 home, and on the same home with a
  global memory of 1,000 cards that each quest's reviews name (``make_card_home``), where every
  quest needs the global cards. With ``--old TREE`` (a folder holding another checkout's
  ``ds_gate`` and ``schemas``, run with ``PYTHONPATH``), the card home's figures are measured for
  both trees in the same interleaved rounds: before/after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen

Step = Callable[[], int]


def make_home(home: Path, quests: int, runs: int) -> Path:
    """A DeepScientist home of ``quests`` quests with ``runs`` runs each (kept once made)."""
    if not (home / "quests").is_dir():
        for n in range(quests):
            gen.make_quest(
                home / "quests" / f"q{n:03d}", runs, max(1, runs // 100), max(1, runs // 50), quest_id=f"q{n:03d}"
            )
    return home


def make_card_home(home: Path, quests: int, runs: int, cards: int) -> Path:
    """``make_home`` plus a global memory of ``cards`` experience cards (kept once made), and in each
    quest one more distill review, committed on main, whose ``cards_written`` names that quest's own
    global lesson (``action: new``): every quest then reads the home's global cards, as a quest whose
    reviews name global cards does (the lesson's lineage names its own quest, so no other quest is loaded)."""
    if (home / "memory").is_dir():
        return home
    make_home(home, quests, runs)
    knowledge = home / "memory" / "knowledge"
    knowledge.mkdir(parents=True)
    for i in range(cards):
        quest = f"q{i % quests:03d}"
        meta = {
            "id": f"knowledge-{i:08x}",
            "type": "knowledge",
            "kind": "knowledge",
            "title": f"Lesson {i}",
            "quest_id": quest,
            "tags": [f"topic:t{i % 60}", "stage:experiment"],
            "scope": "global",
            "created_at": "2026-11-01T00:00:00+00:00",
            "updated_at": "2026-11-02T00:00:00+00:00",
            "claim": f"Claim {i}.",
            "lineage": [{"quest": quest, "run": f"run-{i // quests % runs:08x}"}],
        }
        body = f"Context: lesson {i} of {quest}.\n\nObservation: what run {i // quests} taught, in a few words."
        (knowledge / f"lesson-{i}.md").write_text(f"---\n{json.dumps(meta)}\n---\n{body}\n")  # JSON is YAML
    for n in range(quests):
        root, quest = home / "quests" / f"q{n:03d}", f"q{n:03d}"
        lines: list[str] = []
        (root / "artifacts" / "decisions").mkdir(parents=True, exist_ok=True)
        gen._record(
            root,
            "decision",
            "decisions",
            {
                "kind": "decision",
                "schema_version": 1,
                "artifact_id": "decision-cards",
                "quest_id": quest,
                "created_at": "2026-11-28T00:00:00+00:00",
                "updated_at": "2026-11-28T00:00:00+00:00",
                "status": "pending",
                "action": "distill_review",
                "verdict": "covered",
                "reason": "its lesson",
                "reviewed_run_ids": [f"run-{n:08x}"],
                "cards_written": [
                    {
                        "card_id": f"knowledge-{n:08x}",
                        "scope": "global",
                        "action": "new",
                        "target_run_id": f"run-{n:08x}",
                    }
                ],
            },
            lines,
        )
        with (root / "artifacts" / "_index.jsonl").open("a") as index:
            index.write("\n".join(lines) + "\n")
        gen._git(root, "add", "-A")
        gen._git(root, "commit", "-q", "-m", "a review naming a global lesson")
    return home


def make_one(root: Path, runs: int) -> Path:
    if not root.is_dir():
        gen.make_quest(root, runs, runs // 100, runs // 50)
    return root


def process(args: Sequence[str], cwd: Path, tree: Path | None = None) -> Step:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTEST_ADDOPTS", "PYTHONPATH")}
    if tree is not None:  # another checkout's ds_gate, before this interpreter's installed one
        env["PYTHONPATH"] = str(tree)

    def run() -> int:
        return subprocess.run(
            list(args), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ).returncode

    return run


def pytest_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--noconftest", "--rootdir=.", "-q", *args]


def closure_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "ds_gate", "closure", *args, "--format", "json"]


def quests_one_by_one(home: Path, empty: Path, tree: Path | None = None) -> Step:
    steps = [
        process(closure_cmd(str(q), "--home", str(home)), empty, tree) for q in sorted((home / "quests").iterdir())
    ]

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
    print(
        f"| {name} | {statistics.median(times['a']) * 1000:,.0f} vs {statistics.median(times['b']) * 1000:,.0f} ms "
        f"| **{statistics.median(ratios):.2f}×** | {goal} | exit codes {sorted(codes)} |",
        flush=True,
    )


def interleaved_sides(sides: dict[str, Step], rounds: int) -> dict[str, list[float]]:
    """Each side timed once a round, the order rotating each round, after one warm-up round."""
    for step in sides.values():
        step()
    names = list(sides)
    times: dict[str, list[float]] = {name: [] for name in names}
    codes: dict[str, set[int]] = {name: set() for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start = time.perf_counter()
            codes[name].add(sides[name]())
            times[name].append(time.perf_counter() - start)
    print(f"exit codes: {codes}", flush=True)
    return times


def ratio_row(name: str, times: dict[str, list[float]], a: str, b: str, goal: str) -> None:
    ratios = [x / y for x, y in zip(times[a], times[b], strict=True)]
    print(
        f"| {name} | {statistics.median(times[a]) * 1000:,.0f} vs {statistics.median(times[b]) * 1000:,.0f} ms "
        f"| **{statistics.median(ratios):.2f}×** | {goal} | |",
        flush=True,
    )


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--keep", type=Path, required=True, help="where the quests are generated once and kept")
    parser.add_argument("--runs", type=int, default=5, help="interleaved rounds per figure")
    parser.add_argument("--only", choices=("pytest", "xdist", "home"))
    parser.add_argument(
        "--old", type=Path, help="a folder holding another checkout's ds_gate and schemas: before/after"
    )
    args = parser.parse_args(argv)
    keep = args.keep.resolve()
    started = time.perf_counter()
    big = make_one(keep / "one-20000", 20_000)
    small, large = make_home(keep / "home-8x500", 8, 500), make_home(keep / "home-24x1000", 24, 1000)
    cards = make_card_home(keep / "home-24x1000-cards", 24, 1000, 1000)
    heavy = make_home(keep / "home-32x5000", 32, 5000) if args.only in (None, "xdist") else None
    print(f"quests ready in {time.perf_counter() - started:.0f} s; load average before: {load()}", flush=True)
    print("| figure | A vs B (medians) | A/B | goal | |\n|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp)
        if args.only in (None, "pytest"):
            interleaved(
                "pytest serial / `closure`, one 20,000-run quest",
                process(pytest_cmd(f"--ds-gate={big}"), empty),
                process(closure_cmd(str(big)), empty),
                args.runs,
                "≤ 2×",
            )
            interleaved(
                "pytest serial / `closure --all-quests`, 24 × 1,000 home",
                process(pytest_cmd(f"--ds-gate={large}"), empty),
                process(closure_cmd("--all-quests", "--home", str(large)), empty),
                args.runs,
                "≤ 2×",
            )
        if args.only in (None, "xdist"):
            for home in (small, large):
                interleaved(
                    f"pytest `-n 2` / serial, {home.name}",
                    process(pytest_cmd(f"--ds-gate={home}", "-n", "2"), empty),
                    process(pytest_cmd(f"--ds-gate={home}"), empty),
                    args.runs,
                    "≤ 0.65×",
                )
            interleaved(
                f"(context) the same, `--ds-gate-no-cache` (a first run), {large.name}",
                process(pytest_cmd(f"--ds-gate={large}", "--ds-gate-no-cache", "-n", "2"), empty),
                process(pytest_cmd(f"--ds-gate={large}", "--ds-gate-no-cache"), empty),
                args.runs,
                "—",
            )
            trivial = keep / "one-test"
            trivial.mkdir(exist_ok=True)
            (trivial / "test_one.py").write_text("def test_one():\n    pass\n")
            interleaved(
                "(context) xdist's own start-up: `-n 2` / serial, one empty test, no ds-gate",
                process(pytest_cmd("-p", "no:ds_gate", "-n", "2"), trivial),
                process(pytest_cmd("-p", "no:ds_gate"), trivial),
                args.runs,
                "—",
            )
            assert heavy is not None
            interleaved(
                f"(context) the work outweighs the start-up: `--ds-gate-no-cache`, {heavy.name}",
                process(pytest_cmd(f"--ds-gate={heavy}", "--ds-gate-no-cache", "-n", "2"), empty),
                process(pytest_cmd(f"--ds-gate={heavy}", "--ds-gate-no-cache"), empty),
                args.runs,
                "≤ 0.65×",
            )
        if args.only in (None, "home"):
            interleaved(
                "`closure --all-quests` / 24 `closure` calls, 24 × 1,000 home",
                process(closure_cmd("--all-quests", "--home", str(large)), empty),
                quests_one_by_one(large, empty),
                args.runs,
                "< 1×",
            )
            trees: dict[str, Path | None] = {
                "this tree": None,
                **({"old tree": args.old.resolve()} if args.old else {}),
            }
            sides: dict[str, Step] = {}
            for label, tree in trees.items():
                sides[f"all {label}"] = process(closure_cmd("--all-quests", "--home", str(cards)), empty, tree)
                sides[f"24 {label}"] = quests_one_by_one(cards, empty, tree)
            times = interleaved_sides(sides, args.runs)
            for label in trees:
                ratio_row(
                    f"`closure --all-quests` / 24 `closure` calls, {cards.name} ({label})",
                    times,
                    f"all {label}",
                    f"24 {label}",
                    "< 1×",
                )
            if args.old:
                ratio_row(
                    f"`closure --all-quests`, this tree / old tree, {cards.name}",
                    times,
                    "all this tree",
                    "all old tree",
                    "—",
                )
    print(f"load average after: {load()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
