"""Which paths hold records and cards is known in one place (``kernel.layout``); the
pre-commit manifest's ``files`` pattern is that knowledge, not a copy of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from ds_gate.kernel.layout import (
    is_artifact_record,
    is_card,
    kind_of,
    pre_commit_files_pattern,
)

MANIFEST = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"

# (path as pre-commit passes it, relative to the repository, is it a record or a card?)
PATHS = [
    ("artifacts/runs/run-51c9ad07.json", True),
    ("artifacts/decisions/decision-1.json", True),
    (".ds/worktrees/idea-x/artifacts/runs/run-1.json", True),
    ("memory/knowledge/lesson.md", True),
    ("memory/papers/p.md", True),
    ("memory/ideas/idea-1/note.md", True),
    ("memory/ideas/note.md", True),
    (".ds/worktrees/w/memory/episodes/e.md", True),
    ("artifacts/runs/nested/run-1.json", True),  # main writes artifact_id "nested/run-1" there (issue 35)
    ("artifacts/reports/r.json", True),  # a review may be recorded as a report (issue 16.1)
    ("artifacts/graphs/g.json", False),
    ("artifacts/runs/run-1.json.bak", False),
    ("artifacts/_index.jsonl", False),
    ("memory/knowledge/_index.jsonl", False),
    ("memory/unknown/x.md", False),
    ("memory/knowledge/deep/x.md", False),
    ("memory/ideas/a/b/x.md", False),
    ("notes/memory.md", False),
    ("paper/paper_bundle_manifest.json", False),
]


def _known(path: str) -> bool:
    """What the commit hook would look at, for a path relative to any workspace inside."""
    parts = path.split("/")
    return any(is_artifact_record("/".join(parts[i:])) or is_card("/".join(parts[i:])) for i in range(len(parts)))


@pytest.mark.parametrize(("path", "expected"), PATHS)
def test_the_pattern_and_the_path_rules_agree(path: str, expected: bool) -> None:
    assert _known(path) is expected
    assert bool(re.search(pre_commit_files_pattern(), path)) is expected


def test_the_manifest_carries_the_generated_pattern() -> None:
    hooks = {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text())}
    assert hooks["ds-gate-validate"]["files"] == pre_commit_files_pattern(), (
        "paste ds_gate.kernel.layout.pre_commit_files_pattern() into .pre-commit-hooks.yaml"
    )


def test_memory_kinds_are_read_as_memory_service_lays_them_out() -> None:
    assert kind_of("knowledge/x.md") == "knowledge"
    assert kind_of("ideas/idea-1/x.md") == "ideas"
    assert kind_of("knowledge/a/x.md") is None
    assert kind_of("knowledge/x.txt") is None
