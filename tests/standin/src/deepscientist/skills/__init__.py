"""Stand-in for main's ``deepscientist.skills``: its re-exports (the registry is ds_gate/demo/skill_registry.py)."""

from .registry import SkillBundle, companion_skill_ids, discover_skill_bundles, stage_skill_ids

__all__ = ["SkillBundle", "companion_skill_ids", "discover_skill_bundles", "stage_skill_ids"]
