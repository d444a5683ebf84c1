"""The commit hook: what a commit stages decides what is checked (docs/hooks.md says what it blocks).

DeepScientist checkpoints with ``git add -A && git commit`` and a failing hook makes the checkpoint
silently not happen, so pending runs never block an ordinary checkpoint: only invalid staged
records and cards, cards breaking the patch rules (a warning until finalization), and
*finalization* commits (``kernel.finalizing``) while completed runs are pending. The committing
workspace is read as staged, the others from their folders. Checkpoints staging nothing the gate
looks at are answered by ``kernel.checkpoint`` and never reach this module.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ds_gate.config.quest import QuestConfig, configured_require, read_quest_config
from ds_gate.config.waivers import waive
from ds_gate.engine.documents import GivenFile, check_documents
from ds_gate.engine.gate import Gate, load_quest
from ds_gate.engine.options import GateOptions
from ds_gate.engine.unseen import as_closure_sees
from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.checkpoint import gated, may_be_review, other_json
from ds_gate.kernel.errors import NotAQuest, shown
from ds_gate.kernel.finalizing import finalizing_reason
from ds_gate.kernel.gitpaths import staged_changes
from ds_gate.kernel.given_path import given_path
from ds_gate.kernel.layout import (
    MANIFEST,
    QUEST_YAML,
    REPORTS,
    RESEARCH_STATE,
    RUNTIME_STATE,
    is_artifact_record,
    is_card,
    is_manifest_name,
    kind_of,
)
from ds_gate.kernel.links import followed, staged_names
from ds_gate.model.reports import SCOPES, DocumentsReport
from ds_gate.plugins.manager import card_checker, finalization_patterns, patch_checker
from ds_gate.rules.finalization import commit_reasons, pattern_matches
from ds_gate.rules.policy import CHECKPOINT, FINALIZATION, apply_policy, demoted_note
from ds_gate.sources.location import locate
from ds_gate.sources.memory import parse_card
from ds_gate.sources.named_roots import hook_roots
from ds_gate.sources.problems import unreadable
from ds_gate.sources.quest_yaml import (
    committing_quest,
    parse_quest_yaml,
    too_large_finding,
)

if TYPE_CHECKING:
    from pathlib import Path

    from ds_gate.kernel.fs import TooLarge
    from ds_gate.model.findings import Finding
    from ds_gate.model.records import Quest
    from ds_gate.model.reports import Report


def _finalizes(name: str, raw: bytes | TooLarge | None) -> bool:
    """A staged ``.json`` file that is a finalizing decision (one over the size limit is not read)."""
    return isinstance(raw, bytes) and finalizing_reason(name, raw) is not None


def _plugin_patterns(names: list[str]) -> list[str]:
    """The plugins' finalization patterns when one names a staged file, else []: an ordinary
    checkpoint without plugins imports neither pluggy nor the finalization rules."""
    patterns = finalization_patterns() if names else []
    if not patterns:
        return []
    return patterns if pattern_matches(names, patterns) else []


def commit_check(cwd: Path | str = ".", *, validate: bool = True, require: bool = False) -> Report | None:
    """The hook's verdict, or None when the commit stages nothing the gate looks at. A ``cwd`` no
    path resolves is the ``QuestError`` naming it, before git is asked."""
    given_path(cwd, "cwd")
    return CommitCheck(cwd, validate=validate, require=require).run()


class CommitCheck:
    """One commit's check, in steps: what is staged and whether the gate looks at it
    (``kernel.checkpoint.gated``), the staged bytes, whether the commit finalizes, the cards,
    the closure gate for a finalization, then ``quest.yaml`` and the records; ``rules.policy``
    says what each finding does to this commit."""

    def __init__(self, cwd: Path | str, *, validate: bool, require: bool) -> None:
        self.cwd, self.validate, self.require = cwd, validate, require
        self.notes: list[str] = []
        self._quest: list[Quest] = []

    def run(self) -> Report | None:
        changes = staged_changes(self.cwd)
        if not gated(self.cwd, changes, lambda staged: bool(_plugin_patterns(staged))):
            return None
        names = staged_names(str(self.cwd), list(changes))
        nested, unseen = self.named_roots(names)
        if nested:  # a link inside the quest may lead a named root's manifest to a staged file
            names = staged_names(str(self.cwd), list(changes), nested)
        artifacts = [name for name in names if is_artifact_record(name)]
        others = [name for name in other_json(names) if not is_artifact_record(name) and name in changes]
        cards = [name for name in names if is_card(name)]
        blobs = self.staged_bytes(changes, names, [*artifacts, *others], cards)
        final = {name for name in [*artifacts, *others] if _finalizes(name, blobs[f":{name}"])}
        # judged: run and decision records, reviews, and every finalizing decision wherever it lies
        artifacts = [
            name
            for name in [*artifacts, *others]
            if name in final
            or (is_artifact_record(name) and (not name.startswith(REPORTS) or may_be_review(blobs[f":{name}"])))
        ]
        reasons = commit_reasons(names, blobs, sorted(final), _plugin_patterns(names), nested, unseen)
        if not reasons and not self.validate and not cards:
            return None
        try:
            loc = locate(self.cwd)
        except NotAQuest as exc:  # no quest.yaml: a checkpoint there is not gated; a finalization stops
            if reasons:
                raise exc.then(
                    f"this commit finalizes ({'; '.join(reasons)}), so the commit hook stops "
                    "(in a repository that is no quest: `git commit --no-verify`)"
                ) from None
            return None
        top_rel = loc.top.relative_to(loc.root).as_posix()
        prefix = "" if top_rel == "." else f"{top_rel}/"
        card_findings = (
            _card_findings(loc.root, loc.top, prefix, cards, blobs, self.validate, self.notes) if cards else []
        )
        config = read_quest_config(loc.root)  # once: the waivers of the cards and the records, and the closure
        own = config.waivers
        card_findings = waive(card_findings, loc.root, own, audit=False)
        if reasons:
            closure = self.closure(config, reasons, card_findings)
            if closure is not None:
                return closure
        findings: list[Finding] = [*card_findings, *self.quest_yaml_findings(names, blobs, prefix)]
        if self.validate:
            findings.extend(waive(self.record_findings(artifacts, blobs, prefix, loc.root), loc.root, own, audit=False))
        return self.report(findings, reasons)

    def named_roots(self, names: list[str]) -> tuple[tuple[str, ...], list[str]]:
        """Where main writes the paper bundle of each workspace root ``research_state.json`` names
        below this workspace, and the roots it would use that the gate cannot see: read only
        when the commit stages a file named as the manifest below the workspace's top."""
        if not any(is_manifest_name(name) and name != MANIFEST for name in names):
            return (), []
        try:
            loc = locate(self.cwd)
        except NotAQuest:
            return (), []
        staged = cat_file(self.cwd, [f":{RESEARCH_STATE}"], staged=True).get(f":{RESEARCH_STATE}")
        nested, unseen = hook_roots(str(loc.root), str(loc.top), staged if isinstance(staged, bytes) else None)
        return nested, [f"{root.key} {shown(root.value, 80)}" for root in unseen]

    def staged_bytes(
        self, changes: dict[str, tuple[str | None, str]], names: list[str], artifacts: list[str], cards: list[str]
    ) -> dict[str, bytes | TooLarge | None]:
        """The staged (``:<path>``) and, for cards and ``quest.yaml``, ``HEAD:<path>`` bytes, keyed
        as git names them but read by blob id: a quest's path (a newline, bytes that are not
        UTF-8) never enters cat-file's line protocol."""
        ids = {f":{name}": changes[name][1] for name in artifacts}
        for name in cards:
            ids[f":{name}"], ids[f"HEAD:{name}"] = changes[name][1], changes[name][0] or ""
        statuses = [path for path in (QUEST_YAML, RUNTIME_STATE) if path in names or (cards and path == QUEST_YAML)]
        fixed = [f"{rev}:{path}" for path in statuses for rev in ("", "HEAD")]  # HEAD's quest.yaml names the quest
        found = cat_file(self.cwd, [*fixed, *(oid for oid in ids.values() if oid)], staged=True)
        blobs = {name: found.get(oid) if oid else None for name, oid in ids.items()}
        blobs.update((name, found.get(name)) for name in fixed)
        for path in statuses:  # a link inside the quest is read as what it leads to, as DeepScientist reads it
            blobs.update(followed(str(self.cwd), blobs, {f":{path}": None, f"HEAD:{path}": "HEAD"}, path))
        return blobs

    def quest(self) -> Quest:
        """The quest as this commit stages it, read once and only when a step needs it."""
        if not self._quest:
            self._quest.append(load_quest(self.cwd, staged=True))
        return self._quest[0]

    def closure(self, config: QuestConfig, reasons: list[str], card_findings: list[Finding]) -> Report | None:
        """The closure gate for a finalization commit: its report when the gate is enforced
        (as this commit stages the workspace, then as ``closure`` reads the folders), else None
        with its notes kept."""
        asked = GateOptions(require=self.require or configured_require(config), finalization=tuple(reasons))
        scope = SCOPES["commit-check"]
        closure = Gate(
            self.quest(), scope, dataclasses.replace(asked, staged_findings=tuple(card_findings)), config=config
        ).run()
        if closure.enforced:
            closure = as_closure_sees(
                closure, Gate(self.cwd, scope, asked, config=config).run(), "this commit does not stage"
            )
        if closure.enforced:  # with why the cards' patch rules named no quest, as a checkpoint says it
            return dataclasses.replace(closure, notes=[*self.notes, *closure.notes])
        self.notes += closure.notes
        return None

    def quest_yaml_findings(
        self, names: list[str], blobs: dict[str, bytes | TooLarge | None], prefix: str
    ) -> list[Finding]:
        if QUEST_YAML not in names or blobs.get(f":{QUEST_YAML}") is None:
            return []
        staged_yaml = blobs[f":{QUEST_YAML}"] or b""
        found = (
            [too_large_finding(staged_yaml)]
            if isinstance(staged_yaml, OSError)
            else parse_quest_yaml(staged_yaml.decode("utf-8-sig", "replace"))[1]
        )
        return [dataclasses.replace(f, path=prefix + QUEST_YAML) for f in found]

    def record_findings(
        self, artifacts: list[str], blobs: dict[str, bytes | TooLarge | None], prefix: str, root: Path
    ) -> list[Finding]:
        documents: list[GivenFile] = []
        found: list[Finding] = []
        for name in artifacts:
            raw = blobs[f":{name}"]
            if isinstance(raw, bytes):  # a decision outside a record folder is read as one (its kind says so)
                documents.append(
                    GivenFile(prefix + name, raw, name.split("/")[1] if is_artifact_record(name) else "decisions")
                )
            elif raw is not None:  # over the size limit, never read: input.too-large, as from the folder
                found.append(unreadable(prefix + name, raw))
        return found + check_documents(documents, lambda _doc: self.quest(), root)[0]

    def report(self, findings: list[Finding], reasons: list[str]) -> DocumentsReport:
        findings, demoted = apply_policy(findings, FINALIZATION if reasons else CHECKPOINT)
        if demoted:
            self.notes.append(demoted_note(demoted))
        return DocumentsReport(
            command="commit-check",
            ok=not any(f.fails for f in findings),
            findings=findings,
            finalization_reasons=reasons,
            notes=self.notes,
        )


