"""Deterministic scale quests for the benchmarks: real git repositories with real worktrees.

Files are written directly (as DeepScientist's ArtifactService writes them: the record,
plus a line in the workspace's ``_index.jsonl`` with an absolute path), then each
worktree commits its own branch. The same arguments always give the same files.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

STAMP = "2026-11-{day:02d}T{hour:02d}:{minute:02d}:00+00:00"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _stamp(n: int) -> str:
    return STAMP.format(day=1 + n // 1440 % 28, hour=n // 60 % 24, minute=n % 60)


def _record(workspace: Path, kind: str, folder: str, record: dict, lines: list[str]) -> None:
    quest_id = record["quest_id"]
    path = workspace / "artifacts" / folder / f"{record['artifact_id']}.json"
    path.write_text(json.dumps(record, indent=2))
    lines.append(
        json.dumps(
            {
                "artifact_id": record["artifact_id"],
                "kind": kind,
                "status": record.get("status"),
                "quest_id": quest_id,
                "path": str(path),
                "summary": record.get("summary"),
                "updated_at": record["updated_at"],
            }
        )
    )


def make_quest(
    root: Path,
    runs: int,
    worktrees: int,
    reviews: int,
    covered: float = 0.95,
    inherit: bool = False,
    quest_id: str = "001",
) -> dict[str, int]:
    """A quest with ``runs`` completed runs spread over ``worktrees`` worktrees (one branch
    each) and ``reviews`` distill reviews covering the first ``covered`` share of runs.

    ``inherit``: every odd worktree branches from the previous worktree's branch instead of
    main, as DeepScientist's run worktrees branch from the current head: it holds
    byte-identical copies of that worktree's records and its index lines (whose ``path``
    still names the parent's files). 2,000 runs in 20 worktrees then give ~3,100 index
    lines and ~3,100 record files, like the quest DeepScientist's own code wrote."""
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    for key, value in (("user.name", "bench"), ("user.email", "bench@example.invalid"), ("commit.gpgsign", "false")):
        _git(root, "config", key, value)
    (root / ".gitignore").write_text(".ds/worktrees/\n")
    (root / "quest.yaml").write_text(
        f"quest_id: '{quest_id}'\nstatus: active\nstartup_contract:\n  experience_distill: {{mode: 'on'}}\n"
    )
    (root / "artifacts").mkdir()
    (root / "artifacts" / "_index.jsonl").write_text("")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "quest: create")
    run_ids = [f"run-{n:08x}" for n in range(runs)]
    per_ws = -(-runs // worktrees)
    to_cover = run_ids[: int(runs * covered)]
    per_review = -(-len(to_cover) // max(reviews, 1)) if reviews else 0
    for w in range(worktrees):
        ws = root / ".ds" / "worktrees" / f"run-{w:03d}"
        parent = f"run/main-{w - 1:03d}" if inherit and w % 2 else "main"
        _git(root, "worktree", "add", "-q", "-b", f"run/main-{w:03d}", str(ws), parent)
        for folder in ("runs", "decisions"):
            (ws / "artifacts" / folder).mkdir(parents=True, exist_ok=True)
        inherited = (ws / "artifacts" / "_index.jsonl").read_text().splitlines()
        lines: list[str] = [line for line in inherited if line.strip()]
        for n in range(w * per_ws, min(runs, (w + 1) * per_ws)):
            _record(
                ws,
                "run",
                "runs",
                {
                    "kind": "run",
                    "schema_version": 1,
                    "artifact_id": run_ids[n],
                    "id": run_ids[n],
                    "quest_id": quest_id,
                    "created_at": _stamp(n),
                    "updated_at": _stamp(n),
                    "status": "completed",
                    "run_id": f"main-{n:05d}",
                    "run_kind": "analysis.slice" if n % 3 else "main_experiment",
                    "summary": f"Experiment main-{n:05d}.",
                    "workspace_rel_path": f".ds/worktrees/run-{w:03d}",
                    "metrics_summary": {f"m{k}": round(0.5 + k / 100, 3) for k in range(12)},
                },
                lines,
            )
        for r in range(reviews):
            if r % worktrees != w:
                continue
            chunk = to_cover[r * per_review : (r + 1) * per_review]
            if not chunk:
                continue
            _record(
                ws,
                "decision",
                "decisions",
                {
                    "kind": "decision",
                    "schema_version": 1,
                    "artifact_id": f"decision-{r:08x}",
                    "quest_id": quest_id,
                    "created_at": _stamp(runs + r),
                    "updated_at": _stamp(runs + r),
                    "status": "pending",
                    "action": "distill_review",
                    "verdict": "covered",
                    "reason": f"{len(chunk)} runs distilled",
                    "reviewed_run_ids": chunk,
                    "cards_written": [],
                    "reason_if_empty": "benchmark",
                },
                lines,
            )
        (ws / "artifacts" / "_index.jsonl").write_text("\n".join(lines) + "\n")
        _git(ws, "add", "-A")
        _git(ws, "commit", "-q", "-m", f"runs of worktree {w}")
    return {"runs": runs, "worktrees": worktrees, "reviews": reviews, "pending": runs - len(to_cover)}


SHAPES = ("copies", "own")  # how a quest's worktrees hold its runs: see ``make_shaped``


def make_shaped(root: Path, runs: int, shape: str, quest_id: str = "001") -> dict[str, int]:
    """A benchmark quest of one of two shapes, 95 % of its runs covered.

    - ``copies`` (issue 17's): 100 runs a worktree, two reviews a worktree, every odd worktree
      branched from the previous one (``inherit``), so it holds copies of that one's records;
    - ``own`` (a quest as DeepScientist's own code leaves it, issue 36): 20 worktrees whatever
      the size, each branched from main and holding only its own runs (5,000 a worktree at
      100,000 runs), 40 reviews."""
    if shape == "copies":
        worktrees = max(20, runs // 100)
        return make_quest(root, runs, worktrees, worktrees * 2, inherit=True, quest_id=quest_id)
    if shape == "own":
        return make_quest(root, runs, 20, 40, quest_id=quest_id)
    raise ValueError(f"unknown shape {shape!r}: one of {', '.join(SHAPES)}")


def make_decisions(folder: Path, count: int) -> list[Path]:
    """``count`` distill_review files, one in ten invalid in two places."""
    folder.mkdir(parents=True)
    paths = []
    for i in range(count):
        doc = {
            "kind": "decision",
            "artifact_id": f"decision-{i:08x}",
            "action": "distill_review",
            "verdict": "covered",
            "reason": "r",
            "reviewed_run_ids": [f"run-{i:08x}"],
            "cards_written": [
                {"card_id": f"knowledge-{i:08x}", "scope": "global", "action": "new", "target_run_id": f"run-{i:08x}"}
            ],
        }
        if i % 10 == 0:
            doc["verdict"] = ""
            doc["cards_written"][0]["scope"] = "team"
        path = folder / f"decision-{i:08x}.json"
        path.write_text(json.dumps(doc, indent=2))
        paths.append(path)
    return paths
