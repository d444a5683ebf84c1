"""PR #60's closure gate, ``evaluate_distill_gate_for_quest``, re-implemented for the benchmarks.

PR #60 (DeepScientist ``e619730``) is unmerged and not installable from PyPI, so this is a
re-implementation of its algorithm as ``/work/shared/reference/deepscientist-quest-formats.md``
section 6 describes it, written to cost what it costs, not to be pretty:

- ``quest.yaml`` is read with ``yaml.safe_load`` (the toggle; off means no gate at all);
- the artifacts folders are ``quest_root/artifacts`` and every ``.ds/worktrees/*/artifacts``,
  deduplicated by resolved path;
- pass 1, per folder: read ``_index.jsonl`` as text, ``json.loads`` each non-blank line, and
  for each ``kind: decision`` line whose ``path`` exists, ``json.loads`` that file; keep it
  when its ``action`` is ``distill_review``; union ``reviewed_run_ids``, max ``created_at``;
- pass 2, per folder: read the index again, ``json.loads`` each line again, and for each
  ``kind: run`` line whose ``path`` exists, ``json.loads`` that file; a candidate is a
  ``kind: run`` record with ``run_kind`` in the three candidate kinds and a completed
  status; the first not reviewed per ``artifact_id`` is pending.

Every record path an index line names is opened, once per line that names it (inherited
index lines in a worktree name their parent's files, which are opened again).

    python bench/pr60.py QUEST_ROOT     # prints the gate's payload as JSON (or null)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

CANDIDATE_KINDS = frozenset({"analysis.slice", "main_experiment", "experiment"})
DONE = frozenset({"completed", "success", "succeeded", "done"})


def _toggle_on(value: Any) -> bool:
    if value is True:
        return True
    if isinstance(value, str):
        return value.strip().lower() == "on"
    if isinstance(value, dict):
        mode = value.get("mode")
        return mode is True or str(mode or "").strip().lower() == "on"
    return False


def _distill_on(quest_root: Path) -> bool:
    path = quest_root / "quest.yaml"
    if not path.exists():
        return False
    try:
        import yaml

        payload = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except Exception:
        return False
    contract = payload.get("startup_contract") if isinstance(payload, dict) else None
    return isinstance(contract, dict) and _toggle_on(contract.get("experience_distill"))


def _artifact_dirs(quest_root: Path) -> list[Path]:
    roots = [quest_root]
    worktrees = quest_root / ".ds" / "worktrees"
    if worktrees.exists():
        roots.extend(p for p in sorted(worktrees.iterdir()) if p.is_dir())
    seen: set[str] = set()
    out = []
    for root in roots:
        artifacts = root / "artifacts"
        if artifacts.exists() and str(artifacts.resolve()) not in seen:
            seen.add(str(artifacts.resolve()))
            out.append(artifacts)
    return out


def _indexed_records(artifacts: Path, kind: str) -> list[dict[str, Any]]:
    """Each record an index line of ``kind`` names, opened and parsed once per line."""
    index = artifacts / "_index.jsonl"
    if not index.exists():
        return []
    out = []
    for line in index.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            entry = json.loads(line)
        except Exception:
            continue
        if entry.get("kind") != kind:
            continue
        path = Path(str(entry.get("path") or ""))
        if not path.exists():
            continue
        try:
            out.append(json.loads(path.read_text(encoding="utf-8")))
        except Exception:
            continue
    return out


def evaluate_distill_gate_for_quest(quest_root: Path) -> dict[str, Any] | None:
    if not _distill_on(quest_root):
        return None
    dirs = _artifact_dirs(quest_root)
    reviewed: set[str] = set()
    cursor: str | None = None
    for artifacts in dirs:  # pass 1: reviews
        for record in _indexed_records(artifacts, "decision"):
            if record.get("action") != "distill_review":
                continue
            reviewed.update(str(r) for r in record.get("reviewed_run_ids") or [])
            created = str(record.get("created_at") or "")
            if created and (cursor is None or created > cursor):
                cursor = created
    pending: dict[str, dict[str, Any]] = {}
    for artifacts in dirs:  # pass 2: candidates
        for record in _indexed_records(artifacts, "run"):
            if str(record.get("kind") or "") != "run" or str(record.get("run_kind") or "") not in CANDIDATE_KINDS:
                continue
            if str(record.get("status") or "").strip().lower() not in DONE:
                continue
            rid = str(record.get("artifact_id") or "")
            if rid and rid not in reviewed and rid not in pending:
                pending[rid] = record
    if not pending:
        return None
    ids = list(pending)
    return {"pending_distill_count": len(ids), "pending_distill_ids": ids[:5], "cursor_run_created_at": cursor}


if __name__ == "__main__":
    print(json.dumps(evaluate_distill_gate_for_quest(Path(sys.argv[1]))))
