"""What an agent needs to distil a pending run: its summary and metrics, read back from the record.

The model keeps runs slim (a handful of strings: real records carry metric tables), so the
few pending runs an agent asks about are read again here, from wherever the loader found
them: a folder, or a branch tip's git objects (``<ref>:<path>``, read by blob id). Each value
is bounded: a summary or a metric table can be as large as an agent cares to write, and an
agent's context is not.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ds_gate.kernel import fs
from ds_gate.kernel.fs import TooLarge, is_inside
from ds_gate.kernel.git import GitError
from ds_gate.kernel.gitpaths import read_paths
from ds_gate.model.records import Quest, Run, Workspace, text_of
from ds_gate.sources.records import parse_json_object

SUMMARY_CHARS = 2000  # a run's summary and conclusion: a paragraph or two
METRICS_CHARS = 4000  # each metric field, serialized: a table of a few dozen values
# DeepScientist's run records (artifact/service.py record_main_experiment, record_analysis_slice)
METRIC_KEYS = ("metrics_summary", "metric_rows", "metrics")
PRIMARY_KEYS = (
    ("primary_metric_id", "id"),
    ("primary_value", "value"),
    ("baseline_value", "baseline_value"),
    ("delta_vs_baseline", "delta_vs_baseline"),
)


def clip_text(value: Any, limit: int = SUMMARY_CHARS) -> tuple[str | None, bool]:
    """Text as the record holds it, cut at ``limit`` characters with a note saying how much was cut."""
    text = text_of(value)
    if text is None or len(text) <= limit:
        return text, False
    return f"{text[:limit]} ... [clipped: {len(text) - limit} more characters]", True


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))


def bounded(value: Any, limit: int = METRICS_CHARS) -> tuple[Any, bool]:
    """``value`` when its JSON fits ``limit`` characters; else its leading keys or items that fit
    (a string clipped), and True: a metric table keeps its first metrics, not nothing."""
    if value is None or _size(value) <= limit:
        return value, False
    if isinstance(value, str):
        return clip_text(value, limit)[0], True
    if not isinstance(value, (dict, list)):
        return None, True
    is_dict, used, kept = isinstance(value, dict), 2, []
    for entry in value.items() if isinstance(value, dict) else value:  # a dict's (key, item) pairs
        used += _size(dict([entry]) if is_dict else entry) + 1
        if used > limit:
            break
        kept.append(entry)
    return (dict(kept) if is_dict else kept), True


def _workspace(quest: Quest, run: Run) -> Workspace | None:
    return next((ws for ws in quest.workspaces if ws.rel == run.workspace), None)


def read_record(quest: Quest, run: Run) -> tuple[dict[str, Any] | None, str | None]:
    """The run's record as the loader found it, or None and why it could not be read again."""
    ws = _workspace(quest, run)
    raw: bytes | TooLarge | None
    if ws is not None and ws.ref is not None:  # a branch tip: git objects, never a checkout
        prefix = f"{ws.ref}:"
        inside = run.path[len(prefix) :] if run.path.startswith(prefix) else run.path
        try:
            raw = read_paths(quest.root, ws.ref, [inside])[inside]
        except GitError as exc:
            return None, f"git could not read {run.path}: {exc}"
    else:
        full = Path(os.path.realpath(quest.root / run.path))
        if not is_inside(quest.root, full):
            return None, f"{run.path} leads out of the quest; not read"
        try:
            raw = fs.read_file(full, follow=False)
        except OSError as exc:  # gone since the quest was read, unreadable, or over the size limit
            return None, f"cannot read {run.path}: {exc.strerror or exc}"
    if raw is None:
        return None, f"{run.path} is no longer in git"
    if isinstance(raw, TooLarge):
        return None, f"{run.path} is over the size limit; not read"
    data, problem = parse_json_object(raw, run.path)
    return (data, None) if problem is None else (None, problem.message)


def run_details(quest: Quest, run: Run) -> dict[str, Any]:
    """One pending run for the agent: ``run_id`` is the artifact id a review lists."""
    data, problem = read_record(quest, run)
    record = data or {}
    ws = _workspace(quest, run)
    clipped: list[str] = []
    out: dict[str, Any] = {
        "run_id": run.artifact_id,
        "experiment_run_id": run.run_id,
        "run_kind": run.run_kind,
        "status": run.status,
        "workspace": run.workspace,
        "branch": text_of(record.get("branch")) or (ws.branch if ws is not None else None),
        "created_at": text_of(record.get("created_at")) or run.created_at,
        "updated_at": text_of(record.get("updated_at")) or run.updated_at,
        "path": run.path,
    }
    for key in ("summary", "reason"):
        out[key], cut = clip_text(record.get(key))
        if cut:
            clipped.append(key)
    out["verdict"] = text_of(record.get("verdict"))
    for key in METRIC_KEYS:
        out[key], cut = bounded(record.get(key))
        if cut:
            clipped.append(key)
    details = record.get("details")
    primary = {
        name: details.get(key)
        for key, name in PRIMARY_KEYS
        if isinstance(details, dict) and details.get(key) is not None
    }
    out["primary_metric"], cut = bounded(primary or None, SUMMARY_CHARS)
    if cut:
        clipped.append("primary_metric")
    out["clipped"] = clipped
    out["unread"] = problem
    return out
