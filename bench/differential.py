"""The differential property test at nightly size: many more hostile quests than the suite
runs, every violation collected (not only the first), grouped by surface and variation.

    python bench/differential.py --examples 500            # every variation enabled
    python bench/differential.py --examples 50 --flags copies,toggle
    python bench/differential.py --examples 20 --each      # each variation alone: one class a run

Exit 1 when any surface passed (or named too few runs, or crashed) while the reference reader
counted a pending run. See docs/testing.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"
sys.path[:0] = [str(TESTS), str(TESTS / "acceptance")]

from hypothesis import HealthCheck, given, settings  # noqa: E402
from test_differential import violations  # noqa: E402

from hostile_quests import FLAGS, QuestSpec, quest_specs  # noqa: E402


def isolated_git(base: Path) -> None:
    """The test suite's git: no user configuration, a fixed identity, main as the first branch."""
    config = base / ".gitconfig"
    config.write_text(
        "[user]\n\tname = Bench\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n"
        "[commit]\n\tgpgsign = false\n"
    )
    os.environ.update(HOME=str(base), GIT_CONFIG_GLOBAL=str(config), GIT_CONFIG_NOSYSTEM="1")
    for name in ("DEEPSCIENTIST_HOME", "DS_HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        os.environ.pop(name, None)
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


def run(flags: frozenset[str], examples: int, seed: int | None, force: bool) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=seed is None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(spec=quest_specs(flags, force))
    def one(spec: QuestSpec) -> None:
        base = Path(tempfile.mkdtemp(prefix="ds-gate-differential-"))
        try:
            for problem in violations(spec, base):
                key = f"{problem.split(':')[0]} | {','.join(sorted(spec.flags)) or '(no variation)'}"
                found.setdefault(key, []).append(f"{spec}\n  {problem}")
        finally:
            shutil.rmtree(base, ignore_errors=True)

    if seed is not None:
        from hypothesis import seed as with_seed

        one = with_seed(seed)(one)
    one()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--flags", default=",".join(FLAGS), help=f"variations to enable (of {', '.join(FLAGS)})")
    parser.add_argument("--each", action="store_true", help="run each variation alone (always on), then none")
    parser.add_argument("--seed", type=int, help="a random seed (default: derandomized, the same every run)")
    args = parser.parse_args()
    chosen = [f for f in args.flags.split(",") if f]
    unknown = set(chosen) - set(FLAGS)
    if unknown:
        parser.error(f"unknown variations: {', '.join(sorted(unknown))}")
    base = Path(tempfile.mkdtemp(prefix="ds-gate-bench-home-"))
    isolated_git(base)
    subprocess.run(["git", "--version"], check=True, capture_output=True)
    runs = [frozenset({f}) for f in chosen] + [frozenset()] if args.each else [frozenset(chosen)]
    failed = False
    for flags in runs:
        found = run(flags, args.examples, args.seed, force=args.each)
        print(f"== variations: {', '.join(sorted(flags)) or '(none)'}: {len(found)} kind(s) of violation")
        for key, cases in sorted(found.items()):
            failed = True
            smallest = min(cases, key=len)
            print(f"-- {key} ({len(cases)} example(s)); the smallest:\n{smallest[:2500]}\n")
    shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
