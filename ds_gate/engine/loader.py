"""Build the ``Quest`` model once: where the quest is, what its ``quest.yaml`` says, which
readers to read (``sources.select``), and the collector's slim, deduplicated records.

Each record is checked while its document is in hand, by the ``checker`` the caller passes
(the built-in record rules and the plugins'); callers that only resolve run ids pass none.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ds_gate.engine.collector import Collector, RecordCheck, no_checks
from ds_gate.engine.folder_rows import regular_stat
from ds_gate.engine.record_store import RecordStore
from ds_gate.kernel.cache_folder import file_key, stat_key
from ds_gate.kernel.counting import counted
from ds_gate.kernel.layout import GATE_KINDS, QUEST_YAML
from ds_gate.model.findings import Finding
from ds_gate.model.records import Decision, Quest, Run, Workspace
from ds_gate.sources import quest_yaml
from ds_gate.sources.location import Location, linked_outside, locate
from ds_gate.sources.quest_yaml import (
    coerce_toggle,
    main_status,
    quest_id_of,
    scalar_text,
    toggle_finding,
)
from ds_gate.sources.select import readers
from ds_gate.sources.workspaces import discover_workspaces


def load_quest(
    path: Path | str | Location,
    *,
    staged: bool = False,
    runs_only: bool = False,
    source: str = "auto",
    refs: Sequence[str] | None = None,
    extra_tips: Sequence[tuple[str, str]] = (),
    checker: Callable[[Path], RecordCheck] | None = None,
    keyed_checker: Callable[[Path], tuple[RecordCheck, bytes | None]] | None = None,
    cache: bool = False,
) -> Quest:
    """Read a quest from any path inside it.

    ``staged`` reads the workspace that ``path`` lies in from git's index instead of its
    folder: what the commit being made will hold. ``runs_only`` skips decisions, for
    callers that only resolve run ids (lineage entries naming another quest's runs).
    ``source``: ``auto`` (the folders, plus every branch tip no folder has checked out),
    the workspace folders, the tips of git refs (``refs`` patterns, default every local and
    remote-tracking branch, plus ``extra_tips``), or both. ``checker``: given
    the quest root, the record rules to run on each record file as it is read (none by
    default: a caller that only resolves run ids does not pay for them;
    ``engine.gate.load_quest`` passes them). ``keyed_checker``: instead of ``checker``, the
    rules and what their findings depend on besides a record's bytes (None when they may
    depend on anything): then worktree copies share one check, and with ``cache`` the slim
    records persist in the user's cache folder (``engine.record_store``).
    """
    return QuestLoader(
        path,
        staged=staged,
        runs_only=runs_only,
        source=source,
        refs=refs,
        extra_tips=extra_tips,
        checker=checker,
        keyed_checker=keyed_checker,
        cache=cache,
    ).run()


@dataclass(slots=True)
class QuestLoader:
    """One reading of a quest, a step a method: where it is and which checks run
    (``__post_init__``), ``quest.yaml``'s toggles (``settings``), the records of every reader
    (``collect``), the winning copies (``winners``), and the ``Quest`` (``run``)."""

    path: Path | str | Location
    staged: bool = False
    runs_only: bool = False
    source: str = "auto"
    refs: Sequence[str] | None = None
    extra_tips: Sequence[tuple[str, str]] = ()
    checker: Callable[[Path], RecordCheck] | None = None
    keyed_checker: Callable[[Path], tuple[RecordCheck, bytes | None]] | None = None
    cache: bool = False
    loc: Location = field(init=False)
    check: RecordCheck = field(init=False)
    key: bytes | None = field(init=False)  # what the checks' findings depend on besides the bytes (None: anything)
    findings: list[Finding] = field(init=False)

    def __post_init__(self) -> None:
        self.loc = locate(self.path)
        self.key, self.check = (b"" if self.checker is None else None), no_checks  # no checks: copies may share
        if self.keyed_checker is not None:
            self.check, self.key = self.keyed_checker(self.loc.root)
        elif self.checker is not None:
            self.check = self.checker(self.loc.root)
        self.findings = list(self.loc.findings)

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("run",) if self.runs_only else GATE_KINDS

    def run(self) -> Quest:
        """The quest read, with the garbage collector paused meanwhile: what is read is all kept,
        so its passes over the records find nothing to free (~15% of a 100,000-run read)."""
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._read()
        finally:
            if paused:
                gc.enable()

    def _read(self) -> Quest:
        store = (
            RecordStore(self.loc.root, self.key, self.kinds)
            if self.cache and self.key is not None and self.check is not no_checks
            else None
        )
        meta, contract = self.settings(store)
        collector, workspaces = self.collect(store, scalar_text(meta.get("quest_root")))
        if store is not None:
            store.save()
        runs, decisions = self.winners(collector)
        status, status_findings = main_status(self.loc.root, scalar_text(meta.get("status")))
        self.findings.extend(status_findings)
        tips = [ws.rel for ws in workspaces if ws.ref is not None]
        heads = len([tip for tip in tips if tip in dict(self.loc.detached_tips)])
        read = counted(len(tips) - heads, "branch tip") + " no worktree folder has checked out"
        if heads:  # a registration whose folder is gone or not its own (``sources.registered``)
            read = f"{read} and {counted(heads, 'detached worktree HEAD')} no folder of its own shows"
        notes = (
            [f"read {read}, from git objects: {', '.join(tips)} (--from-folders reads the folders only)"]
            if self.source == "auto" and tips
            else []
        )
        return Quest(
            root=self.loc.root,
            quest_id=quest_id_of(meta, self.loc.root),
            status=status,
            experience_distill=coerce_toggle(contract.get("experience_distill")),
            recall_priors=coerce_toggle(contract.get("recall_priors")),
            workspaces=workspaces,
            runs=runs,
            decisions=decisions,
            findings=self.findings,
            is_git=self.loc.is_git,
            indexed_run_ids=frozenset(collector.indexed_run_ids),
            indexed_decision_ids=frozenset(collector.indexed_decision_ids),
            notes=notes,
            root_branch=self.loc.root_branch,
            staged_workspace=next(  # as ``sources.select.readers`` chooses it
                (ws.rel for ws in workspaces if self.staged and ws.ref is None and ws.path == self.loc.top), None
            ),
        )

    def settings(self, store: RecordStore | None) -> tuple[dict[str, Any], Mapping[str, Any]]:
        """``quest.yaml`` and its ``startup_contract``; what is wrong with a toggle is a finding."""
        meta, findings = read_quest_yaml(self.loc.root, store)
        self.findings.extend(findings)
        contract = meta.get("startup_contract")
        contract = contract if isinstance(contract, Mapping) else {}
        for name in ("experience_distill", "recall_priors"):
            note = toggle_finding(name, contract.get(name))
            if note is not None:
                self.findings.append(note)
        return meta, contract

    def collect(self, store: RecordStore | None, recorded_root: str | None) -> tuple[Collector, list[Workspace]]:
        """Every reader's records, checked as they are read; the workspaces read (``recorded_root``:
        where quest.yaml says main made the quest, to find its named workspaces after a move)."""
        workspaces, ws_findings = discover_workspaces(self.loc, recorded_root)
        self.findings.extend(ws_findings)
        collector = Collector(
            self.loc.root, workspaces, self.kinds, self.check, share=self.key is not None, store=store
        )
        chosen, source_findings = readers(
            self.loc,
            workspaces,
            self.source,
            refs=self.refs,
            extra_tips=self.extra_tips,
            skip=collector.skip,
            staged=self.staged,
        )
        self.findings.extend(source_findings)
        for reader in chosen:
            collector.read(reader)
        collector.resolve_index()
        collector.memo.clear()  # one slim per content, no longer needed: freed before the Quest is built
        return collector, [reader.workspace for reader in chosen]

    def winners(self, collector: Collector) -> tuple[dict[str, Run], dict[str, Decision]]:
        """One copy per artifact id, by id; the winning runs' findings, then what the reading found."""
        runs: dict[str, Run] = {}
        best = collector.runs.best
        for artifact_id in sorted(best):  # the ids, not their entries: a second 100,000-tuple list at the peak
            runs[artifact_id] = best.pop(artifact_id)
            self.findings.extend(collector.runs.found.get(artifact_id, ()))
        decisions = dict(sorted(collector.decisions.best.items()))
        self.findings.extend(collector.findings)
        return runs, decisions


