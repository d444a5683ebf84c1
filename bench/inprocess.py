"""ds-gate's closure against the peer gate (``bench/peer.py``: PR #60's real gate) in one process, interleaved.

    python bench/inprocess.py QUEST [--runs 9] [--deepscientist DIR | --reimplementation]

Both are imported and warmed first, so this compares the work, not the start-up. Each
round times, in turn: ds-gate without the record cache (``cache=False``: every record
file read, a first run), the peer's ``evaluate_distill_gate_for_quest``, and ds-gate with
the cache warm (a repeated run). ds-gate's side includes rendering the JSON report. Prints
one JSON object of medians (ms), medians of the pairwise ratios, and the peer's label.
"""

from __future__ import annotations

import argparse
import inspect
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peer as peers


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("quest", type=Path)
    parser.add_argument("--runs", type=int, default=9)
    peers.add_argument(parser)
    args = parser.parse_args()
    peer = peers.find(args.deepscientist, reimplementation=args.reimplementation)
    gate = peer.evaluate()

    from ds_gate.engine.gate import evaluate
    from ds_gate.reporters.json import JsonReporter

    cacheable = "cache" in inspect.signature(evaluate).parameters  # an older ds-gate (versus.py) has no cache

    def ours(cache: bool) -> float:
        start = time.perf_counter()
        JsonReporter().render(
            evaluate(args.quest, "closure", cache=cache) if cacheable else evaluate(args.quest, "closure")
        )
        return time.perf_counter() - start

    def theirs() -> float:
        start = time.perf_counter()
        gate(args.quest)
        return time.perf_counter() - start

    (
        ours(True),
        ours(True),
        ours(False),
        theirs(),
    )  # warm: imports, the page cache, the record cache (from a quest's 2nd run)
    first, repeated, pr = [], [], []
    for _ in range(args.runs):
        first.append(ours(False))
        pr.append(theirs())
        repeated.append(ours(True))
    print(
        json.dumps(
            {
                "peer": peer.label,
                "first_ms": statistics.median(first) * 1000,
                "repeated_ms": statistics.median(repeated) * 1000,
                "pr60_ms": statistics.median(pr) * 1000,
                "first_ratio": statistics.median(a / b for a, b in zip(first, pr, strict=True)),
                "repeated_ratio": statistics.median(a / b for a, b in zip(repeated, pr, strict=True)),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
