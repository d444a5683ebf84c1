"""Recall's ranking after issue 38: the RFC's list kept as an exact prefix and filled with text
matches, ``order="relevance"`` as the shared tags' rarity alone, a JSONL record's lesson indexed
once, and a recalled card that fails its schema or its lineage marked with the finding."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ds_gate.cli.main import main
from ds_gate.recall.api import _INDEXES, STAGE_ORDER, list_knowledge_summaries, recall
from ds_gate.recall.jsonl import read_jsonl
from ds_gate.recall.text import TextIndex

pytestmark = pytest.mark.usefixtures("fresh_recall_indexes")


def card(
    home: Path,
    card_id: str,
    tags: list[str],
    updated: str,
    *,
    title: str | None = None,
    body: str = "Body.",
    kind: str = "knowledge",
    quest_id: str = "001",
    lineage: object = "default",
    claim: object = "A lesson.",
) -> Path:
    meta: dict[str, object] = {}
    if claim is not None:
        meta["claim"] = claim
    if lineage is not None:
        meta["lineage"] = [{"quest": quest_id, "run": "run-00000001"}] if lineage == "default" else lineage
    meta.update(
        id=card_id,
        type=kind,
        kind=kind,
        title=title or card_id,
        quest_id=quest_id,
        tags=tags,
        created_at=updated,
        updated_at=updated,
        scope="global",
    )
    path = home / "memory" / kind / f"{card_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)}---\n{body}\n")
    return path


def ids(rows) -> list[str]:
    return [r["card_id"] for r in rows]


T1, T2, T3, T4 = (f"2026-{m:02d}-01T00:00:00+00:00" for m in (1, 4, 7, 10))


def fill_home(home: Path) -> None:
    card(home, "k-two-old", ["stage:experiment", "topic:lora"], T1)
    card(home, "k-two-new", ["stage:experiment", "topic:lora"], T3)
    card(home, "k-one-newest", ["topic:lora"], T4)
    card(home, "k-text-strong", ["stage:idea"], T4, title="LoRA rank for the LoRA experiment", body="LoRA rank 8.")
    card(home, "k-text-weak", ["stage:write"], T2, body="One experiment we ran.")
    card(home, "k-nothing", ["stage:write"], T4, body="Unrelated.")


def test_the_rfc_list_is_an_exact_prefix_and_text_matches_fill_the_rest_marked(home) -> None:
    """Count first, newer first among equals; then the cards sharing no tag whose text holds the
    tags' words, by BM25, each marked overlap 0 / text; a card matching neither is not returned."""
    fill_home(home)
    found = recall(["stage:experiment", "topic:lora"], home=home, limit=10)
    rows = found["results"]
    assert ids(rows) == ["k-two-new", "k-two-old", "k-one-newest", "k-text-strong", "k-text-weak"]
    assert [r["overlap"] for r in rows] == [2, 2, 1, 0, 0]
    assert [r["matched_by"] for r in rows] == ["tags", "tags", "tags", "text", "text"]
    assert "lexical_score" not in rows[0] and rows[3]["lexical_score"] > rows[4]["lexical_score"] > 0
    assert found["rank_by"] == "tags"


def test_the_fill_comes_only_when_the_rfc_list_is_shorter_than_limit(home) -> None:
    fill_home(home)
    assert ids(list_knowledge_summaries(["stage:experiment", "topic:lora"], home=home, limit=3)) == [
        "k-two-new",
        "k-two-old",
        "k-one-newest",
    ]
    four = list_knowledge_summaries(["stage:experiment", "topic:lora"], home=home, limit=4)
    assert ids(four)[3] == "k-text-strong" and four[3]["overlap"] == 0


def test_empty_tags_give_the_recent_cards(home) -> None:
    fill_home(home)
    rows = list_knowledge_summaries([], home=home, limit=4)
    assert [r["updated_at"] for r in rows] == [T4, T4, T4, T3]
    assert {r["matched_by"] for r in rows} == {"recent"}


def test_the_fill_is_in_every_output(home, gate_json, capsys) -> None:
    fill_home(home)
    code, out = gate_json("recall", "--tags", "stage:experiment,topic:lora", "--home", str(home))
    assert code == 0 and [r["matched_by"] for r in out["results"]][-2:] == ["text", "text"]
    assert main(["recall", "--tags", "stage:experiment,topic:lora", "--home", str(home)]) == 0
    text = capsys.readouterr().out
    assert "k-text-strong" in text and "text match" in text


def test_relevance_is_the_shared_tags_rarity_without_a_text_part_with_the_same_fill(home) -> None:
    """A rare shared tag outranks a common one; between cards sharing the same tags the newer
    wins even when the older one's text repeats the tags' words; the fill follows."""
    for n in range(6):
        card(home, f"k-common-{n}", ["stage:experiment"], T1)
    card(home, "k-rare", ["topic:lora"], T1)
    card(home, "k-both-old-wordy", ["stage:experiment", "topic:lora"], T1, title="LoRA experiment LoRA experiment")
    card(home, "k-both-new", ["stage:experiment", "topic:lora"], T2)
    card(home, "k-text", ["stage:idea"], T4, body="A LoRA note.")
    found = recall(["stage:experiment", "topic:lora"], home=home, limit=20, order="relevance")
    rows = found["results"]
    assert ids(rows)[:3] == ["k-both-new", "k-both-old-wordy", "k-rare"]
    assert ids(rows)[-1] == "k-text" and rows[-1]["matched_by"] == "text"
    assert found["rank_by"] == "relevance"
    assert "lexical_score" not in rows[0]


