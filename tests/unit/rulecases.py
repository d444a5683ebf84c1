"""In-memory builders for the unit tests: model objects and records as DeepScientist
writes them, with no git and no files. ``fired`` lists the rules of a result."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

from ds_gate.model.findings import Finding
from ds_gate.model.records import (
    Card,
    Decision,
    Document,
    Quest,
    Run,
    Workspace,
    review_fields,
)

ROOT = Path("/nowhere/quests/001")
RUN_ID = "run-51c9ad07"


def fired(findings: Iterable[Finding]) -> list[str]:
    return sorted(f.rule for f in findings)


def raw_of(data: Any) -> bytes:
    return json.dumps(data, indent=2).encode()


def document(data: dict[str, Any], kind: str | None = None, display: str = "artifacts/decisions/x.json") -> Document:
    return Document(kind or data.get("kind"), data, raw_of(data), display)


def review_data(**changes: Any) -> dict[str, Any]:
    data = {
        "kind": "decision",
        "artifact_id": "decision-1",
        "action": "distill_review",
        "verdict": "covered",
        "reason": "one run distilled",
        "reviewed_run_ids": [RUN_ID],
        "cards_written": [{"card_id": "knowledge-1", "scope": "global", "action": "new", "target_run_id": RUN_ID}],
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def run(
    artifact_id: str = RUN_ID, run_id: str = "main-001", status: str = "completed", run_kind: str = "main_experiment"
) -> Run:
    return Run(artifact_id, run_id, run_kind, status, ".", f"artifacts/runs/{artifact_id}.json")


def decision(data: dict[str, Any], findings: list[Finding] | None = None) -> Decision:
    review = review_fields(data)
    return Decision(
        data["artifact_id"],
        data.get("action"),
        ".",
        f"artifacts/decisions/{data['artifact_id']}.json",
        data.get("updated_at"),
        data.get("created_at"),
        review.is_review,
        findings or [],
        review.reviewed_run_ids,
        raw_of(data),
        review.cards_written,
        review.neighbor_decisions,
    )


def quest(runs: Iterable[Run] = (), decisions: Iterable[Decision] = (), quest_id: str = "001") -> Quest:
    return Quest(
        root=ROOT,
        quest_id=quest_id,
        status="active",
        experience_distill=True,
        recall_priors=False,
        workspaces=[Workspace(ROOT, ".")],
        runs={r.artifact_id: r for r in runs},
        decisions={d.artifact_id: d for d in decisions},
        findings=[],
    )


def card(
    meta: dict[str, Any], *, scope: str = "global", body: str = "Context: ...", display: str = "memory/knowledge/c.md"
) -> Card:
    return Card(path=Path("/nowhere") / display, display=display, scope=scope, kind="knowledge", meta=meta, body=body)


class MemoryReader:
    """A branch tip's ``artifacts/`` held in memory: the loader's Reader protocol over a dict
    (an OSError stands for a file that cannot be read); a real alternative source, like git's
    index, not a mock. ``ref`` is set, so index paths are never followed on disk."""

    def __init__(self, records: dict[str, bytes | OSError], index: bytes | None = None, branch: str = "branch") -> None:
        self.workspace = Workspace(ROOT, f"refs/heads/{branch}", branch=branch, ref=f"refs/heads/{branch}")
        self.findings: list[Finding] = []
        self.records = records
        self.index = index

    def index_bytes(self) -> bytes | None:
        return self.index

    def record_names(self, skip: Collection[str]) -> list[str]:
        return sorted(name for name in self.records if name.split("/")[0] not in skip)

    def read_many(self, names: list[str]) -> Iterator[tuple[str, bytes | OSError]]:
        for name in names:
            yield name, self.records[name]