def _pyyaml_entry(entry: object) -> bool:
    """A row ``(PyYAML's file, its stat key, the mapping)`` whose PyYAML is still the one installed."""
    return (
        type(entry) is tuple
        and len(entry) == 3
        and type(entry[2]) is dict
        and isinstance(entry[0], str)
        and file_key(entry[0]) == entry[1]
    )


def read_quest_yaml(root: Path, store: RecordStore | None) -> tuple[dict[str, Any], list[Finding]]:
    """``quest.yaml`` as ``sources.quest_yaml`` reads it; with a store, a repeated run whose
    ``quest.yaml`` (and PyYAML) did not change takes the mapping from the cache and never
    imports PyYAML. Only a clean parse is kept: a finding is made again each time, and a link
    out of the quest is refused before the cache is asked."""
    path = root / QUEST_YAML
    st = regular_stat(str(path)) if store is not None and linked_outside(root, path) is None else None
    if store is None or st is None:
        return quest_yaml.read_quest_yaml(root)
    held = store.get(str(path))
    if held is not None and held[0] == stat_key(st) and _pyyaml_entry(held[1]):
        return dict(held[1][2]), []
    meta, findings = quest_yaml.read_quest_yaml(root)
    parser = getattr(sys.modules.get("yaml"), "__file__", None)  # the PyYAML that parsed: another one misses
    parser_key = file_key(parser) if isinstance(parser, str) else None
    if not findings and parser_key is not None and store.file.settles(st):
        store.put(str(path), stat_key(st), (parser, parser_key, meta))  # what marshal cannot hold is not kept
    return meta, findings