def _card_findings(
    root: Path,
    top: Path,
    prefix: str,
    names: list[str],
    blobs: dict[str, bytes | TooLarge | None],
    validate: bool,
    notes: list[str],
) -> list[Finding]:
    """Each staged card on its own (with ``validate``) and as a patch of its ``HEAD`` version."""
    patching_quest, why = committing_quest(root, blobs.get(f"HEAD:{QUEST_YAML}"))
    check_card, check_patch = card_checker(), patch_checker()
    found: list[Finding] = []
    for name in names:
        after_raw = blobs.get(f":{name}")
        if after_raw is None:
            continue
        kind, display = kind_of(name[len("memory/") :]) or "", prefix + name
        if isinstance(after_raw, OSError):  # over the size limit, never read
            found.append(unreadable(display, after_raw))
            continue
        after = parse_card(after_raw, path=top / name, display=display, scope="quest", kind=kind)
        if after is None:
            continue  # no frontmatter: a note, not a card
        if validate:
            found.extend(check_card(after))
        if after.broken:
            continue
        before_raw = blobs.get(f"HEAD:{name}")
        if not isinstance(before_raw, bytes):  # none at HEAD, or over the size limit there (never read)
            before_raw = None
        before = (
            parse_card(before_raw, path=top / name, display=display, scope="quest", kind=kind) if before_raw else None
        )
        patch = check_patch(before, after, patching_quest)
        if patch and why and why not in notes:
            notes.append(why)
        found.extend(patch)
    return found
