"""How DeepScientist main (1.6.0) checks and writes an artifact record, shared by the stand-in service
and the example quest. Written from main's documentation and source, not copied; standard library
only (and so its own copy of main's tables): ``tests/standin`` installs it where no ds-gate is.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ARTIFACT_DIRS = {
    "baseline": "baselines",
    "idea": "ideas",
    "decision": "decisions",
    "progress": "progress",
    "answer": "answers",
    "milestone": "milestones",
    "run": "runs",
    "report": "reports",
    "approval": "approvals",
    "graph": "graphs",
}
DECISION_ACTIONS = {
    "continue",
    "launch_experiment",
    "launch_analysis_campaign",
    "branch",
    "prepare_branch",
    "activate_branch",
    "reuse_baseline",
    "attach_baseline",
    "publish_baseline",
    "waive_baseline",
    "iterate",
    "reset",
    "stop",
    "write",
    "finalize",
    "request_user_decision",
}
CHECKPOINT_KINDS = {"decision", "run", "report", "baseline", "idea"}
DEFAULT_STATUS = {"progress": "active", "decision": "pending", "approval": "accepted", "graph": "generated"}


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat()


def random_id(kind: str) -> str:
    return f"{kind}-{uuid.uuid4().hex[:8]}"


def validate_artifact_payload(payload: dict[str, Any]) -> list[str]:
    """Main's checks before anything is written: a known kind; a decision needs ``verdict``,
    ``action`` and ``reason`` and one of main's actions; a run needs ``run_kind``."""
    kind = payload.get("kind")
    if kind not in ARTIFACT_DIRS:
        return [f"Unknown artifact kind: {kind}"]
    errors = []
    if kind == "decision":
        errors += [f"Decision artifact requires `{f}`." for f in ("verdict", "action", "reason") if not payload.get(f)]
        if payload.get("action") and payload["action"] not in DECISION_ACTIONS:
            errors.append(f"Unknown decision action: {payload['action']}")
    if kind == "run" and not payload.get("run_kind"):
        errors.append("Run artifact requires `run_kind`.")
    return errors


def checkpoint_repo(root: Path, message: str) -> dict[str, Any]:
    subprocess.run(["git", "add", "-A"], cwd=root, capture_output=True, check=False)
    done = subprocess.run(["git", "commit", "-q", "-m", message], cwd=root, capture_output=True, text=True, check=False)
    return {"committed": done.returncode == 0, "stderr": done.stderr + done.stdout}


def write_record(
    quest_root: Path,
    workspace: Path,
    kind: str,
    payload: dict[str, Any],
    *,
    quest_id: str,
    artifact_id: str,
    stamp: str,
    index: bool = True,
) -> dict[str, Any]:
    """The record as main writes it (the common fields, the file at
    ``<workspace>/artifacts/<dir>/<id>.json``) and its 7-key index line, with an absolute path."""
    branch = subprocess.run(
        ["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=workspace, capture_output=True, text=True, check=False
    ).stdout.strip()
    record = {
        "kind": kind,
        "schema_version": 1,
        "artifact_id": artifact_id,
        "id": artifact_id,
        "quest_id": quest_id,
        "created_at": stamp,
        "updated_at": stamp,
        "source": {"kind": "agent"},
        "status": DEFAULT_STATUS.get(kind, "completed"),
        "branch": branch,
        "workspace_root": str(workspace),
        "workspace_rel_path": Path(os.path.relpath(workspace, quest_root)).as_posix(),
        **payload,
    }
    path = workspace / "artifacts" / ARTIFACT_DIRS.get(kind, kind + "s") / f"{artifact_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False))
    if index:
        line = {
            "artifact_id": artifact_id,
            "kind": kind,
            "status": record["status"],
            "quest_id": quest_id,
            "path": str(path),
            "summary": record.get("summary"),
            "updated_at": record["updated_at"],
        }
        with (workspace / "artifacts" / "_index.jsonl").open("a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return record
