"""The skill registry where the stand-in builder's relative import finds it (main: ``from ..skills import``)."""

from ..skills.registry import companion_skill_ids, stage_skill_ids

__all__ = ["companion_skill_ids", "stage_skill_ids"]