def test_for_stage_defaults_to_the_order_the_evaluation_chose() -> None:
    assert STAGE_ORDER == "relevance"


def test_a_jsonl_records_lesson_text_is_indexed_once(tmp_path) -> None:
    source = tmp_path / "findings.jsonl"
    source.write_text(
        '{"type": "pitfall", "issue": "warmup too short diverged", "fix": "use 2000 steps", "tags": []}\n'
        '{"type": "pitfall", "title": "Own title", "issue": "clip at one", "fix": "lower it", "tags": []}\n'
    )
    entries, problems = read_jsonl(source)
    assert problems == []
    assert entries[0].title == "warmup too short diverged"  # what a result shows is unchanged
    index = TextIndex(entries)
    assert index.db is not None
    rows = index.db.execute("SELECT title, claim, body FROM fts ORDER BY rowid").fetchall()
    assert " ".join(rows[0]).count("warmup too short diverged") == 1
    assert rows[1][0] == "Own title" and " ".join(rows[1]).count("clip at one") == 1


def test_a_recalled_card_failing_its_schema_or_lineage_comes_back_marked(home, gate_json, capsys) -> None:
    card(home, "k-sound", ["topic:lora"], T1)
    card(home, "k-no-claim", ["topic:lora"], T2, claim=" ")
    card(home, "k-elsewhere", ["topic:lora"], T3, lineage=[{"quest": "002", "run": "run-1"}])
    card(home, "k-twice", ["topic:lora"], T4, lineage=[{"quest": "001", "run": "run-1"}] * 2)
    for cache in (True, True, False):  # read, then from the cache's rows and snapshot, then without a cache
        _INDEXES.clear()
        rows = {r["card_id"]: r for r in list_knowledge_summaries(["topic:lora"], home=home, cache=cache)}
        assert "problems" not in rows["k-sound"]
        assert [p["rule"] for p in rows["k-no-claim"]["problems"]] == ["card.experience-schema"]
        assert [p["rule"] for p in rows["k-elsewhere"]["problems"]] == ["lineage.not-origin"]
        assert [p["rule"] for p in rows["k-twice"]["problems"]] == ["lineage.repeated-entry"]
        assert all(p["message"] and p["hint"] for r in rows.values() for p in r.get("problems", []))
    code, out = gate_json("recall", "--tags", "topic:lora", "--home", str(home))
    assert code == 0 and any("problems" in r for r in out["results"])
    main(["recall", "--tags", "topic:lora", "--home", str(home)])
    assert "! lineage.not-origin: lineage[0] is quest '002'" in capsys.readouterr().out


POOL = ("stage:experiment", "stage:idea", "topic:lora", "topic:warmup", "task:rank-8", "domain:vision")
WORDS = ("lora", "warmup", "experiment", "rank", "vision", "notes", "loss")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cards=st.lists(
        st.tuples(
            st.lists(st.sampled_from(POOL), unique=True, max_size=4),
            st.integers(1, 6),
            st.lists(st.sampled_from(WORDS), max_size=4),
        ),
        min_size=1,
        max_size=14,
    ),
    query=st.lists(st.sampled_from(POOL), unique=True, max_size=4),
    limit=st.integers(1, 16),
    order=st.sampled_from(("rfc", "relevance")),
)
def test_any_home_answers_the_rfc_list_then_only_cards_sharing_no_tag(tmp_path_factory, cards, query, limit, order):
    """Property: with the RFC order the answer starts with the RFC's list exactly (count, newer,
    id), cut at ``limit``; with either order every card sharing a tag comes before any fill card,
    and a fill card shares no tag; no card appears twice."""
    home = tmp_path_factory.mktemp("home")
    stamps = {}
    for n, (tags, month, words) in enumerate(cards):
        stamps[f"k-{n:02d}"] = f"2026-{month:02d}-01T00:00:00+00:00"
        card(home, f"k-{n:02d}", tags, stamps[f"k-{n:02d}"], body=f"Card {n}: {' '.join(words)}.")
    _INDEXES.clear()
    rows = list_knowledge_summaries(query, home=home, limit=limit, cache=False, order=order)
    assert len({r["card_id"] for r in rows}) == len(rows) <= limit
    shared = {f"k-{n:02d}": len(set(tags) & set(query)) for n, (tags, _, _) in enumerate(cards)}
    if not query:
        return
    sharing = [r for r in rows if r["matched_by"] == "tags"]
    assert rows[: len(sharing)] == sharing  # the list, then the fill
    assert all(shared[r["card_id"]] == 0 and r["overlap"] == 0 for r in rows[len(sharing) :])
    reference = sorted((c for c, k in shared.items() if k), key=lambda c: (-shared[c], -int(stamps[c][5:7]), c))
    assert len(sharing) == min(limit, len(reference))
    if order == "rfc":
        assert [r["card_id"] for r in sharing] == reference[:limit]
