"""The cross-quest patch rules over a quest's committed history, for ``check``, ``closure``,
finalization commits and the pre-push gate.

An ordinary checkpoint only warns of a bad patch (DeepScientist main's ``write_card`` does not
validate patches, issue 35), and the commit hook compares a staged card with its ``HEAD``
version only: once committed, the version before the patch is gone from that comparison. So
the gate reads every committed version of every quest-scope card, on every ref
(``sources.history``: the one ``git log`` the toggle scan also reads, with its bound), and
judges each change with the same patch rules (``plugins.manager.patch_checker``) against the
card's last *lawful* version (``_Walk``: by its id, else its path): a change that breaks the
rules leaves that baseline in place, so a later edit that carries the broken claim along is
still judged against the claim before the patch, and a later commit that restores it (claim
and lineage back, confidence not above) is lawful and ends the finding. A broken version is
reported only while some ref's tip still holds it, at the card's path, naming the commit that
broke the rules, the refs that hold it and the fix. The patching quest is the one this quest
is (``committing_quest``: its folder under ``<home>/quests`` and ``quest.yaml`` at ``HEAD``),
as the commit hook names it.

An ordinary checkpoint never runs this (the gate runs only for those scopes). Git refusing the
repository is judged where the records are read (``engine.unseen``), as the toggle scan does;
a version over the file limit is not judged (the card's own check reports the file).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.git import GitError
from ds_gate.kernel.gitpaths import tree_entries
from ds_gate.kernel.layout import QUEST_YAML, is_card, kind_of
from ds_gate.model.findings import Finding
from ds_gate.model.records import Card, Quest
from ds_gate.plugins.manager import patch_checker
from ds_gate.sources.clone import REFETCH
from ds_gate.sources.gitrefs import list_refs
from ds_gate.sources.history import Change, HistoryTooLong, changes
from ds_gate.sources.history import versions as read
from ds_gate.sources.memory import parse_card
from ds_gate.sources.problems import GIT_HISTORY_TOO_LONG, GIT_OBJECT_MISSING
from ds_gate.sources.quest_yaml import committing_quest

Version = tuple[str, str]  # (path, blob id)
Checker = Callable[[Card | None, Card, str | None], list[Finding]]


def _identity(path: str, card: Card | None) -> str:
    """Which card a version is: its frontmatter ``id``, else its path."""
    card_id = card.card_id if card is not None else None
    return f"id:{card_id}" if card_id else f"path:{path}"


@dataclasses.dataclass(slots=True)
class _Walk:
    """The history walked in order: each version's lawful baseline, each card's last lawful
    version (by identity) and each path's (the baseline of the last version it held: deleted
    or not), and the broken ones.

    An added version is judged against its id's last lawful version (across deletions, renames
    and refs), else against the last one held at its path: a card deleted and added back under a
    fresh id, no id or no frontmatter is not a new card that the next commit may give the old id
    back. A modification that changes the id is judged as an add of the new id, and one whose
    old version is unreadable (no frontmatter, over the limit) against the baseline it carried."""

    check: Checker
    patcher: str | None
    cards: dict[str, Card | None]
    base: dict[Version, str] = dataclasses.field(default_factory=dict)
    lawful: dict[str, str] = dataclasses.field(default_factory=dict)
    at_path: dict[str, str] = dataclasses.field(default_factory=dict)
    broken: dict[Version, tuple[str, list[Finding]]] = dataclasses.field(default_factory=dict)

    def _baseline(self, path: str, old_blob: str | None, after: Card | None) -> str:
        if old_blob is not None:
            was = self.cards.get(old_blob)
            if was is None or after is None or was.card_id == after.card_id:
                return self.base.get((path, old_blob), old_blob)
        return self.lawful.get(_identity(path, after)) or self.at_path.get(path, "")

    def step(self, commit: str, path: str, old_blob: str | None, new_blob: str) -> None:
        old, new = (path, old_blob or ""), (path, new_blob)
        after = self.cards.get(new_blob)
        baseline = self._baseline(path, old_blob, after)
        before = self.cards.get(baseline)
        if after is None:  # unreadable (over the limit, no frontmatter): the baseline carries through it
            self.base[new] = self.at_path[path] = baseline
            return
        found = [] if before is None or baseline == new_blob else self.check(before, after, self.patcher)
        if found:  # judged against the baseline: a version reached both ways stays broken
            self.base[new] = self.at_path[path] = baseline
            origin = self.broken[old][0] if old in self.broken else commit
            self.broken.setdefault(new, (origin, [dataclasses.replace(f, path=path) for f in found]))
        elif new not in self.broken:
            self.base[new] = self.at_path[path] = new_blob
            self.lawful[_identity(path, after)] = new_blob


def _cards(root: Path, versions: dict[str, Change]) -> tuple[dict[str, Card | None], list[Finding]]:
    """Each blob (``versions``: blob -> a change that holds it) parsed as a card, without its
    body; a ``git.object-missing`` finding for each that git cannot read."""
    out: dict[str, Card | None] = {}
    unread: list[Finding] = []
    for (path, blob), raw in read(root, [(c.path, blob) for blob, c in versions.items()]):
        card = (
            parse_card(raw, path=root / path, display=path, scope="quest", kind=kind_of(path[len("memory/") :]) or "")
            if isinstance(raw, bytes)
            else None
        )
        out[blob] = None if card is None or card.broken else dataclasses.replace(card, body="")
        if raw is None:
            commit = versions[blob].commit[:12]
            unread.append(
                GIT_OBJECT_MISSING.at(
                    f"{commit}:{path}",
                    f"the version of {path} in commit {commit} (blob {blob[:12]}) cannot be read: git "
                    "lacks it (a deleted object, a partial clone), so the patch rules cannot judge the card's history",
                    hint=f"restore it (`git fsck` names the missing objects; {REFETCH})",
                    subject=path,
                )
            )
    return out, unread


def _holders(root: Path, broken: set[Version]) -> dict[Version, list[str]]:
    """The refs (and ``HEAD``) whose tip holds each broken version: one ``ls-tree`` a distinct
    tip, run only when a version is broken."""
    tips: dict[str, list[str]] = {}
    for name, oid in [("HEAD", "HEAD"), *list_refs(root, ("refs",))]:
        tips.setdefault(oid, []).append(name)
    held: dict[Version, list[str]] = {}
    for oid, names in tips.items():
        try:
            entries = list(tree_entries(root, oid, ["memory"]))
        except GitError:
            continue  # an unborn HEAD; a missing tip is judged where the records are read
        for _, _, blob, path in entries:
            if (path, blob) in broken:
                held.setdefault((path, blob), []).extend(names)
    return held


def _reported(found: list[Finding], origin: str, refs: list[str]) -> list[Finding]:
    shown = ", ".join(refs[:3]) + (f" and {len(refs) - 3} more" if len(refs) > 3 else "")
    return [
        dataclasses.replace(
            f,
            message=f"{f.message} (committed in {origin[:12]}, still held by {shown})",
            hint=f"{f.hint}; commit the card restored as it was before {origin[:12]} (the gate judges every committed "
            "version, not only the staged one: a restoring commit ends this finding), or move the change to a "
            "new card",
        )
        for f in found
    ]


def patch_history_findings(quest: Quest) -> list[Finding]:
    """The patch rules' findings for every broken version of a quest-scope card that a ref still
    holds; ``git.object-missing`` for a version git cannot read and ``git.history-too-long`` for
    a history longer than the gate reads (both stop closure, exit 2: ``engine.unseen``)."""
    if not quest.is_git:
        return []
    try:
        changed = [c for c in changes(quest.root, ["memory/"], is_card) if c.new is not None]
        if not changed:
            return []
        versions = {blob: c for c in changed for blob in (c.old, c.new) if blob is not None}
        cards, unread = _cards(quest.root, versions)
        head_yaml = cat_file(quest.root, [f"HEAD:{QUEST_YAML}"]).get(f"HEAD:{QUEST_YAML}")
        walk = _Walk(patch_checker(), committing_quest(quest.root, head_yaml)[0], cards)
        for change in changed:
            walk.step(change.commit, change.path, change.old, change.new or "")
        held = _holders(quest.root, set(walk.broken)) if walk.broken else {}
    except HistoryTooLong as exc:
        return [
            GIT_HISTORY_TOO_LONG.at(
                "memory",
                f"the committed history of the cards holds {exc.count} distinct versions, more than the "
                f"{exc.limit} the gate reads, so the patch rules cannot judge them all",
                hint="delete the branches that pad it, or restore memory/ from a clean clone "
                "(`git log --all --format='%h %s' -- memory/` shows the commits)",
            )
        ]
    except GitError:  # git refusing the repository is judged where the records are read
        return []
    return unread + [
        f for version, refs in held.items() for f in _reported(walk.broken[version][1], walk.broken[version][0], refs)
    ]
