"""A deliberately small, independent reader of a DeepScientist quest: which runs it holds,
which are completed, which are covered by a distill review, hence which are pending.

Written from ``/work/shared/reference/deepscientist-quest-formats.md`` §2-3, §6 and §8,
DeepScientist main's ``quest/service.py _collect_artifacts_raw`` (every workspace root,
``artifacts/*/*.json`` except ``graphs``, copies ranked by ``(updated_at, created_at,
len(payload))`` as strings) and PR #60's ``iter_distill_candidate_records`` /
``read_distill_reviews`` (index lines whose ``path`` exists, ``kind == "run"``, ``run_kind``
in the candidate kinds, ``status.strip().lower()`` in the done set; reviews are decisions
with ``action == "distill_review"``). It imports nothing of ds-gate's.

Where DeepScientist's two readers differ, a run is pending when *either* would count it
(the gate may be stricter than DeepScientist, never laxer); the toggle is on when any
``quest.yaml`` a workspace holds, or any commit of any branch holds, turns it on (issue 24: a
branch that drops it does not turn the gate off; history read without grafts, issue 35). Quest-written settings and waivers are ignored: they never lower a verdict.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

DONE = {"completed", "success", "succeeded", "done"}
RUN_KINDS = {"analysis.slice", "main_experiment", "experiment"}


@dataclass
class Reading:
    distill_on: bool
    runs: set[str] = field(default_factory=set)  # artifact ids of kind "run"
    completed: set[str] = field(default_factory=set)
    reviewed: set[str] = field(default_factory=set)

    @property
    def pending(self) -> set[str]:
        return self.completed - self.reviewed if self.distill_on else set()


def toggle_on(value: Any) -> bool:
    """PR #60 ``coerce_distill_mode``."""
    if isinstance(value, dict):
        value = value.get("mode")
    if value is True:
        return True
    return isinstance(value, str) and value.strip().lower() == "on"


def distill_on(path: Path) -> bool:
    return _distill_in(_load(path, yaml.safe_load))


def _distill_in(meta: Any) -> bool:
    contract = meta.get("startup_contract") if isinstance(meta, dict) else None
    return isinstance(contract, dict) and toggle_on(contract.get("experience_distill"))


def committed_on(root: Path) -> bool:
    """Any commit of any branch whose ``quest.yaml`` turns the toggle on, the history read as
    committed: ``.git/info/grafts`` and replace refs, which rewrite it, are not read (issue 35)."""
    env = {**os.environ, "GIT_GRAFT_FILE": os.path.join(os.devnull, "none"), "GIT_NO_REPLACE_OBJECTS": "1"}
    listed = subprocess.run(["git", "rev-list", "--all"], cwd=root, capture_output=True, text=True, env=env)
    for commit in listed.stdout.split() if listed.returncode == 0 else []:
        shown = subprocess.run(["git", "show", f"{commit}:quest.yaml"], cwd=root, capture_output=True, env=env)
        try:
            if shown.returncode == 0 and _distill_in(yaml.safe_load(shown.stdout.decode("utf-8"))):
                return True
        except (ValueError, RecursionError, yaml.YAMLError):
            continue
    return False


def _load(path: Path, parse: Any) -> Any:
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError, yaml.YAMLError):
        return None


def workspaces(root: Path) -> list[Path]:
    """The quest root, ``research_head_worktree_root``, then ``.ds/worktrees/*``; by resolved path."""
    found = [root]
    state = _load(root / ".ds" / "research_state.json", json.loads)
    head = state.get("research_head_worktree_root") if isinstance(state, dict) else None
    if isinstance(head, str) and head.strip():
        found.append(Path(head))
    folder = root / ".ds" / "worktrees"
    if folder.is_dir():
        found += sorted(p for p in folder.iterdir() if p.is_dir())
    seen: set[Path] = set()
    out = []
    for path in found:
        if _is(path, Path.is_dir) and path.resolve() not in seen:
            seen.add(path.resolve())
            out.append(path)
    return out


def _is(path: Path, test: Any) -> bool:
    """``path.is_dir()`` / ``is_file()``, False for a name the system refuses (too long)."""
    try:
        return bool(test(path))
    except OSError:
        return False


def copies(workspace: Path) -> list[tuple[dict[str, Any], bool]]:
    """Every record copy a workspace shows: (payload, reached through an index line)."""
    artifacts = workspace / "artifacts"
    by_path: dict[Path, tuple[dict[str, Any], bool]] = {}
    if artifacts.is_dir():
        for folder in sorted(p for p in artifacts.iterdir() if p.is_dir() and p.name != "graphs"):
            for path in sorted(folder.glob("*.json")):
                payload = _load(path, json.loads)
                if isinstance(payload, dict):
                    by_path[path.resolve()] = (payload, False)
    index = _load(artifacts / "_index.jsonl", lambda text: text.splitlines()) or []
    for line in index:
        entry = _load_line(line)
        if entry.get("kind") not in ("run", "decision"):
            continue
        path = Path(str(entry.get("path") or ""))
        payload = _load(path, json.loads) if _is(path, Path.is_file) else None
        if isinstance(payload, dict):
            by_path[path.resolve()] = (payload, True)
    return list(by_path.values())


def _load_line(line: str) -> dict[str, Any]:
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        return {}
    return entry if isinstance(entry, dict) else {}


def is_candidate(payload: dict[str, Any]) -> bool:
    return (
        str(payload.get("kind") or "") == "run"
        and str(payload.get("run_kind") or "") in RUN_KINDS
        and str(payload.get("status") or "").strip().lower() in DONE
    )


def _rank(payload: dict[str, Any]) -> tuple[str, str, int]:
    return (str(payload.get("updated_at") or ""), str(payload.get("created_at") or ""), len(payload))


def read(root: Path) -> Reading:
    spaces = workspaces(root)
    reading = Reading(any(distill_on(ws / "quest.yaml") for ws in spaces) or committed_on(root))
    runs: dict[str, list[tuple[dict[str, Any], bool]]] = {}
    for workspace in spaces:
        for payload, indexed in copies(workspace):
            if str(payload.get("kind") or "") == "run":
                ident = str(payload.get("artifact_id") or payload.get("id") or "").strip()
                if ident:
                    runs.setdefault(ident, []).append((payload, indexed))
            elif indexed and payload.get("kind") == "decision" and payload.get("action") == "distill_review":
                ids = payload.get("reviewed_run_ids")
                reading.reviewed |= {str(i) for i in ids} if isinstance(ids, list) else set()
    for ident, found in runs.items():
        reading.runs.add(ident)
        best = max(_rank(p) for p, _ in found)  # main's winner (ties: any of them)
        if any(is_candidate(p) and (indexed or _rank(p) == best) for p, indexed in found):
            reading.completed.add(ident)
    return reading
