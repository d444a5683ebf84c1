"""What no waiver lowers, how a quest's owner accepts the quest's own waivers, and whose waiver lowered a verdict.

Apart from ``waivers`` so the policy reads in one place (docs/threat-model.md cites it).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ds_gate.config.settings import shown_config_path
from ds_gate.model.findings import ERROR, Finding
from ds_gate.sources import problems

# Rules that exist to fail closed: the gate could not see or read something that may hold a
# completed run. No waiver lowers them, trusted or not; the fix is to make it readable.
UNWAIVABLE = frozenset(
    rule.id
    for rule in (
        problems.ARTIFACT_INVALID_JSON,
        problems.ARTIFACT_NOT_OBJECT,
        problems.ARTIFACT_TOO_DEEP,
        problems.ARTIFACT_UNREADABLE,
        problems.CARD_UNREADABLE,
        problems.CARD_FRONTMATTER_INVALID,
        problems.INPUT_UNREADABLE,
        problems.INPUT_TOO_LARGE,
        problems.QUEST_NO_QUEST_YAML,
        problems.QUEST_YAML_INVALID,
        problems.WORKSPACE_OUTSIDE_QUEST,
        problems.PATH_SYMLINK_OUTSIDE_QUEST,
    )
)
UNWAIVABLE_AREAS = ("git.", "reading.", "input.")  # every git reading rule (symlink-in-tree, object-missing, ...)
UNWAIVABLE_WORDS = ("symlink", "gitlink", "outside", "redirect", "unreadable", "too-large", "unseen")


def unwaivable(rule: str) -> bool:
    """Whether ``rule`` fails closed (its id is in ``UNWAIVABLE``, in a reading area, or names a link,
    a redirect or what cannot be read or seen: rules other modules add later are covered by name)."""
    return rule in UNWAIVABLE or rule.startswith(UNWAIVABLE_AREAS) or any(w in rule for w in UNWAIVABLE_WORDS)


ACCEPT_FLAG = "--accept-quest-waivers"


def accept_command(root: Path) -> str:
    """The one command that accepts a quest's waivers for one run."""
    return f"`ds-gate closure {ACCEPT_FLAG} {shlex.quote(str(root))}`"


def accept_hint(root: Path, config: Path | None) -> str:
    """How the quest's owner accepts its waivers: the one command, and the lasting setting."""
    where = config or shown_config_path()
    return (
        f"if you own this quest and accept its waivers: {accept_command(root)} "
        f"(this run), or add {shlex.quote(str(root))} to accept_quest_waivers in {where} (every run, the hooks "
        "too); an agent cannot accept them"
    )


ACCEPTED_MARK = "; written in the quest, accepted by "  # in a quest waiver's description, before what accepted it


def waived_by(finding: Finding) -> str | None:
    """Whose waiver lowered ``finding`` (a waived error), as the verdict line says it."""
    if finding.severity != ERROR or finding.waived is None:
        return None
    if ACCEPTED_MARK in finding.waived:
        return "quest waivers accepted by " + finding.waived.rsplit(ACCEPTED_MARK, 1)[1].removesuffix(")")
    return "trusted waivers"
