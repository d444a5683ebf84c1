"""The stand-in for DeepScientist main's ``PromptBuilder`` (``deepscientist/prompts/builder.py``, 1.6.0).

Written from a reading of main's source, not copied: the methods ds-gate's ``--prompts`` checks or
wraps, with main's exact parameters (``build``, ``_priority_memory_block``,
``_companion_skill_paths_block``, ``_skill_paths_block``, ``_cross_quest_recall_policy_block``, and
the module's ``current_standard_skills`` / ``current_companion_skills``), and a ``build`` that joins
the sections those feed as main does ("## Runtime Context" with the skill paths, the cross-quest
policy, "## Priority Memory For This Turn" with main's four fixed lines and ``- selected_memory:``).
The skill names are bound at import (main's ``from ..skills import ...``). It imports nothing of
ds-gate's: ``tests/standin`` installs it as ``deepscientist.prompts.builder``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from .skill_registry import companion_skill_ids, stage_skill_ids


def repo_root() -> Path:
    """main's ``home.repo_root()``: its checkout; the stand-in's comes from the environment."""
    return Path(os.environ.get("DEEPSCIENTIST_REPO_ROOT") or ".").resolve()


def current_standard_skills(repo_root_path: Path | None = None) -> tuple[str, ...]:
    return stage_skill_ids(repo_root_path or repo_root())


def current_companion_skills(repo_root_path: Path | None = None) -> tuple[str, ...]:
    return companion_skill_ids(repo_root_path or repo_root())


def _yaml(path: Path) -> dict[str, Any]:
    found = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None
    return found if isinstance(found, dict) else {}


class PromptBuilder:
    def __init__(self, repo_root: Path, home: Path, *, prompt_version_selection: str | None = None) -> None:
        self.repo_root = Path(repo_root)
        self.home = Path(home)
        self.prompt_version_selection = str(prompt_version_selection or "").strip() or None

    def build(
        self,
        *,
        quest_id: str,
        skill_id: str,
        user_message: str,
        model: str,
        turn_reason: str = "user_message",
        turn_intent: str | None = None,
        turn_mode: str | None = None,
        retry_context: dict[str, Any] | None = None,
        runner_name: str = "codex",
    ) -> str:
        quest_root = self.home / "quests" / quest_id
        snapshot = _yaml(quest_root / "quest.yaml")
        runtime_config = _yaml(self.home / "config" / "config.yaml")
        active_anchor = str(snapshot.get("active_anchor") or skill_id)
        sections = [
            "## Runtime Context",
            f"ds_home: {self.home.resolve()}",
            f"quest_id: {quest_id}",
            f"quest_root: {quest_root}",
            f"active_anchor: {active_anchor}",
            f"requested_skill: {skill_id}",
            f"runner_name: {runner_name}",
            f"model: {model}",
            "",
            "Canonical stage skills root:",
            str((self.repo_root / "src" / "skills").resolve()),
            "",
            "Standard stage skill paths:",
            self._skill_paths_block(),
            "",
            "Companion skill paths:",
            self._companion_skill_paths_block(),
        ]
        cross_quest = self._cross_quest_recall_policy_block(runtime_config)
        if cross_quest:
            sections.extend(["", "## Cross-Quest Recall Policy", cross_quest])
        sections.extend(
            [
                "",
                "## Priority Memory For This Turn",
                self._priority_memory_block(
                    quest_root, skill_id=skill_id, active_anchor=active_anchor, user_message=user_message
                ),
                "",
                "## Current User Message",
                user_message,
            ]
        )
        return "\n\n".join(sections).strip() + "\n"

    def _skill_paths_block(self) -> str:
        return "\n".join(
            f"- {skill_id}: primary={(self.repo_root / 'src' / 'skills' / skill_id / 'SKILL.md').resolve()}"
            for skill_id in current_standard_skills(self.repo_root)
        )

    def _companion_skill_paths_block(self) -> str:
        return "\n".join(
            f"- {skill_id}: primary={(self.repo_root / 'src' / 'skills' / skill_id / 'SKILL.md').resolve()}"
            for skill_id in current_companion_skills(self.repo_root)
        )

    def _cross_quest_recall_policy_block(self, runtime_config: dict[str, Any]) -> str:
        found = runtime_config.get("memory")
        memory: dict[str, Any] = found if isinstance(found, dict) else {}
        mode = str(memory.get("read_visibility_mode") or "independent").strip().lower()
        if mode != "shared_across_quests":
            return ""
        return "\n".join(
            [
                f"- memory_read_visibility_mode: {mode}",
                "- cross_quest_recall_enabled: true",
                f"- framework_quirks_path: {(self.home / 'framework_quirks.md').resolve()}",
                f"- system_quirks_path: {(self.home / 'system_quirks.md').resolve()}",
            ]
        )

    def _priority_memory_block(self, quest_root: Path, *, skill_id: str, active_anchor: str, user_message: str) -> str:
        stage = active_anchor or skill_id
        return "\n".join(
            [
                f"- stage_memory_rule: for `{stage}`, prefer quest memory kinds and global memory kinds when memory "
                "lookup is needed.",
                "- memory_lookup_tool: call memory.list_recent(...) after pause/restart and memory.search(...) before "
                "repeating old work or reopening an old baseline route.",
                "- checkpoint_memory_lookup_rule: on resume/restart/auto_continue turns, look for the latest "
                "checkpoint-style quest memory.",
                "- memory_injection_rule: keep the injected memory compact.",
                "- selected_memory:",
                "- none",
            ]
        )
