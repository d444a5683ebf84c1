"""The RFC's stage-entry tags (``recall_priors_rule``), assembled from the quest itself.

The rule asks the agent to build ``domain_tags`` from the brief's domains, the current stage and
"relevant tool/type tags"; an agent that reads only tool results should not have to guess them, so
they come from the quest's ``domains`` (``quest.yaml``, its ``brief`` or ``startup_contract``), its
stage (``active_anchor`` unless one is named), and the tags its own cards use most, each group
kept apart to show where every tag came from.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ds_gate.kernel.errors import NotAQuest, QuestError
from ds_gate.recall.tags import normalize_tags
from ds_gate.sources.location import locate
from ds_gate.sources.memory import card_tags, read_cards
from ds_gate.sources.quest_yaml import coerce_toggle, read_quest_yaml, scalar_text


def priors_off(how: str) -> str:
    """What stage-entry recall says when the quest turned ``recall_priors`` off; ``how`` names
    the caller's way of passing tags (``--tags``, ``domain_tags``)."""
    return (
        "recall_priors is off for this quest, so stage entry recalls nothing (turn it on in quest.yaml "
        f"startup_contract); use {how} to recall anyway"
    )


CARD_TAGS = 8  # the quest's most used card tags: enough to find neighbours, few enough to stay relevant


@dataclass
class StageTags:
    stage: str | None
    recall_priors: bool
    sources: dict[str, list[str]] = field(default_factory=dict)

    @property
    def tags(self) -> list[str]:
        """Every tag once, stage first, then domains, then the quest's card tags."""
        return list(normalize_tags([t for group in self.sources.values() for t in group]))

    def describe(self) -> str:
        parts = [f"{name}: {', '.join(tags)}" for name, tags in self.sources.items() if tags]
        where = f"stage {self.stage}" if self.stage else "stage entry"
        return f"domain tags for {where}: {', '.join(self.tags) or '(none)'}" + (
            f" ({'; '.join(parts)})" if parts else ""
        )


def _domains(meta: dict[str, Any], contract: dict[str, Any]) -> list[str]:
    domains: list[str] = []
    for holder in (meta, contract):
        brief = holder.get("brief")
        for found in (holder.get("domains"), brief.get("domains") if isinstance(brief, dict) else None):
            if isinstance(found, list):
                domains.extend(str(d) for d in found if isinstance(d, (str, int)) and not isinstance(d, bool))
            elif isinstance(found, str):
                domains.extend(found.split(","))
    return list(normalize_tags(domains))


def _card_tags(root: Path) -> list[str]:
    cards, _ = read_cards(root / "memory", scope="quest", base=root)
    counts: Counter[str] = Counter()
    for card in cards:
        counts.update(set(normalize_tags(card_tags(card.meta.get("tags")))))
    return [tag for tag, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:CARD_TAGS]]


def quest_folder(quest: Path | str) -> Path:
    """The quest whose memory recall reads: the root of the quest ``quest`` lies in, or, for a
    folder that is neither in a git repository nor below a ``quest.yaml`` (a quest not yet made
    a repository, a copy of its memory), the folder itself. Recall only reads ``<quest>/memory``,
    as PR #60's quest scope reads it from whatever quest root it is handed; the gate's commands,
    which judge a quest, still stop on such a folder."""
    try:
        return locate(quest).root
    except NotAQuest:
        start = Path(quest).expanduser().resolve()
        if not start.is_dir():
            raise QuestError(f"{quest}: not a folder, so it holds no quest memory") from None
        return start


def stage_entry_tags(quest: Path | str, stage: str | None = None) -> StageTags:
    """The tags for entering ``stage`` (default: the quest's ``active_anchor``)."""
    root = quest_folder(quest)
    meta, _ = read_quest_yaml(root)
    raw_contract = meta.get("startup_contract")
    contract: dict[str, Any] = raw_contract if isinstance(raw_contract, dict) else {}
    name = (stage or "").strip() or (scalar_text(meta.get("active_anchor")) or "").strip() or None
    out = StageTags(stage=name, recall_priors=coerce_toggle(contract.get("recall_priors")))
    out.sources["stage"] = list(normalize_tags([f"stage:{name}"])) if name else []
    out.sources["domains"] = _domains(meta, contract)
    out.sources["quest cards"] = _card_tags(root)
    return out
