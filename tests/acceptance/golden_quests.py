"""The quests behind the golden outputs: the demo's, one broken in many ways, and a large one.

Each builder is deterministic (ExampleQuest's clock and ids, bench/gen.py's numbering),
so the JSON and text that ds-gate prints for them can be kept byte for byte, with the
temporary folder's path replaced by ``<BASE>``. ``outputs`` runs every command once.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest

from helpers import REPO

GOLDEN = Path(__file__).resolve().parent / "golden"


def build_demo(base: Path) -> Path:
    """The demo's home after its last step (quest 001 covered, two global lessons)."""
    from ds_gate.demo.run import run_demo

    with contextlib.redirect_stdout(io.StringIO()):
        assert run_demo(str(base)) == 0
    return base / "DeepScientist"


def build_broken(home: Path) -> Path:
    """Quest 002 in ``home``: one of each kind of finding a real quest can carry."""
    quest = ExampleQuest(home / "quests" / "002", "002").create()
    root = quest.root
    ws = quest.worktree("idea-x", "idea/002-x")
    done = [quest.run(ws, f"main-00{i}") for i in range(3)]
    quest.run(root, "main-009", status="failed")
    quest.checkpoint(ws, "runs")
    # a review with an experiment run_id instead of an artifact id, and a target it does not list
    quest.review(
        ws,
        [done[0], "main-001"],
        cards=[
            {"card_id": "k-missing", "scope": "global", "action": "new", "target_run_id": done[2]},
        ],
    )
    quest.review(ws, [done[0]], cards=[])  # valid, covers done[0]
    quest.decision(ws, "Distill_Review")  # a spelling that reviews nothing
    quest.decision(ws, "continue", reason="")  # breaks the decision schema
    quest.record(
        ws, "decision", {"artifact_id": "decision-other", "action": "continue", "verdict": "ok", "reason": "r"}
    )
    (ws / "artifacts" / "decisions" / "decision-other.json").rename(
        ws / "artifacts" / "decisions" / "decision-renamed.json"
    )
    (ws / "artifacts" / "runs" / "run-truncated.json").write_text('{"kind": "run", "run_id": ')
    (ws / "artifacts" / "runs" / "run-list.json").write_text("[1, 2]")
    with (ws / "artifacts" / "_index.jsonl").open("a") as out:
        out.write("not json\n")
        out.write(
            json.dumps(
                {"artifact_id": "run-gone0000", "kind": "run", "path": str(ws / "artifacts/runs/run-gone0000.json")}
            )
            + "\n"
        )
    # cards: a lesson kept in quest scope, a broken chain, a schema error, a duplicate
    quest.card(
        "quest", "Quest lesson", card_id="k-quest", claim="Stays here.", lineage=[{"quest": "002", "run": done[1]}]
    )
    quest.card(
        "global",
        "Chain broken",
        card_id="k-chain",
        claim="c",
        lineage=[
            {"quest": "001", "run": done[1]},
            {"quest": "002", "run": "main-00x"},
            {"quest": "002", "run": "main-00x"},
            {"quest": "404", "run": "run-1"},
        ],
    )
    quest.card(
        "global",
        "Bad confidence",
        card_id="k-conf",
        claim="c",
        confidence=3,
        lineage=[{"quest": "002", "run": done[2]}],
    )
    (quest.memory_root("quest") / "knowledge" / "broken.md").write_text("---\nid: [unclosed\n---\nbody\n")
    quest.write_quest_yaml(startup_contract={"experience_distill": {"mode": "on"}, "recall_priors": "yes"})
    (root / ".ds-gate.yaml").write_text(
        "waivers:\n"
        f"  - rule: coverage.pending-run\n    id: {done[1]}\n    reason: a smoke run\n"
        "  - rule: run.schema\n    id: run-nothing\n    reason: stale\n"
        f"  - rule: coverage.pending-run\n    id: {done[2]}\n    reason: old\n    expires: 2020-01-01\n"
        "  - rule: review.schema\n    reason: ''\n    id: x\n"
    )
    return root


def build_large(base: Path) -> tuple[Path, Path]:
    """bench/gen.py's 2,000-run, 20-worktree quest and its 1,000 decision files."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from gen import make_decisions, make_quest
    finally:
        sys.path.remove(str(REPO / "bench"))
    make_quest(base / "q2000", runs=2000, worktrees=20, reviews=40)
    make_decisions(base / "decisions", 1000)
    return base / "q2000", base / "decisions"


def run(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


def record_and_card_files(*roots: Path) -> list[str]:
    files = []
    for root in roots:
        files += sorted(str(p) for p in root.rglob("artifacts/*/*.json") if "/.git/" not in str(p))
        files += sorted(str(p) for p in root.rglob("memory/*/*.md") if "/.git/" not in str(p))
    return files


def commands(base: Path) -> dict[str, list[str]]:
    """name -> argv, for every golden output."""
    home = base / "DeepScientist"
    q1, q2 = home / "quests" / "001", home / "quests" / "002"
    out: dict[str, list[str]] = {}
    for name, quest in (("demo", q1), ("broken", q2)):
        for command in ("check", "closure", "candidates"):
            for fmt in ("json", "text"):
                out[f"{name}-{command}.{fmt}"] = [command, str(quest), "--format", fmt]
    for fmt in ("json", "text"):
        out[f"lineage.{fmt}"] = ["lineage", "--home", str(home), str(q1), str(q2), "--format", fmt]
        out[f"validate-demo.{fmt}"] = ["validate", *record_and_card_files(q1, home / "memory"), "--format", fmt]
        out[f"validate-broken.{fmt}"] = ["validate", *record_and_card_files(q2), "--format", fmt]
    large, decisions = base / "q2000", base / "decisions"
    for command in ("check", "closure", "candidates"):
        out[f"large-{command}.json"] = [command, str(large), "--format", "json"]
    out["large-validate.json"] = ["validate", *sorted(str(p) for p in decisions.glob("*.json")), "--format", "json"]
    return out


def digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def build_all(base: Path) -> None:
    home = build_demo(base)
    build_broken(home)
    build_large(base)


def outputs(base: Path) -> dict[str, str]:
    """Every command's exit code and output, with ``base`` as ``<BASE>``."""
    import os

    os.environ.pop("COLUMNS", None)  # text wraps at 80 columns when not on a terminal
    found = {}
    for name, argv in commands(base).items():
        code, text = run(*argv)
        found[name] = f"exit {code}\n" + text.replace(str(base), "<BASE>")
    return found


if __name__ == "__main__":  # python tests/acceptance/golden_quests.py: rewrite the golden files
    import os
    import tempfile

    os.environ.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp).resolve()
        build_all(base)
        os.environ["DEEPSCIENTIST_HOME"] = str(base / "DeepScientist")
        digests = []
        for name, text in outputs(base).items():
            if name.startswith("large-"):  # half a megabyte each: kept as digests
                digests.append(f"{digest(text)}  {name}")
            else:
                (GOLDEN / name).write_text(text)
        (GOLDEN / "large.sha256").write_text("\n".join(sorted(digests, key=lambda line: line.split()[1])) + "\n")
