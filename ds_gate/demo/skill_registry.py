"""The stand-in for DeepScientist main's skill registry (``deepscientist/skills/registry.py``, 1.6.0).

Written from a reading of main's source, not copied: ``SkillBundle`` with main's nine fields,
``discover_skill_bundles(repo_root)`` over ``<repo_root>/src/skills/*/SKILL.md`` (role and order
from the frontmatter, main's defaults otherwise) and the role lookups the prompt builder calls.
It imports nothing of ds-gate's: ``tests/standin`` installs it as ``deepscientist.skills.registry``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_DEFAULT_STAGE_SKILLS = (
    "scout",
    "baseline",
    "idea",
    "optimize",
    "experiment",
    "analysis-campaign",
    "write",
    "finalize",
    "decision",
)
_DEFAULT_COMPANION_SKILLS = ("paper-outline", "paper-plot", "figure-polish", "intake-audit", "review", "rebuttal")
_ORDER = {
    **{skill_id: i for i, skill_id in enumerate(_DEFAULT_STAGE_SKILLS, start=10)},
    **{skill_id: 100 + i for i, skill_id in enumerate(_DEFAULT_COMPANION_SKILLS, start=10)},
}


@dataclass(frozen=True)
class SkillBundle:
    skill_id: str
    name: str
    description: str
    root: Path
    skill_md: Path
    role: str
    metadata: dict[str, Any]
    openai_yaml: Path | None = None
    claude_md: Path | None = None


def _frontmatter(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n") or "\n---" not in text[4:]:
        return {}
    found = yaml.safe_load(text[4 : text.index("\n---", 4)])
    return found if isinstance(found, dict) else {}


def _role(skill_id: str, metadata: dict[str, Any]) -> str:
    raw = str(metadata.get("skill_role") or metadata.get("role") or "").strip().lower()
    if raw in {"stage", "companion", "custom"}:
        return raw
    return (
        "stage"
        if skill_id in _DEFAULT_STAGE_SKILLS
        else "companion"
        if skill_id in _DEFAULT_COMPANION_SKILLS
        else "custom"
    )


def _order(bundle: SkillBundle) -> tuple[int, str]:
    raw = bundle.metadata.get("skill_order")
    return (raw if isinstance(raw, int) else _ORDER.get(bundle.skill_id, 10_000)), bundle.skill_id


def discover_skill_bundles(repo_root: Path) -> list[SkillBundle]:
    root = Path(repo_root) / "src" / "skills"
    bundles = []
    for skill_md in sorted(root.glob("*/SKILL.md")) if root.exists() else []:
        skill_id = skill_md.parent.name
        if skill_id.startswith("."):
            continue
        meta = _frontmatter(skill_md)
        bundles.append(
            SkillBundle(
                skill_id=skill_id,
                name=meta.get("name", skill_id),
                description=meta.get("description", ""),
                root=skill_md.parent,
                skill_md=skill_md,
                role=_role(skill_id, meta),
                metadata=meta,
            )
        )
    return sorted(bundles, key=_order)


def skill_ids_for_role(repo_root: Path, role: str) -> tuple[str, ...]:
    wanted = str(role or "").strip().lower()
    return tuple(bundle.skill_id for bundle in discover_skill_bundles(repo_root) if bundle.role == wanted)


def stage_skill_ids(repo_root: Path) -> tuple[str, ...]:
    return skill_ids_for_role(repo_root, "stage")


def companion_skill_ids(repo_root: Path) -> tuple[str, ...]:
    return skill_ids_for_role(repo_root, "companion")
