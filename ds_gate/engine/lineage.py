"""``ds-gate lineage``: the experience cards of a home (and of given quests), their
lineage chains, and with ``--since`` every card of the home's memory changed since a git
revision, judged by the cross-quest patch rules.
"""

from __future__ import annotations

import functools
from pathlib import Path

from ds_gate.engine.loader import load_quest
from ds_gate.kernel import fs
from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.counting import counted
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.git import GitError, blob_id, git, split_z
from ds_gate.model.findings import ERROR, Finding
from ds_gate.model.records import Card
from ds_gate.model.reports import LineageReport
from ds_gate.plugins.manager import card_checker, patch_checker
from ds_gate.rules.lineage import chain_findings, runs_by_quest
from ds_gate.sources.card_files import card_files
from ds_gate.sources.home import Home, quest_cards
from ds_gate.sources.memory import parse_card


def evaluate_lineage(
    home_dir: Path | str | None = None,
    paths: list[Path | str] | tuple[Path | str, ...] = (),
    *,
    since: str | None = None,
    patching_quest: str | None = None,
) -> LineageReport:
    """``ds-gate lineage``: every experience card of the home and of the given quests, and
    with ``since``, every card of the home's memory changed since that git revision."""
    quests = [load_quest(p, runs_only=True) for p in paths]
    home = Home(home_dir, load=functools.partial(load_quest, runs_only=True), quest=quests[0].root if quests else None)
    home.base = home.path
    if not home.exists:  # with quests too: a chain reaches into other quests of the home, unseen without it
        raise QuestError(
            f"no DeepScientist home at {home.path} (no memory/ or quests/ folder): lineage follows each "
            "card to the runs of its origin quest in the home",
            "pass --home DIR, or set DEEPSCIENTIST_HOME (or DS_HOME), to the folder that holds memory/ and quests/",
            "; ",
        )
    for quest in quests:
        home.register(quest)

    runs_of = runs_by_quest(home.quest)
    checked: list[Card] = [c for c in home.cards if c.is_experience or c.broken]
    findings: list[Finding] = list(home.findings)  # read with the cards
    for quest in quests:
        own, found = quest_cards(quest, base=home.path)
        findings.extend(found)
        checked.extend(c for c in own if c.is_experience or c.broken)
    check_card, check_patch = card_checker(), patch_checker()
    for card in checked:
        findings.extend(check_card(card))
        findings.extend(chain_findings(card, runs_of))

    notes: list[str] = []
    if since is not None:
        changed = changed_cards(home, since)
        notes.append(f"{counted(len(changed), 'card')} of {home.path / 'memory'} changed since {since}")
        for before, after in changed:
            if after.broken:
                continue  # its frontmatter finding is reported with the home's cards
            who = patching_quest or inferred_patcher(before, after)
            if not after.is_experience:  # a lesson was checked with the home's cards above
                findings.extend(check_card(after))
            findings.extend(check_patch(before, after, who))
            if after not in checked:
                checked.append(after)
    findings.sort(key=Finding.sort_key)
    return LineageReport(
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
    added = {str(e.get("quest")).strip() for e in after.lineage[len(old) :] if isinstance(e, dict) and e.get("quest")}
    if len(added) == 1:
        return added.pop()
    if after.quest_id and after.quest_id != before.quest_id:
        return after.quest_id
    return None


def changed_cards(home: Home, since: str) -> list[tuple[Card | None, Card]]:
    """(before at ``since``, now) for each card file of ``<home>/memory`` that changed.

    Plumbing only: the revision's tree is listed with ``ls-tree`` and each card file is
    hashed here as git would hash it, so no git process reads the work tree (which would run
    the memory repository's clean filters and refresh its index)."""
    root = home.path / "memory"
    if since.startswith("-"):
        raise QuestError(f"--since {shown(since)} is not a git revision")
    try:
        commit = (
            git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{since}^{{commit}}"], root).strip().decode()
        )
        object_format = git(["rev-parse", "--show-object-format"], root).strip().decode()
        listing = split_z(git(["ls-tree", "-r", "-z", "--full-name", f"{commit}:./"], root))
    except GitError as exc:
        raise QuestError(f"cannot compare {root} with {since}: {exc} (is the global memory a git repository?)") from exc
    then: dict[str, str] = {}
    for entry in listing:
        meta, _, name = entry.partition("\t")
        mode_type_id = meta.split(" ")
        if len(mode_type_id) == 3 and mode_type_id[1] == "blob":
            then[name] = mode_type_id[2]
    found: list[Finding] = []  # unreadable or linked-out files are reported with the home's cards
    changed: list[tuple[Path, str, bytes, str | None]] = []
    for path, kind in card_files(root, home.base, found):
        try:
            raw = fs.read_file(path)
        except OSError:  # reported with the home's cards (an unreadable or too large card)
            continue
        old_id = then.get(path.relative_to(root).as_posix())
        if old_id != blob_id(raw, object_format):
            changed.append((path, kind, raw, old_id))
    blobs = cat_file(root, [old_id for *_, old_id in changed if old_id])
    out: list[tuple[Card | None, Card]] = []
    for path, kind, raw, old_id in changed:
        display = home.display(path)
        after = parse_card(raw, path=path, display=display, scope="global", kind=kind)
        if after is None:
            continue
        old = blobs.get(old_id) if old_id else None
        if not isinstance(old, bytes):  # missing, or a blob over the size limit (never read): no "before"
            old = None
        before = parse_card(old, path=path, display=display, scope="global", kind=kind) if old else None
        out.append((before if before is not None and not before.broken else None, after))
    return out
