"""The memory side of the gate: card checks for a quest (``check``/``closure``) and for a
home (``ds-gate lineage``). Pure checks live in ``checks/``; this module decides which
cards to read, reads each once, and puts the findings together.

The home is read only when something needs it: a review naming a global card, or a
quest-scope lesson (is it promoted already?). A home that does not exist, as in a CI
clone of one quest, makes global entries unverifiable, which is one warning, not an
error per card.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ds_gate.home import Home, QuestRuns, quest_cards, valid_quest_id
from ds_gate.model import ERROR, WARNING, Card, Finding, Quest, QuestError, Report, Review


@dataclass(slots=True)
class MemoryResult:
    findings: list[Finding] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    home: Path | None = None


def _home_missing(home: Home, what: str) -> Finding:
    return Finding(
        rule="card.home-missing",
        severity=WARNING,
        path=None,
        message=f"no DeepScientist home at {home.path}: {what} not checked",
        hint="pass --home DIR, or set DEEPSCIENTIST_HOME, to check them",
    )


def quest_memory(quest: Quest, reviews: list[Review], home_dir: Path | str | None = None) -> MemoryResult:
    """Card findings for ``check``/``closure``: the quest's own cards, and the cards its
    valid reviews say they wrote."""
    out = MemoryResult()
    own, found = quest_cards(quest)
    out.findings.extend(found)
    out.cards.extend(own)
    valid = [quest.decisions[r.artifact_id] for r in reviews if r.valid and r.artifact_id in quest.decisions]
    entries = [e for d in valid for e in d.cards_written]
    needs_global = any(e.get("scope") == "global" or e.get("action") == "new" for e in entries)
    lessons = [c for c in own if c.is_experience and not c.broken]
    if not (own or entries):
        return out  # no card to look at: the card rules are not even imported
    from ds_gate.checks.cards import CardIndex, card_findings, quest_scope_findings, review_findings
    from ds_gate.checks.lineage import chain_findings

    home = Home(home_dir, base=quest.root)
    home.register(quest)
    global_index: CardIndex | None = None
    if needs_global or lessons:
        if home.exists:
            global_index = CardIndex(home.cards)
            out.findings.extend(home.findings)
            out.home = home.path
        elif any(e.get("scope") == "global" for e in entries):
            out.findings.append(_home_missing(home, "the global cards its reviews name were"))

    unverified: list[str] = []

    def runs_of(quest_id: str) -> QuestRuns | str | None:
        runs = home.quest_runs(quest_id)
        if isinstance(runs, str) and not home.exists and valid_quest_id(quest_id.strip()):
            unverified.append(quest_id)
            return None  # a clone of one quest: other quests are simply not here
        return runs

    for card in own:
        out.findings.extend(card_findings(card))
        out.findings.extend(chain_findings(card, runs_of))
    if lessons:
        out.findings.extend(quest_scope_findings(lessons, set(global_index.by_id) if global_index else set()))

    discipline = review_findings(valid, CardIndex(own), global_index, str(home.path / "memory"))
    out.findings.extend(discipline.findings)
    seen = {card.path for card in own}
    for card in discipline.written:
        if card.path in seen:
            continue
        seen.add(card.path)
        out.cards.append(card)
        out.findings.extend(card_findings(card))
        out.findings.extend(chain_findings(card, runs_of))
    if unverified:
        out.findings.append(_home_missing(home, f"lineage links to quest {', '.join(sorted(set(unverified)))} were"))
    return out


def evaluate_lineage(
    home_dir: Path | str | None = None,
    paths: list[Path | str] | tuple[Path | str, ...] = (),
    *,
    since: str | None = None,
    patching_quest: str | None = None,
) -> Report:
    """``ds-gate lineage``: every experience card of the home and of the given quests, and
    with ``since``, every card of the home's memory changed since that git revision."""
    from ds_gate.checks.cards import card_findings
    from ds_gate.checks.lineage import chain_findings
    from ds_gate.checks.patch import validate_cross_quest_patch
    from ds_gate.loader import load_quest

    home = Home(home_dir)
    home.base = home.path
    if not home.exists and not paths:
        raise QuestError(f"no DeepScientist home at {home.path} (pass --home DIR or set DEEPSCIENTIST_HOME)")
    quests = [load_quest(p, runs_only=True) for p in paths]
    for quest in quests:
        home.register(quest)

    findings: list[Finding] = []
    checked: list[Card] = []
    if home.exists:
        checked.extend(c for c in home.cards if c.is_experience or c.broken)
        findings.extend(home.findings)
    for quest in quests:
        own, found = quest_cards(quest, base=home.path)
        findings.extend(found)
        checked.extend(c for c in own if c.is_experience or c.broken)
    for card in checked:
        findings.extend(card_findings(card))
        findings.extend(chain_findings(card, home.quest_runs))

    notes: list[str] = []
    if since is not None:
        changed = changed_cards(home, since)
        notes.append(f"{len(changed)} card(s) of {home.path / 'memory'} changed since {since}")
        for before, after in changed:
            if after.broken:
                continue  # its frontmatter finding is reported with the home's cards
            who = patching_quest or inferred_patcher(before, after)
            findings.extend(validate_cross_quest_patch(before, after, who, validate_after=not after.is_experience))
            if after not in checked:
                checked.append(after)
    findings.sort(key=Finding.sort_key)
    return Report(
        command="lineage",
        ok=not any(f.severity == ERROR for f in findings),
        findings=findings,
        notes=notes,
        home=home.path,
        cards=checked,
    )


def inferred_patcher(before: Card | None, after: Card) -> str | None:
    """Which quest made a change, from the change itself: the one quest whose lineage entries
    were appended, else a changed ``quest_id``; None (held to the strict rules) otherwise."""
    if before is None:
        return None
    old = before.lineage
    added = {str(e.get("quest")).strip() for e in after.lineage[len(old):] if isinstance(e, dict) and e.get("quest")}
    if len(added) == 1:
        return added.pop()
    if after.quest_id and after.quest_id != before.quest_id:
        return after.quest_id
    return None


def changed_cards(home: Home, since: str) -> list[tuple[Card | None, Card]]:
    """(before at ``since``, now) for each card file of ``<home>/memory`` that changed."""
    from ds_gate.sources.gitio import GitError, cat_file, git, split_z
    from ds_gate.sources.memory import kind_of, parse_card

    root = home.path / "memory"
    if since.startswith("-"):
        raise QuestError(f"--since {since!r} is not a git revision")
    try:
        git(["rev-parse", "--verify", "--quiet", f"{since}^{{commit}}"], root)
        names = split_z(git(["diff", "--name-only", "-z", "--relative", "--no-renames", "--diff-filter=ACMRT", since, "--"],
                            root))
        names += split_z(git(["ls-files", "-z", "--others", "--exclude-standard"], root))  # new, not yet added
    except GitError as exc:
        raise QuestError(f"cannot compare {root} with {since}: {exc} (is the global memory a git repository?)") from exc
    names = [n for n in names if kind_of(n) is not None]
    blobs = cat_file(root, [f"{since}:./{n}" for n in names])
    out: list[tuple[Card | None, Card]] = []
    for name in names:
        path = root / name
        kind = kind_of(name) or ""
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        after = parse_card(raw, path=path, display=home.display(path), scope="global", kind=kind)
        if after is None:
            continue
        old = blobs.get(f"{since}:./{name}")
        before = parse_card(old, path=path, display=home.display(path), scope="global", kind=kind) if old else None
        out.append((before if before is not None and not before.broken else None, after))
    return out
