"""Lineage chains: an experience card must lead back, run by run, to where it was learned.

The RFC asks that a card patched into other quests keeps "a lineage chain back to its
origin". Concretely, for ``lineage: [{quest, run, direction?, note?}, ...]``:

- the first entry's quest is the quest the card came from (its ``quest_id``, or the
  quest of ``promoted_from`` for a promoted copy);
- every entry resolves: the quest is ``<home>/quests/<quest>/`` and the run is a run
  record of it, in any workspace, named by artifact id or experiment ``run_id``;
- no entry repeats an earlier (quest, run) pair (two names of one run count as one).

Entries that are not mappings or lack text fields are the schema's to report.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from ds_gate.kernel.errors import shown
from ds_gate.kernel.jsondoc import pointer
from ds_gate.model.findings import DISCIPLINE, ERROR, WARNING, Finding, Rule
from ds_gate.model.records import Card, Quest, same_quest
from ds_gate.rules.coverage import RunIndex

LINEAGE_NOT_ORIGIN = Rule(
    "lineage.not-origin", ERROR, DISCIPLINE, "the first lineage entry is not the quest the card came from"
)
LINEAGE_ORIGIN_UNKNOWN = Rule(
    "lineage.origin-unknown", WARNING, DISCIPLINE, "no `quest_id` and no `promoted_from`: the origin cannot be checked"
)
LINEAGE_UNKNOWN_QUEST = Rule(
    "lineage.unknown-quest",
    ERROR,
    DISCIPLINE,
    "a lineage entry names a quest the home does not hold (or not a quest id)",
)
LINEAGE_UNKNOWN_RUN = Rule(
    "lineage.unknown-run",
    ERROR,
    DISCIPLINE,
    "a lineage entry names a run that is not a run of its quest (with a did-you-mean)",
)
LINEAGE_REPEATED_ENTRY = Rule(
    "lineage.repeated-entry", ERROR, DISCIPLINE, "a lineage entry repeats an earlier (quest, run) pair"
)


class QuestRuns(RunIndex):
    """The runs of one quest, by artifact id and by experiment run_id, as lineage names them."""

    def __init__(self, quest: Quest) -> None:
        super().__init__(quest)
        self.quest_id = quest.quest_id

    def resolve(self, name: str) -> str | None:
        """The artifact id a lineage ``run`` names (its artifact id or its experiment run_id)."""
        if name in self.runs:
            return name
        same = self.by_run_id.get(name)
        return sorted(same)[0] if same else None

    def close_match(self, name: str) -> str | None:
        found = difflib.get_close_matches(name, [*self.runs, *self.by_run_id], n=1, cutoff=0.8)
        return found[0] if found else None


RunsOf = Callable[[str], "QuestRuns | str | None"]  # None: cannot be checked here (no home)


def runs_by_quest(quest_of: Callable[[str], Quest | str]) -> Callable[[str], QuestRuns | str]:
    """The runs of the quest a lineage entry names (``quest_of`` reads it, or says why not),
    indexed once per quest however many entries name it."""
    built: dict[int, QuestRuns] = {}

    def runs_of(quest_id: str) -> QuestRuns | str:
        quest = quest_of(quest_id)
        if isinstance(quest, str):
            return quest
        if id(quest) not in built:
            built[id(quest)] = QuestRuns(quest)
        return built[id(quest)]

    return runs_of


def _entry_text(entry: object, key: str) -> str | None:
    value = entry.get(key) if isinstance(entry, dict) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def chain_findings(card: Card, runs_of: RunsOf) -> list[Finding]:
    if not card.is_experience or not card.lineage:
        return []
    found: list[Finding] = []

    def add(rule: Rule, where: tuple[str | int, ...], message: str, hint: str) -> None:
        found.append(
            rule.at(
                card.display, message, hint=hint, pointer=pointer(where), line=card.line(where), subject=card.card_id
            )
        )

    first_quest = _entry_text(card.lineage[0], "quest")
    origins = card.origin_quests()
    if first_quest is not None:
        if not origins:
            add(
                LINEAGE_ORIGIN_UNKNOWN,
                ("lineage", 0, "quest"),
                "the card has no quest_id and no promoted_from, so its origin quest cannot be checked",
                "record quest_id: '<the quest that learned this>' in the card's frontmatter",
            )
        elif not any(same_quest(first_quest, o) for o in origins):
            add(
                LINEAGE_NOT_ORIGIN,
                ("lineage", 0, "quest"),
                f"lineage[0] is quest {shown(first_quest)}, but the card came from quest {' / '.join(origins)}",
                f"put the origin first: lineage[0] must name quest {shown(origins[0])} and the run the lesson was learned "
                "from; later quests append their entries after it",
            )

    seen: dict[tuple[str, str], int] = {}
    for i, entry in enumerate(card.lineage):
        quest, run = _entry_text(entry, "quest"), _entry_text(entry, "run")
        if quest is None or run is None:
            continue
        runs = runs_of(quest)
        identity = run
        if runs is None:
            pass  # unverifiable, said once by the caller; repeats are still caught by name
        elif isinstance(runs, str):
            add(
                LINEAGE_UNKNOWN_QUEST,
                ("lineage", i, "quest"),
                f"lineage[{i}] names quest {shown(quest)}: {runs}",
                "name a quest of this DeepScientist home (pass --home if the home is elsewhere)",
            )
        else:
            resolved = runs.resolve(run)
            if resolved is None:
                close = runs.close_match(run)
                add(
                    LINEAGE_UNKNOWN_RUN,
                    ("lineage", i, "run"),
                    f"lineage[{i}] names run {shown(run)}, which is not a run of quest {quest}",
                    f"did you mean {close}?"
                    if close
                    else f"name a run recorded in quest {quest} (its artifact id run-xxxxxxxx or its run_id)",
                )
            else:
                identity = resolved
            quest = runs.quest_id
        key = (quest.lstrip("0") if quest.isascii() and quest.isdigit() else quest, identity)
        if key in seen:
            add(
                LINEAGE_REPEATED_ENTRY,
                ("lineage", i),
                f"lineage[{i}] repeats lineage[{seen[key]}] (quest {quest}, run {identity})",
                f"remove lineage[{i}]: each (quest, run) pair appears once in a card's lineage",
            )
        else:
            seen[key] = i
    return found
