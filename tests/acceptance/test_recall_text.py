"""Recall as people write (issue 38): compound tags, Chinese and substring queries (FTS5's
trigram index, and the scan an SQLite without it falls back on), Chinese tags, quest scope on
a folder that is not (yet) a git repository with PR #60's labels, the cache's version following
the code, and a recall process that loads no plugin machinery."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ds_gate.kernel.cache_folder import code_stamp
from ds_gate.recall import tags as recall_tags
from ds_gate.recall import text as recall_text
from ds_gate.recall.api import _INDEXES, list_knowledge_summaries, recall
from ds_gate.recall.tags import match_key, normalize_tag
from ds_gate.recall.text import substrings, words

T1, T2, T3 = "2026-01-01T00:00:00+00:00", "2026-06-01T00:00:00+00:00", "2026-11-01T00:00:00+00:00"


pytestmark = pytest.mark.usefixtures("fresh_recall_indexes")


def card(
    root: Path, card_id: str, tags, updated: str = T1, *, title: str = "", claim: str = "c", body: str = "Body."
) -> Path:
    meta = {
        "id": card_id,
        "type": "knowledge",
        "kind": "knowledge",
        "title": title or card_id,
        "quest_id": "001",
        "tags": tags,
        "created_at": updated,
        "updated_at": updated,
        "claim": claim,
        "lineage": [{"quest": "001", "run": "run-00000001"}],  # a sound lesson: recall marks none (issue 38)
    }
    path = root / "memory" / "knowledge" / f"{card_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)}---\n{body}\n", encoding="utf-8")
    return path


def ids(rows) -> list[str]:
    return [r["card_id"] for r in rows]


# -- tags as people write them -------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("topic:over-smoothing", "topic:oversmoothing"),
        ("topic:over smoothing", "Topic:OverSmoothing"),
        ("topic:pre_training", "topic:pretraining"),
        ("topic:learning-rates", "topic:learningrate"),
        ("topic:data-loaders", "topic:dataloader"),
        ("topic:over-regularisation", "topic:overregularization"),
        ("topic:学习率", "TOPIC：学习率"),  # a full-width colon (NFKC), case of the prefix
        ("topic:学习率\u3000预热", "topic:学习率-预热"),  # an ideographic space is a space
    ],
)
def test_compound_and_chinese_tags_share_one_matching_key(a: str, b: str) -> None:
    assert match_key(normalize_tag(a)) == match_key(normalize_tag(b))


def test_compound_keys_keep_prefixes_and_different_words_apart() -> None:
    assert match_key("stage:over-smoothing") != match_key("topic:oversmoothing")
    assert match_key("topic:over-fitting") != match_key("topic:over-smoothing")
    assert match_key("topic:学习率") != match_key("topic:学习")


def test_a_compound_tag_matches_however_it_is_written(home) -> None:
    card(home, "k-closed", ["topic:oversmoothing"], T1)
    card(home, "k-hyphen", ["topic:over-smoothing"], T2)
    card(home, "k-open", ["Topic: Over Smoothing"], T3)
    card(home, "k-other", ["topic:over-fitting"], T3)
    for query in ("topic:over-smoothing", "topic:oversmoothing", "over smoothing"):
        found = recall([query], home=home)
        assert found["rank_by"] == "tags" and ids(found["results"])[:3] == ["k-open", "k-hyphen", "k-closed"], query
        # over-fitting shares no tag: at most the text fill after the RFC's list (issue 38), never a tag match
        assert not found["unmatched_tags"]
        assert all(r["matched_by"] == "text" for r in found["results"] if r["card_id"] == "k-other")


def test_chinese_tags_normalise_and_match(home) -> None:
    card(home, "k-zh", ["topic:学习率", "stage:实验"], T1)
    card(home, "k-en", ["topic:learning-rate"], T2)
    found = recall(["TOPIC：学习率", "stage:实验"], home=home)
    assert ids(found["results"]) == ["k-zh"] and found["results"][0]["overlap"] == 2
    assert found["results"][0]["matched_tags"] == ["topic:学习率", "stage:实验"]
    assert ids(list_knowledge_summaries(["学习率"], home=home)) == ["k-zh"]  # bare: any prefix


def test_the_cache_version_follows_the_tag_code() -> None:
    """The recall cache is versioned by every module's size and mtime (``kernel.cache_folder.code_stamp``):
    a changed ``recall/tags.py`` (or ``text.py``) makes another version, so no row or snapshot
    keyed by the old matching keys is read again. (Computed once a process: ``__wrapped__`` is what
    the next process computes.)"""
    stamp = code_stamp.__wrapped__  # type: ignore[attr-defined]
    path = Path(recall_tags.__file__)
    st = path.stat()
    before = stamp()
    try:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        assert stamp() != before
    finally:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert stamp() == before


# -- Chinese and substring queries ---------------------------------------------------------


def chinese_home(home: Path) -> None:
    card(home, "k-lr", ["topic:optimization"], T1, title="学习率预热", body="预热步数太短时，学习率过大导致损失发散。")
    card(
        home,
        "k-qat",
        ["topic:quantization"],
        T2,
        title="量化感知训练的陷阱",
        body="量化感知训练 (QAT) 在 LoRA 微调后精度下降；先校准再训练。",
    )
    card(home, "k-en", ["topic:quantization"], T1, title="Quantization-aware training", body="Calibrate first.")
    card(home, "k-noise", ["topic:data"], T3, title="数据清洗", body="去重之后再划分验证集。")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("学习率", ["k-lr"]),
        ("预热", ["k-lr"]),  # two characters: under a trigram, found by a scan
        ("量化感知训练", ["k-qat"]),
        ("损失发散", ["k-lr"]),  # inside a sentence, not a title
        ("LoRA 微调", ["k-qat"]),  # mixed: the Latin word by the stemming index, the Chinese by substring
        ("量化感知训练的学习率", ["k-qat", "k-lr"]),  # a run longer than a word: its three-character pieces
    ],
)
def test_chinese_and_mixed_queries_find_the_cards_containing_them(home, query: str, expected: list[str]) -> None:
    chinese_home(home)
    found = recall([], home=home, query=query)
    assert found["rank_by"] == "text"
    assert set(ids(found["results"])) == set(expected), query
    assert ids(found["results"])[0] == expected[0]


def test_a_substring_of_three_characters_or_more_finds_the_words_holding_it(home) -> None:
    card(home, "k-q", [], T1, title="Quantization noise", body="int8 weights")
    card(home, "k-qat", [], T2, title="QAT", body="quantisation-aware training drifts")
    card(home, "k-other", [], T3, title="Warmup", body="warmup steps")
    assert set(ids(list_knowledge_summaries([], home=home, query="quant"))) == {"k-q", "k-qat"}
    assert ids(list_knowledge_summaries([], home=home, query="armu")) == ["k-other"]
    assert list_knowledge_summaries([], home=home, query="qu") == []  # two letters: no substring
    # a whole word some card holds is matched as a word, stemmed, not as a substring
    assert ids(list_knowledge_summaries([], home=home, query="warmups")) == ["k-other"]


def test_without_trigram_the_same_substrings_are_found_by_a_scan(home, monkeypatch) -> None:
    """SQLite before 3.34 has FTS5 without ``trigram``: substrings are matched by LIKE over the
    stemming table instead, same cards, same order (no index, so slower)."""
    chinese_home(home)
    card(home, "k-q", [], T1, title="Quantization noise")
    queries = ("学习率", "预热", "量化感知训练", "LoRA 微调", "quant", "量化感知训练的学习率")
    with_trigram = {q: ids(list_knowledge_summaries([], home=home, query=q, cache=False)) for q in queries}
    _INDEXES.clear()
    monkeypatch.setattr(recall_text, "trigram_available", lambda: False)
    for query in queries:
        assert ids(list_knowledge_summaries([], home=home, query=query, cache=False)) == with_trigram[query], query
    assert with_trigram["quant"] and with_trigram["预热"] == ["k-lr"]


def test_the_cached_text_index_serves_substrings_in_a_new_process_state(home) -> None:
    chinese_home(home)
    first = ids(list_knowledge_summaries([], home=home, query="量化感知训练"))
    _INDEXES.clear()  # a new process: the index and its FTS5 tables come from the cache file
    assert ids(list_knowledge_summaries([], home=home, query="量化感知训练")) == first == ["k-qat"]


def test_a_cache_made_without_trigram_is_made_again_when_trigram_is_there(home, monkeypatch) -> None:
    """The FTS5 tables in the cache file are those the SQLite that made them could make: after an
    upgrade to an SQLite with ``trigram``, the next recall makes them again (never a missing table)."""
    card(home, "k-q", [], T1, title="Quantization noise")
    monkeypatch.setattr(recall_text, "trigram_available", lambda: False)
    assert ids(list_knowledge_summaries([], home=home, query="quant")) == ["k-q"]
    _INDEXES.clear()
    monkeypatch.undo()
    found = list_knowledge_summaries([], home=home, query="quant")
    assert ids(found) == ["k-q"]
    index = next(iter(_INDEXES.values()))
    assert index._fts is not None and index._fts.trigram and index._fts.digest.endswith(":trigram")
    assert index._fts.db is index.cache.db  # kept in the cache file, not indexed in memory


def test_query_words_and_substrings() -> None:
    assert words("over-smoothing") == ["over", "smoothing", "oversmoothing"]
    assert words("LoRA微调") == ["lora", "微调"]
    assert substrings("量化感知训练") == ["量化感", "化感知", "感知训", "知训练"]
    assert substrings("预 热 学习") == ["学习"]  # single characters are dropped, as single letters are


def test_like_wildcards_in_a_query_are_literal(home, monkeypatch) -> None:
    monkeypatch.setattr(recall_text, "trigram_available", lambda: False)
    card(home, "k-under", [], T1, body="use max_len here")
    card(home, "k-plain", [], T1, body="use maxxlen here")
    assert ids(list_knowledge_summaries([], home=home, query="max_len", cache=False)) == ["k-under"]


# -- quest scope on a folder that is not (yet) a git repository ----------------------------


def test_quest_scope_reads_a_folder_that_is_neither_git_nor_holds_quest_yaml(home, tmp_path, gate_json) -> None:
    quest = tmp_path / "new-quest"  # no git, no quest.yaml yet: PR #60 reads <quest_root>/memory all the same
    card(quest, "k-mine", ["topic:a"], T1)
    out = list_knowledge_summaries(["topic:a"], home=home, quest=quest, scope="quest")
    assert ids(out) == ["k-mine"] and out[0]["scope"] == "quest"
    code, shown = gate_json("recall", "--tags", "topic:a", "--scope", "quest", "--quest", str(quest))
    assert code == 0 and ids(shown["results"]) == ["k-mine"]


def test_the_asking_quests_cards_are_labelled_quest_in_visible_scope(home, gate_json) -> None:
    mine, other = home / "quests" / "q-mine", home / "quests" / "q-other"  # neither is a git repository
    card(home, "k-global", ["topic:a"], T1)
    card(mine, "k-mine", ["topic:a"], T2)
    card(other, "k-theirs", ["topic:a"], T3)
    code, out = gate_json("recall", "--tags", "topic:a", "--quest", str(mine), "--visibility", "all")
    assert code == 0
    assert [(r["card_id"], r["scope"]) for r in out["results"]] == [
        ("k-theirs", "shared_quest"),
        ("k-mine", "quest"),
        ("k-global", "global"),
    ]


def test_quest_scope_on_a_missing_path_is_a_usage_error(home, tmp_path, capsys) -> None:
    from ds_gate.cli.main import main

    assert main(["recall", "--scope", "quest", "--quest", str(tmp_path / "nowhere")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


# -- a recall process loads what recall uses -----------------------------------------------


@pytest.mark.slow
def test_a_recall_process_imports_no_plugin_manager_rules_or_unused_reporters(home) -> None:
    card(home, "k-a", ["topic:a"], T1)
    probe = (
        "import sys, runpy; sys.argv = ['ds-gate', 'recall', '--tags', 'topic:a', '--format', 'json', '--no-cache'];"
        "\ntry:\n    runpy.run_module('ds_gate', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print('\\n' + ' '.join(sorted(m for m in sys.modules if m.startswith('ds_gate'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "DEEPSCIENTIST_HOME": str(home)},
    )
    out, loaded = done.stdout.rsplit("\n", 2)[0], set(done.stdout.split()[-1:] and done.stdout.splitlines()[-1].split())
    assert ids(json.loads(out)["results"]) == ["k-a"]
    assert "ds_gate.reporters.json" in loaded
    unused = {
        "ds_gate.plugins.manager",
        "ds_gate.plugins.builtin",
        "ds_gate.config.quest",
        "ds_gate.reporters.text",
        "ds_gate.reporters.sarif",
        "ds_gate.reporters.github",
    }
    assert not unused & loaded, unused & loaded
    assert not {m for m in loaded if m.startswith("ds_gate.rules.")}
