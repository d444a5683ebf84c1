"""The stand-in for DeepScientist main's ``ArtifactService`` (1.6.0): the one ds-gate's demo and tests use.

Written from main's documentation and a reading of its source, not copied: main's method names
and parameters (so the integration's shape check passes and its wrappers wrap it), and the
behaviour the integration cares about (validate, write, checkpoint through the hooks; complete
only on an explicit approval of a blocking request).

It imports nothing of ds-gate's: ``tests/standin`` installs it as ``deepscientist.artifact.service``
(with ``main_records.py``) where no ds-gate is; ``ds-gate demo`` wraps it in process, with the
example quest's clock and ids, so a build is the same every time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

# relative, so the import holds both here and where tests/standin installs the two files
# (deepscientist/artifact/): this module imports nothing of ds-gate's
from .main_records import (
    ARTIFACT_DIRS,
    CHECKPOINT_KINDS,
    checkpoint_repo,
    random_id,
    utc_now,
    validate_artifact_payload,
    write_record,
)

QUEST_COMPLETION_DECISION_TYPE = "quest_completion_approval"


def _state(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.exists() else {"open_requests": []}


class QuestService:
    def __init__(self, home: Path) -> None:
        self.home = Path(home)

    def mark_completed(self, quest_id: str, stop_reason: str | None = None) -> dict[str, Any]:
        path = self.home / "quests" / quest_id / "quest.yaml"
        meta = yaml.safe_load(path.read_text()) or {}
        meta["status"] = "completed"
        meta["stop_reason"] = stop_reason
        path.write_text(yaml.safe_dump(meta, sort_keys=False))
        return {"quest_id": quest_id, "status": "completed"}


class ArtifactService:
    def __init__(
        self, home: Path, *, new_id: Callable[[str], str] = random_id, now: Callable[[], str] = utc_now
    ) -> None:
        self.home = Path(home)
        self.quest_service = QuestService(self.home)
        self.new_id, self.now = new_id, now

    def record(
        self,
        quest_root: Path,
        payload: dict[str, Any],
        *,
        checkpoint: bool | None = None,
        workspace_root: Path | None = None,
        commit_message: str | None = None,
        push: bool | None = None,
    ) -> dict[str, Any]:
        errors = validate_artifact_payload(payload)
        if errors:
            return {"ok": False, "errors": errors, "warnings": []}
        root = Path(workspace_root or quest_root)
        kind = payload["kind"]
        artifact_id = payload.get("artifact_id") or payload.get("id") or self.new_id(kind)
        body = {k: v for k, v in payload.items() if k != "kind"}
        record = write_record(
            Path(quest_root),
            root,
            kind,
            body,
            quest_id=Path(quest_root).name,
            artifact_id=artifact_id,
            stamp=self.now(),
        )
        result: dict[str, Any] = {
            "ok": True,
            "artifact_id": artifact_id,
            "record": record,
            "checkpoint": None,
            "path": str(root / "artifacts" / ARTIFACT_DIRS[kind] / f"{artifact_id}.json"),
        }
        if checkpoint if checkpoint is not None else kind in CHECKPOINT_KINDS:
            result["checkpoint"] = checkpoint_repo(root, commit_message or f"artifact: {kind} {artifact_id}")
        return result

    def submit_paper_bundle(
        self,
        quest_root: Path,
        *,
        title: str | None = None,
        summary: str = "",
        outline_path: str | None = None,
        draft_path: str | None = None,
        writing_plan_path: str | None = None,
        references_path: str | None = None,
        claim_evidence_map_path: str | None = None,
        compile_report_path: str | None = None,
        pdf_path: str | None = None,
        latex_root_path: str | None = None,
        package_type: str = "draft_checkpoint",
        prepare_open_source: bool = False,
    ) -> dict[str, Any]:
        if not str(outline_path or "").strip():
            raise ValueError("submit_paper_bundle requires a selected outline or explicit `outline_path`.")
        manifest = {"title": title, "summary": summary, "outline_path": outline_path, "package_type": package_type}
        path = Path(quest_root) / "paper" / "paper_bundle_manifest.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(manifest, indent=2))
        report = self.record(
            quest_root,
            {"kind": "report", "report_type": "paper_bundle", "summary": summary, "manifest_path": str(path)},
            checkpoint=False,
        )
        return {"ok": True, "manifest_path": str(path), "manifest": manifest, "report": report}

    def interact(
        self,
        quest_root: Path,
        *,
        kind: str = "progress",
        message: str = "",
        summary_preview: str | None = None,
        response_phase: str = "ack",
        importance: str = "info",
        deliver_to_bound_conversations: bool = True,
        include_recent_inbound_messages: bool = True,
        recent_message_limit: int = 8,
        attachments: list[dict[str, Any]] | None = None,
        interaction_id: str | None = None,
        expects_reply: bool | None = None,
        reply_mode: str | None = None,
        options: list[dict[str, Any]] | None = None,
        surface_actions: list[dict[str, Any]] | None = None,
        connector_hints: dict[str, Any] | None = None,
        allow_free_text: bool = True,
        reply_schema: dict[str, Any] | None = None,
        reply_to_interaction_id: str | None = None,
        supersede_open_requests: bool = True,
        dedupe_key: str | None = None,
        suppress_if_unchanged: bool | None = None,
        min_interval_seconds: int | None = None,
    ) -> dict[str, Any]:
        state_path = Path(quest_root) / ".ds" / "interaction_state.json"
        state = _state(state_path)
        iid = interaction_id or random_id("interaction")
        if kind == "decision_request":
            state["open_requests"].append(
                {
                    "interaction_id": iid,
                    "reply_mode": reply_mode,
                    "decision_type": str(
                        (reply_schema if isinstance(reply_schema, dict) else {}).get("decision_type") or ""
                    ).strip(),  # as main
                    "created_at": self.now(),
                }
            )
        state_path.parent.mkdir(parents=True, exist_ok=True)
        state_path.write_text(json.dumps(state, indent=2))
        return {"ok": True, "interaction_id": iid, "kind": kind, "message": message, "recent_inbound_messages": []}

    def _latest_completion_request(self, quest_root: Path) -> dict[str, Any] | None:
        found = [
            item
            for item in _state(Path(quest_root) / ".ds" / "interaction_state.json")["open_requests"]
            if item.get("decision_type") == QUEST_COMPLETION_DECISION_TYPE and item.get("reply_mode") == "blocking"
        ]
        return found[-1] if found else None

    def complete_quest(self, quest_root: Path, *, summary: str = "") -> dict[str, Any]:
        quest_root = Path(quest_root)
        meta = yaml.safe_load((quest_root / "quest.yaml").read_text()) or {}
        if meta.get("status") == "completed":
            return {"ok": True, "status": "already_completed", "message": "Quest is already marked as completed."}
        request = self._latest_completion_request(quest_root)
        if request is None:
            return {
                "ok": False,
                "status": "approval_required",
                "message": "Quest completion requires a blocking user approval request first. Ask via "
                "artifact.interact(kind='decision_request', reply_mode='blocking', "
                f"reply_schema={{'decision_type': '{QUEST_COMPLETION_DECISION_TYPE}'}}).",
            }
        reply = quest_root / ".ds" / "replies" / f"{request['interaction_id']}.txt"
        if not reply.exists():
            return {
                "ok": False,
                "status": "waiting_for_user",
                "interaction_id": request["interaction_id"],
                "message": "The completion approval request is still waiting for an explicit user reply.",
            }
        text = reply.read_text().strip()
        if "approve" not in text.lower():
            return {
                "ok": False,
                "status": "approval_not_explicit",
                "message": "Quest completion was not approved explicitly.",
            }
        approval = self.record(
            quest_root,
            {
                "kind": "approval",
                "reason": f"Quest completion approved: {text}",
                "decision_id": request["interaction_id"],
            },
            checkpoint=False,
        )
        decision = self.record(
            quest_root,
            {
                "kind": "decision",
                "status": "completed",
                "verdict": "good",
                "action": "stop",
                "reason": summary or "completed",
                "decision_scope": "quest_completion",
            },
            checkpoint=True,
        )
        snapshot = self.quest_service.mark_completed(quest_root.name, stop_reason="completed_by_user_approval")
        with (quest_root / ".ds" / "events.jsonl").open("a") as out:
            out.write(json.dumps({"type": "quest.completed", "created_at": self.now()}) + "\n")
        return {"ok": True, "status": "completed", "approval": approval, "decision": decision, "snapshot": snapshot}
