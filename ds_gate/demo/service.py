"""The demo's DeepScientist: an ``ArtifactService`` with main's method shapes over the example quest.

``ds-gate demo`` shows the agent's side of the integration without a DeepScientist
installation: this class has exactly the parameters of main's ``record``, ``interact``,
``complete_quest`` and ``submit_paper_bundle`` (so the integration's own shape check passes
and its own wrappers wrap it), and does what main does with them on the example quest. The
verdicts are asked in process (``wrap.set_judge`` with ``call.answer``): the same requests
and answers that travel over the pipe in DeepScientist's process. The user's completion
approval is taken as given (main asks for it through ``interact`` first).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.demo.example_quest import CheckpointRejected
from ds_gate.integration import wrap
from ds_gate.integration.call import answer

if TYPE_CHECKING:
    from ds_gate.demo.example_quest import ExampleQuest


class DemoArtifactService:
    def __init__(self, quest: ExampleQuest) -> None:
        self.quest = quest
        self.home = quest.home

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
        workspace = Path(workspace_root or quest_root)
        result = self.quest.artifact_record(workspace, payload)
        if result.get("ok") and checkpoint:
            try:
                self.quest.checkpoint(workspace, commit_message or f"artifact: {payload.get('kind')} {result['artifact_id']}")
                result["checkpoint"] = {"committed": True}
            except CheckpointRejected as rejected:
                result["checkpoint"] = {"committed": False, "stderr": rejected.output}
        return result

    def complete_quest(
        self,
        quest_root: Path,
        *,
        summary: str = "",
    ) -> dict[str, Any]:
        """Main's steps after the approval: the stop decision with a checkpoint, then the quest
        marked completed in quest.yaml (main marks it whatever that commit did)."""
        decision = self.record(quest_root, {"kind": "decision", "verdict": "good", "action": "stop",
                                            "reason": summary or "completed", "decision_scope": "quest_completion"},
                               checkpoint=True, commit_message="decision: stop (quest completion)")
        self.quest.write_quest_yaml(status="completed")
        return {"ok": True, "status": "completed", "decision": decision}

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
        return self.record(quest_root, {"kind": "report", "report_type": "paper_bundle", "summary": summary},
                           checkpoint=False)

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
        return {"ok": True, "kind": kind, "message": message}


def wrapped_service(quest: ExampleQuest) -> DemoArtifactService:
    """The demo's service class wrapped by the integration's own code, asking ds-gate in process."""
    if "DemoArtifactService.record" not in wrap.status()["wrapped"]:  # once per process
        problems = wrap.wrap_service_class(DemoArtifactService)
        if problems:
            raise RuntimeError("; ".join(problems))
    wrap.set_judge(answer)
    return DemoArtifactService(quest)
