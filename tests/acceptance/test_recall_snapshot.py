"""Issue 29 (speed): a new process ranks from the cache file's snapshot of the built index and
its FTS5 table, and says exactly what a build from the cards says; a changed card, a changed
cache row or a damaged snapshot is never served."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from pathlib import Path

import pytest
import yaml

from ds_gate.io.cache_file import cache_name
from ds_gate.recall.api import _INDEXES, recall
from ds_gate.recall.snapshot import Stored

TOPICS = ["topic:routing", "topic:warmup", "topic:tokenizer", "topic:eval-parity", "task:kd-temperature"]
WORDS = ["router", "warmup", "drift", "seed", "tokens", "loss", "parity", "quantisation", "quantization"]


@pytest.fixture(autouse=True)
def fresh_process_state(tmp_path, monkeypatch):
    monkeypatch.setenv("DS_GATE_CACHE_DIR", str(tmp_path / "cache"))
    _INDEXES.clear()
    yield
    _INDEXES.clear()


def make_home(home: Path, tmp_path: Path) -> Path:
    """Cards of two kinds and two quests, some copies of one lesson, and a JSONL source."""
    rng = random.Random(29)
    for i in range(40):
        kind = "knowledge" if i % 4 else "papers"
        body = "Shared lesson: warmup before routing." if i % 7 == 0 else " ".join(rng.choice(WORDS) for _ in range(12))
        meta = {
            "id": f"k-{i:02d}",
            "type": kind,
            "kind": kind,
            "title": f"Lesson {i} {rng.choice(WORDS)}",
            "quest_id": f"q{i % 3}",
            "tags": rng.sample(TOPICS, 2) + [rng.choice(["stage:experiment", "stage:idea"])],
            "updated_at": f"2026-0{1 + i % 9}-1{i % 3}T00:00:00+00:00",
            "claim": f"Claim {i} {rng.choice(WORDS)}",
        }
        path = home / "memory" / kind / f"k-{i:02d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{body}\n")
    findings = tmp_path / "findings.jsonl"
    findings.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "type": "pitfall",
                    "issue": "Router drift after warmup.",
                    "fix": "Pin the seed.",
                    "tags": ["topic:routing"],
                },
                {
                    "type": "strategy",
                    "strategy": "Sweep warmup first.",
                    "outcome": "Stable loss.",
                    "tags": "topic:warmup",
                },
            ]
        )
        + "\n"
    )
    return findings


CALLS = [
    {"domain_tags": ["topic:routing", "stage:experiment"]},
    {"domain_tags": ["topic:routings"], "kind": "papers"},
    {"domain_tags": ["topic:warmup"], "support": True, "limit": 3},
    {"domain_tags": ["kd-temperature", "stage:experiment"], "order": "relevance"},
    {"domain_tags": ["topic:nothing-like-it"]},
    {"query": "router drift quantization"},
    {"query": "warmup", "domain_tags": ["topic:eval-parity"], "limit": 5},
    {},
]


def answers(home: Path, findings: Path, cache: bool) -> list[dict[str, object]]:
    return [
        recall(limit=call.pop("limit", 20), home=home, scope="global", jsonl=[findings], cache=cache, **call)
        for call in (dict(c) for c in CALLS)
    ]


def db_of(home: Path, tmp_path: Path) -> Path:
    return tmp_path / "cache" / cache_name("recall", home.resolve())


def test_a_new_process_ranks_from_the_snapshot_and_says_the_same(home, tmp_path) -> None:
    findings = make_home(home, tmp_path)
    expected = answers(home, findings, cache=False)
    assert answers(home, findings, cache=True) == expected  # the build that writes the snapshot and the FTS5 table
    _INDEXES.clear()  # a new process
    assert answers(home, findings, cache=True) == expected
    (index,) = [i for key, i in _INDEXES.items() if key[-1] is True]
    assert isinstance(index.entries, Stored)  # no entry per card: only those shown were made
    with sqlite3.connect(db_of(home, tmp_path)) as conn:
        # the FTS5 tables' digest: the index's, and whether this SQLite made the trigram table too (issue 38)
        assert index._fts is not None and index._fts.digest.startswith(index.digest)
        assert conn.execute("SELECT value FROM meta WHERE key='fts'").fetchone() == (index._fts.digest,)
        assert conn.execute("SELECT count(*) FROM fts").fetchone() == (42,)


def test_a_changed_card_or_cache_row_is_never_served_from_a_snapshot(home, tmp_path) -> None:
    findings = make_home(home, tmp_path)
    answers(home, findings, cache=True)
    path = home / "memory" / "knowledge" / "k-01.md"
    path.write_text(path.read_text().replace("Claim 1 ", "Claim one, rewritten "))
    _INDEXES.clear()
    assert answers(home, findings, cache=True) == answers(home, findings, cache=False)
    with sqlite3.connect(db_of(home, tmp_path)) as conn:
        assert conn.execute("SELECT count(*) FROM snapshot").fetchone() == (1,)
        conn.execute("UPDATE cards SET entry = replace(entry, 'Claim 2 ', 'Claim from the row ')")
        assert conn.execute("SELECT count(*) FROM snapshot").fetchone() == (0,)  # the row changed: the snapshot went
    _INDEXES.clear()
    claims = {r["card_id"]: r["claim"] for r in recall(limit=200, home=home, scope="global")["results"]}
    assert claims["k-02"].startswith("Claim 2 ")  # the row was edited by hand, unsealed: the card is read (issue 35)


@pytest.mark.parametrize(
    "damage",
    [
        "'[[['",
        "'{}'",
        "'[1, 2]'",
        "replace(state, 'k-03.md', 'k-gone.md')",  # names a card with no row
        "replace(state, '\"recency\": [', '\"recency\": [99, ')",  # a position out of range
        "replace(state, '\"who\": [', '\"who\": [[1], ')",  # not a quest
    ],
)
def test_a_damaged_snapshot_is_built_again(home, tmp_path, damage) -> None:
    findings = make_home(home, tmp_path)
    expected = answers(home, findings, cache=False)
    answers(home, findings, cache=True)
    with sqlite3.connect(db_of(home, tmp_path)) as conn:
        conn.execute(f"UPDATE snapshot SET state = {damage}")
    _INDEXES.clear()
    assert answers(home, findings, cache=True) == expected


def test_each_scope_keeps_its_snapshot(home, tmp_path) -> None:
    """Recalls of two scopes in turn (the global memory, then every visible one) each find theirs
    (once the quest's rows are stored: a new row drops every snapshot, see ``cache._setup``)."""
    make_home(home, tmp_path)
    quest = home / "quests" / "q-1" / "memory" / "knowledge"
    quest.mkdir(parents=True)
    (quest / "k-q.md").write_text("---\nid: k-q\ntype: knowledge\ntitle: Q\ntags: [topic:routing]\n---\nBody.\n")
    first = {
        scope: recall(["topic:routing"], home=home, scope=scope, visibility="all") for scope in ("global", "visible")
    }
    _INDEXES.clear()
    assert {
        scope: recall(["topic:routing"], home=home, scope=scope, visibility="all") for scope in ("global", "visible")
    } == first
    _INDEXES.clear()
    for scope in ("global", "visible"):
        assert recall(["topic:routing"], home=home, scope=scope, visibility="all") == first[scope]
    assert all(isinstance(index.entries, Stored) for index in _INDEXES.values())
    assert "k-q" in {r["card_id"] for r in first["visible"]["results"]}


def test_calls_from_other_threads_rank_from_the_same_snapshot(home, tmp_path) -> None:
    """The MCP server runs each tool call on a worker thread of its own choosing: the index a
    call on one thread made, with its cache connection, must serve a call on another, not
    fall back to reading every card again (as SQLite's same-thread check made it do)."""
    findings = make_home(home, tmp_path)
    expected = answers(home, findings, cache=False)
    answers(home, findings, cache=True)  # writes the snapshot
    _INDEXES.clear()  # a new process: the first call loads the snapshot on one thread, the rest run on others
    got: list[list[dict[str, object]]] = []
    for _ in range(3):
        worker = threading.Thread(target=lambda: got.append(answers(home, findings, cache=True)))
        worker.start()
        worker.join()
    assert got == [expected] * 3
    (index,) = [i for key, i in _INDEXES.items() if key[-1] is True]
    assert isinstance(index.entries, Stored)  # still the snapshot: no thread rebuilt it from the cards
