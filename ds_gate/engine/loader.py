"""Build the ``Quest`` model once: where the quest is, what its ``quest.yaml`` says, which
readers to read (``sources.select``), and the collector's slim, deduplicated records.

Each record is checked while its document is in hand, by the ``checker`` the caller passes
(the built-in record rules and the plugins'); callers that only resolve run ids pass none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ds_gate.engine.collector import Collector, RecordCheck, no_checks
from ds_gate.engine.record_store import open_store, read_quest_yaml
from ds_gate.kernel.layout import GATE_KINDS
from ds_gate.model.records import Quest, Run
from ds_gate.sources.location import Location, discover_workspaces, locate
from ds_gate.sources.quest_yaml import (
    coerce_toggle,
    quest_id_of,
    scalar_text,
    toggle_finding,
)
from ds_gate.sources.select import readers


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
    loc = locate(path)
    kinds = ("run",) if runs_only else GATE_KINDS
    key: bytes | None = b"" if checker is None else None  # no checks: no findings, copies may share
    check: RecordCheck = no_checks
    if keyed_checker is not None:
        check, key = keyed_checker(loc.root)
    elif checker is not None:
        check = checker(loc.root)
    store = open_store(loc.root, key, kinds) if cache and key is not None and check is not no_checks else None

    meta, findings = read_quest_yaml(loc.root, store)
    findings = loc.findings + findings
    contract = meta.get("startup_contract")
    contract = contract if isinstance(contract, Mapping) else {}
    for name in ("experience_distill", "recall_priors"):
        note = toggle_finding(name, contract.get(name))
        if note is not None:
            findings.append(note)
    workspaces, ws_findings = discover_workspaces(loc)
    findings.extend(ws_findings)
    collector = Collector(loc.root, workspaces, kinds, check, share=key is not None, store=store)
    chosen, source_findings = readers(loc, workspaces, source, refs=refs, extra_tips=extra_tips, skip=collector.skip,
                                      staged=staged)
    findings.extend(source_findings)
    for reader in chosen:
        collector.read(reader)
    workspaces = [reader.workspace for reader in chosen]
    tips = [ws.rel for ws in workspaces if ws.ref is not None]
    notes = [f"read {len(tips)} branch tip(s) no worktree folder has checked out, from git objects: {', '.join(tips)} "
             "(--from-folders reads the folders only)"] if source == "auto" and tips else []
    collector.resolve_index()
    if store is not None:
        store.save()

    runs: dict[str, Run] = {}
    for artifact_id, (run, _, _, run_findings) in sorted(collector.runs.best.items()):
        runs[artifact_id] = run
        findings.extend(run_findings)
    decisions = {key: entry[0] for key, entry in sorted(collector.decisions.best.items())}
    findings.extend(collector.findings)
    return Quest(
        root=loc.root,
        quest_id=quest_id_of(meta, loc.root),
        status=scalar_text(meta.get("status")),
        experience_distill=coerce_toggle(contract.get("experience_distill")),
        recall_priors=coerce_toggle(contract.get("recall_priors")),
        workspaces=workspaces,
        runs=runs,
        decisions=decisions,
        findings=findings,
        is_git=loc.is_git,
        indexed_run_ids=frozenset(collector.indexed_run_ids),
        indexed_decision_ids=frozenset(collector.indexed_decision_ids),
        notes=notes,
        root_branch=loc.root_branch,
    )
