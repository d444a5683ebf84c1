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

from collections.abc import Callable

from ds_gate.jsonpos import pointer
from ds_gate.model import ERROR, WARNING, Card, Finding, same_quest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ds_gate.home import QuestRuns

RunsOf = Callable[[str], "QuestRuns | str | None"]  # None: cannot be checked here (no home)


def _entry_text(entry: object, key: str) -> str | None:
    value = entry.get(key) if isinstance(entry, dict) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def chain_findings(card: Card, runs_of: RunsOf) -> list[Finding]:
    if not card.is_experience or not card.lineage:
        return []
    found: list[Finding] = []

    def add(rule: str, severity: str, where: tuple[str | int, ...], message: str, hint: str) -> None:
        found.append(Finding(rule=rule, severity=severity, path=card.display, pointer=pointer(where),
                             line=card.line(where), message=message, hint=hint, subject=card.card_id))

    first_quest = _entry_text(card.lineage[0], "quest")
    origins = card.origin_quests()
    if first_quest is not None:
        if not origins:
            add("lineage.origin-unknown", WARNING, ("lineage", 0, "quest"),
                "the card has no quest_id and no promoted_from, so its origin quest cannot be checked",
                "record quest_id: '<the quest that learned this>' in the card's frontmatter")
        elif not any(same_quest(first_quest, o) for o in origins):
            add("lineage.not-origin", ERROR, ("lineage", 0, "quest"),
                f"lineage[0] is quest {first_quest!r}, but the card came from quest {' / '.join(origins)}",
                f"put the origin first: lineage[0] must name quest {origins[0]!r} and the run the lesson was learned "
                "from; later quests append their entries after it")

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
            add("lineage.unknown-quest", ERROR, ("lineage", i, "quest"), f"lineage[{i}] names quest {quest!r}: {runs}",
                "name a quest of this DeepScientist home (pass --home if the home is elsewhere)")
        else:
            resolved = runs.resolve(run)
            if resolved is None:
                close = runs.close_match(run)
                add("lineage.unknown-run", ERROR, ("lineage", i, "run"),
                    f"lineage[{i}] names run {run!r}, which is not a run of quest {quest}",
                    f"did you mean {close}?" if close else
                    f"name a run recorded in quest {quest} (its artifact id run-xxxxxxxx or its run_id)")
            else:
                identity = resolved
            quest = runs.quest_id
        key = (quest.lstrip("0") if quest.isdigit() else quest, identity)
        if key in seen:
            add("lineage.repeated-entry", ERROR, ("lineage", i),
                f"lineage[{i}] repeats lineage[{seen[key]}] (quest {quest}, run {identity})",
                f"remove lineage[{i}]: each (quest, run) pair appears once in a card's lineage")
        else:
            seen[key] = i
    return found
