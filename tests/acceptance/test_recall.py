"""Recall: the RFC's order (overlap, time, id), one tag normalisation, a lexical fallback,
every card read, and a cache that is never wrong and never in the way."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ds_gate.cli.main import main
from ds_gate.recall.api import _INDEXES, list_knowledge_summaries
from ds_gate.recall.tags import normalize_tag, normalize_tags

pytestmark = pytest.mark.usefixtures("fresh_recall_indexes")


def card(
    home: Path,
    card_id: str,
    tags,
    updated: str,
    *,
    kind: str = "knowledge",
    title: str | None = None,
    claim: str = "c",
    body: str = "Body.",
    scope_dir: Path | None = None,
    **extra,
) -> Path:
    meta = {
        "id": card_id,
        "type": kind,
        "kind": kind,
        "title": title or card_id,
        "quest_id": "001",
        "tags": tags,
        "created_at": updated,
        "updated_at": updated,
        "scope": "global",
        "claim": claim,
        "lineage": [{"quest": "001", "run": "run-00000001"}],  # a sound lesson: recall marks none of its rows
        **extra,
    }
    path = (scope_dir or home / "memory") / kind / f"{card_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)}---\n{body}\n")
    return path


def ids(results) -> list[str]:
    return [r["card_id"] for r in results]


def test_the_rfc_order_overlap_then_time_then_id(home) -> None:
    card(home, "k-a", ["topic:routing"], "2026-11-01T00:00:00+00:00")
    card(home, "k-b", ["topic:routing", "stage:experiment"], "2026-01-01T00:00:00+00:00")
    card(home, "k-c", ["topic:routing"], "2026-11-20T00:00:00+00:00")
    card(home, "k-e", ["topic:routing"], "2026-11-20T00:00:00+00:00")  # same time as k-c: the id decides
    card(home, "k-d", ["topic:other"], "2026-12-01T00:00:00+00:00")  # no overlap: not recalled
    out = list_knowledge_summaries(["topic:routing", "stage:experiment"], home=home)
    assert ids(out) == ["k-b", "k-c", "k-e", "k-a"]
    assert [(r["overlap"], r["matched_tags"]) for r in out][:2] == [
        (2, ["topic:routing", "stage:experiment"]),
        (1, ["topic:routing"]),
    ]
    assert set(out[0]) == {
        "card_id",
        "title",
        "claim",
        "tags",
        "kind",
        "scope",
        "quest_id",
        "updated_at",
        "path",
        "overlap",
        "matched_tags",
        "summary",
        "support",
        "matched_by",
    }


def test_empty_tags_give_recency_and_kind_filters_before_limit(home) -> None:
    for i in range(5):
        card(home, f"k-{i}", [], f"2026-11-0{i + 1}T00:00:00+00:00")
    card(home, "p-old", [], "2025-01-01T00:00:00+00:00", kind="papers")
    assert ids(list_knowledge_summaries([], limit=3, home=home)) == ["k-4", "k-3", "k-2"]
    assert ids(list_knowledge_summaries([], kind="papers", limit=1, home=home)) == [
        "p-old"
    ]  # not cut off by newer cards


@pytest.mark.parametrize(
    "variant",
    [
        "Topic:Learning_Rate",
        "  topic:learning rate ",
        "ＴＯＰＩＣ:learning-rate",
        "topic:learning__rate",
        "TOPIC:LEARNING RATE",
    ],
)
def test_tag_variants_match(home, variant) -> None:
    card(home, "k-lr", ["topic:learning-rate"], "2026-11-01T00:00:00+00:00")
    card(home, "k-written-oddly", ["Topic:Learning_Rate"], "2026-10-01T00:00:00+00:00")
    assert ids(list_knowledge_summaries([variant], home=home)) == ["k-lr", "k-written-oddly"]
    assert normalize_tag(variant) == "topic:learning-rate"


def test_normalisation_keeps_prefixes_and_first_seen_order() -> None:
    assert normalize_tags(["Stage:Experiment", "stage:experiment", "task:ab_c", " ", "topic:a b"]) == (
        "stage:experiment",
        "task:ab-c",
        "topic:a-b",
    )


@pytest.mark.slow
def test_the_same_output_whatever_the_order_files_were_written_in(tmp_path) -> None:
    specs = [(f"k-{i:03d}", [f"topic:t{i % 4}", "stage:s"], f"2026-0{1 + i % 9}-01T00:00:00+00:00") for i in range(60)]
    outputs = set()
    for round_ in range(20):
        home = tmp_path / f"home{round_}"
        shuffled = list(specs)
        random.Random(round_).shuffle(shuffled)
        for card_id, tags, updated in shuffled:
            card(home, card_id, tags, updated)
        result = list_knowledge_summaries(["topic:t1", "stage:s"], limit=50, home=home, cache=False)
        outputs.add(json.dumps([(r["card_id"], r["overlap"]) for r in result]))
    assert len(outputs) == 1


def test_a_paraphrase_with_no_shared_tag_is_found_through_the_query(home) -> None:
    card(
        home,
        "k-collapse",
        ["topic:moe"],
        "2026-01-01T00:00:00+00:00",
        title="Sparse routing needs load balancing",
        claim="An auxiliary load-balancing loss prevents expert collapse.",
        body="Without it two experts took all tokens.",
    )
    card(
        home,
        "k-lr",
        ["topic:optimizer"],
        "2026-11-01T00:00:00+00:00",
        title="Warmup matters",
        claim="Linear warmup avoids early divergence.",
    )
    card(home, "k-stage", ["stage:analysis"], "2026-06-01T00:00:00+00:00", title="Ablate one thing at a time")
    plain = list_knowledge_summaries(["stage:analysis"], home=home)
    assert ids(plain) == ["k-stage"]
    found = list_knowledge_summaries(
        ["stage:analysis"], home=home, query="experts collapsing when balancing is missing"
    )
    # one ranking for text and tags: the lesson the text describes comes first; the card that only
    # shares the stage tag follows (its tag words are words of the query), it no longer hides the match
    assert ids(found) == ["k-collapse", "k-stage"]
    assert (
        found[0]["overlap"] == 0 and found[1]["overlap"] == 1 and found[0]["lexical_score"] > found[1]["lexical_score"]
    )


@pytest.mark.slow
def test_no_card_is_dropped_past_500_files(home) -> None:
    for i in range(620):
        card(
            home,
            f"k-{i:04d}",
            ["topic:common"] if i else ["topic:common", "topic:rare"],
            f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}+00:00",
        )
    out = list_knowledge_summaries(["topic:rare"], home=home)
    assert ids(out) == ["k-0000"]  # the oldest file, the one a last-500 scan would miss
    assert len(list_knowledge_summaries(["topic:common"], limit=200, home=home)) == 200


def test_limit_kind_and_scope_are_validated(home) -> None:
    for bad in (0, 201, "5", True):
        with pytest.raises(Exception, match="limit must be an integer from 1 to 200"):
            list_knowledge_summaries([], limit=bad, home=home)
    assert main(["recall", "--home", str(home), "--limit", "0"]) == 2
    assert main(["recall", "--home", str(home), "--kind", "secrets"]) == 2


def test_scienceclaw_jsonl_records_are_recalled(home, tmp_path) -> None:
    findings = tmp_path / "findings.jsonl"
    findings.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "type": "pitfall",
                    "content": "Tokenizer drift broke eval parity.",
                    "tags": ["Topic:Tokenizer"],
                    "date": "2026-03-01",
                    "project": "nlp-7",
                },
                {
                    "type": "strategy",
                    "content": "Sweep warmup first.",
                    "tags": "topic:optimizer, stage:plan",
                    "date": "2026-04-01",
                },
                "not a record",
            ]
        )
        + "\nnot json\n"
    )
    out = list_knowledge_summaries(["topic:tokenizer"], home=home, jsonl=[findings])
    assert [(r["kind"], r["scope"], r["quest_id"], r["claim"]) for r in out] == [
        ("pitfall", "jsonl", "nlp-7", "Tokenizer drift broke eval parity.")
    ]
    assert out[0]["card_id"].startswith("pitfall-") and out[0]["path"] == f"{findings}:1"
    again = list_knowledge_summaries(["topic:tokenizer"], home=home, jsonl=[findings], cache=False)
    assert ids(again) == ids(out)  # deterministic ids


def test_the_cache_is_used_refreshed_and_survives_corruption(home) -> None:
    path = card(home, "k-1", ["topic:a"], "2026-01-01T00:00:00+00:00", claim="first")
    assert list_knowledge_summaries(["topic:a"], home=home)[0]["claim"] == "first"
    from ds_gate.io.cache_file import cache_name
    from ds_gate.kernel.cache_folder import user_cache_dir

    cache = Path(str(user_cache_dir()), cache_name("recall", home.resolve()))
    assert cache.is_file() and not (home / ".ds-gate").exists()  # never in the home (issue 14)
    before = path.read_bytes()
    card(home, "k-1", ["topic:a"], "2026-01-02T00:00:00+00:00", claim="second")  # an in-place rewrite
    _INDEXES.clear()
    assert list_knowledge_summaries(["topic:a"], home=home)[0]["claim"] == "second"  # (path, mtime, size) changed
    assert path.read_bytes() != before
    _INDEXES.clear()
    for suffix in ("-wal", "-shm"):
        Path(f"{cache}{suffix}").unlink(missing_ok=True)
    cache.write_bytes(b"this is not a database" * 100)
    assert list_knowledge_summaries(["topic:a"], home=home)[0]["claim"] == "second"
    assert cache.read_bytes()[:15] == b"SQLite format 3"  # rebuilt


def test_a_card_rewritten_in_place_at_the_same_size_and_mtime_is_read_again(home) -> None:
    """Issue 36: recall's rows are keyed by the cache's one stat key (size, ``mtime_ns``,
    ``ctime_ns``, inode, device): with the old ``mtime`` put back, only ``ctime`` tells the edit
    (old: keyed by path, ``mtime`` and size, the stale claim was recalled)."""
    path = card(home, "k-1", ["topic:a"], "2026-01-01T00:00:00+00:00", claim="first")
    assert list_knowledge_summaries(["topic:a"], home=home)[0]["claim"] == "first"
    st = os.stat(path)
    path.write_text(path.read_text().replace("claim: first", "claim: fresh"))  # same size, same inode
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_ino == st.st_ino
    _INDEXES.clear()  # a new process, as far as the in-memory index goes
    assert list_knowledge_summaries(["topic:a"], home=home)[0]["claim"] == "fresh"


@pytest.mark.slow
def test_two_processes_recall_at_once_with_one_cache(home) -> None:
    for i in range(300):
        card(home, f"k-{i:03d}", ["topic:x"], f"2026-01-01T00:00:{i % 60:02d}+00:00")
    script = (
        f"from ds_gate import list_knowledge_summaries as L; import json; "
        f"print(json.dumps([r['card_id'] for r in L(['topic:x'], limit=200, home={str(home)!r})]))"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    assert outs[0][0] == outs[1][0] and len(json.loads(outs[0][0])) == 200
    assert list_knowledge_summaries(["topic:x"], limit=200, home=home) == list_knowledge_summaries(
        ["topic:x"], limit=200, home=home, cache=False
    )


def test_recall_never_modifies_a_card(home) -> None:
    paths = [card(home, f"k-{i}", ["topic:a"], "2026-01-01T00:00:00+00:00") for i in range(3)]
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths}
    list_knowledge_summaries(["topic:a"], home=home, query="body")
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths} == before


def test_scopes_mark_other_quests_cards(make_quest, home, gate_json) -> None:
    mine, other = make_quest("001"), make_quest("002")
    card(home, "k-global", ["topic:a"], "2026-01-01T00:00:00+00:00")
    card(home, "k-mine", ["topic:a"], "2026-01-02T00:00:00+00:00", scope_dir=mine.root / "memory")
    card(home, "k-theirs", ["topic:a"], "2026-01-03T00:00:00+00:00", scope_dir=other.root / "memory")
    code, out = gate_json("recall", "--tags", "topic:a", "--quest", str(mine.root))
    assert code == 0  # a home's default (independent): another quest's cards are not this quest's to see
    assert [(r["card_id"], r["scope"]) for r in out["results"]] == [("k-mine", "quest"), ("k-global", "global")]
    (home / "config").mkdir()
    (home / "config" / "config.yaml").write_text("memory:\n  read_visibility_mode: shared_across_quests\n")
    code, out = gate_json("recall", "--tags", "topic:a", "--quest", str(mine.root))
    assert [(r["card_id"], r["scope"]) for r in out["results"]] == [
        ("k-theirs", "shared_quest"),
        ("k-mine", "quest"),
        ("k-global", "global"),
    ]
    code, out = gate_json("recall", "--tags", "topic:a", "--scope", "global")
    assert [r["card_id"] for r in out["results"]] == ["k-global"]
    code, out = gate_json("recall", "--tags", "topic:a", "--scope", "quest", "--quest", str(mine.root))
    assert [r["card_id"] for r in out["results"]] == ["k-mine"]


def test_for_stage_uses_the_quests_domains_when_recall_priors_is_on(make_quest, home, gate_json) -> None:
    quest = make_quest()
    card(home, "k-stage", ["stage:experiment"], "2026-01-01T00:00:00+00:00")
    card(home, "k-domain", ["domain:vision"], "2026-01-02T00:00:00+00:00")
    code, out = gate_json("recall", "--for-stage", "experiment", "--quest", str(quest.root))
    assert code == 0 and out["results"] == [] and "recall_priors is off" in out["notes"][0]
    quest.write_quest_yaml(startup_contract={"recall_priors": "on", "brief": {"domains": ["Domain:Vision"]}})
    code, out = gate_json("recall", "--for-stage", "experiment", "--quest", str(quest.root))
    assert [r["card_id"] for r in out["results"]] == ["k-domain", "k-stage"]
    assert out["notes"] == [
        "domain tags for stage experiment: stage:experiment, domain:vision "
        "(stage: stage:experiment; domains: domain:vision)"
    ]
    assert out["request"]["tag_sources"] == {
        "stage": ["stage:experiment"],
        "domains": ["domain:vision"],
        "quest cards": [],
    }


def test_stage_entry_tags_come_from_the_active_anchor_and_the_quests_own_cards(make_quest, home, gate_json) -> None:
    """Issue 16.5: with no stage named, the stage is the quest's ``active_anchor``; the tags its
    own cards use most join the domains, and the report says where each tag came from."""
    quest = make_quest()
    quest.write_quest_yaml(active_anchor="decision", startup_contract={"recall_priors": "on"})
    quest.card("quest", "Own lesson one", claim="c", tags=["topic:routing", "topic:moe"])
    quest.card("quest", "Own lesson two", claim="c", tags=["topic:routing"])
    card(home, "k-routing", ["topic:routing"], "2026-01-01T00:00:00+00:00")
    card(home, "k-decision", ["stage:decision"], "2026-01-02T00:00:00+00:00")
    card(home, "k-other", ["topic:vision"], "2026-01-03T00:00:00+00:00")
    code, out = gate_json("recall", "--for-stage", "--quest", str(quest.root), "--scope", "global")
    assert code == 0
    assert out["request"]["for_stage"] == "decision"
    assert out["request"]["tag_sources"] == {
        "stage": ["stage:decision"],
        "domains": [],
        "quest cards": ["topic:routing", "topic:moe"],
    }
    assert out["request"]["domain_tags"] == ["stage:decision", "topic:routing", "topic:moe"]
    assert [r["card_id"] for r in out["results"]][:2] == ["k-decision", "k-routing"]  # k-other shares no tag
    assert "quest cards: topic:routing, topic:moe" in out["notes"][0]


def test_recent_lists_artifacts_of_every_workspace_newest_first(make_quest, gate_json) -> None:
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    first = quest.run(quest.root, "main-001")
    second = quest.run(wt, "main-002")
    decision = quest.decision(wt, "continue")
    quest.checkpoint(wt, "record")
    code, out = gate_json("recent", str(quest.root))
    assert [r["artifact_id"] for r in out["results"]] == [decision, second, first]
    code, out = gate_json("recent", str(quest.root), "--kind", "run", "--limit", "1")
    assert [r["artifact_id"] for r in out["results"]] == [second]
    code, out = gate_json("recent", str(quest.root), "--from-git")
    assert [r["artifact_id"] for r in out["results"]] == [decision, second]  # the root's run is not committed


def test_spaces_around_the_colon_and_dash_runs_normalise_away() -> None:
    assert normalize_tag("Topic: Reward Hacking") == "topic:reward-hacking"
    assert normalize_tag("topic : lr") == "topic:lr"
    assert normalize_tag("data - dedup") == "data-dedup"


def test_a_new_quest_and_a_grown_jsonl_are_seen_without_refresh(make_quest, home, tmp_path) -> None:
    card(home, "k-global", ["topic:a"], "2026-01-01T00:00:00+00:00")
    findings = tmp_path / "findings.jsonl"
    findings.write_text(
        json.dumps({"type": "finding", "content": "first", "tags": ["topic:a"], "date": "2026-01-02"}) + "\n"
    )
    assert len(list_knowledge_summaries(["topic:a"], home=home, jsonl=[findings], visibility="all")) == 2
    later = make_quest("009")
    card(home, "k-later", ["topic:a"], "2026-01-03T00:00:00+00:00", scope_dir=later.root / "memory")
    with findings.open("a") as out:
        out.write(
            json.dumps({"type": "pitfall", "content": "second", "tags": ["topic:a"], "date": "2026-01-04"}) + "\n"
        )
    out = list_knowledge_summaries(["topic:a"], home=home, jsonl=[findings], visibility="all")  # no refresh
    assert [r["scope"] for r in out] == ["jsonl", "shared_quest", "jsonl", "global"]


@pytest.mark.slow
def test_the_labelled_evaluation_set_prefers_ds_gate_over_the_plain_rfc_ranking() -> None:
    from helpers import REPO

    done = subprocess.run(
        [sys.executable, str(REPO / "eval" / "recall" / "run.py"), "--json"], capture_output=True, text=True, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    metrics = json.loads(done.stdout)["metrics"]
    assert metrics["all"]["n"] >= 30
    for part in ("tag-variant", "paraphrase", "all"):
        ours, rfc = metrics[part]["ds-gate"], metrics[part]["rfc"]
        assert ours["ndcg@10"] > rfc["ndcg@10"] and ours["mrr"] > rfc["mrr"], part
    assert metrics["exact-tag"]["ds-gate"]["ndcg@10"] >= metrics["exact-tag"]["rfc"]["ndcg@10"]
    again = subprocess.run(
        [sys.executable, str(REPO / "eval" / "recall" / "run.py"), "--json"], capture_output=True, text=True, cwd=REPO
    )
    assert again.stdout == done.stdout  # deterministic


@pytest.mark.slow
def test_a_second_process_reads_the_cache_from_the_user_cache_folder(home, tmp_path) -> None:
    """Issue 14: the cache lives in $DS_GATE_CACHE_DIR, and a new process really uses it: a
    row changed behind the card's back (same path and stat) and sealed with the cache's
    secret is what it recalls; one edited by hand, without the seal, is not (issue 35)."""
    import sqlite3

    from ds_gate.recall.cache import SEAL_TEXT, Cache

    card(home, "k-1", ["topic:a"], "2026-01-01T00:00:00+00:00", claim="from the file")
    env = {**os.environ, "DS_GATE_CACHE_DIR": str(tmp_path / "cache")}
    args = [sys.executable, "-m", "ds_gate", "recall", "--tags", "topic:a", "--home", str(home), "--format", "json"]

    def recalled(*extra: str) -> str:
        # cwd: the process imports the ds_gate this test does (from a checkout's root, `-m` would
        # import the checkout over an installed copy: another version, so another cache file)
        done = subprocess.run([*args, *extra], capture_output=True, text=True, env=env, check=True, cwd=tmp_path)
        return str(json.loads(done.stdout)["results"][0]["claim"])

    assert recalled() == "from the file"
    [db] = list((tmp_path / "cache").glob("recall-*.sqlite3"))
    with sqlite3.connect(db) as conn:
        (path, key, entry) = conn.execute("SELECT path, stat, entry FROM cards").fetchone()
        edited = entry[SEAL_TEXT:].replace("from the file", "from the cache")
        conn.execute("UPDATE cards SET entry = ?", (entry[:SEAL_TEXT] + edited,))  # by hand: the seal no longer holds
    assert recalled() == "from the file"
    sealed = Cache(db.parent, db.name).seal(path, key, edited)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE cards SET entry = ?", (sealed + edited,))
    assert recalled() == "from the cache"
    assert recalled("--no-cache") == "from the file"


@pytest.mark.slow
@pytest.mark.parametrize("row", ["[[[", '["only", "two"]', "[1, 2, 3, 4, 5, 6, 7, 8]", "5", '"text"'])
def test_a_corrupt_cache_row_is_read_again_from_the_card(home, tmp_path, row) -> None:
    """Issue 15.10/15.15: a row recall did not write (same stat, bad entry) costs a re-read, never exit 3."""
    import sqlite3

    card(home, "k-1", ["topic:a"], "2026-01-01T00:00:00+00:00", claim="from the file")
    env = {**os.environ, "DS_GATE_CACHE_DIR": str(tmp_path / "cache")}
    args = [sys.executable, "-m", "ds_gate", "recall", "--tags", "topic:a", "--home", str(home), "--format", "json"]
    assert subprocess.run(args, capture_output=True, env=env).returncode == 0
    [db] = list((tmp_path / "cache").glob("recall-*.sqlite3"))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE cards SET entry = ?", (row,))
    for extra in ([], ["--refresh"]):
        done = subprocess.run([*args, *extra], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["results"][0]["claim"] == "from the file"


@pytest.mark.slow
def test_the_cache_is_never_written_through_a_symbolic_link(home, tmp_path) -> None:
    """Issue 15.15: a planted link (the cache folder, or the cache file) is not followed: recall
    runs uncached and the link's target is untouched."""
    from ds_gate.io.cache_file import cache_name

    card(home, "k-1", ["topic:a"], "2026-01-01T00:00:00+00:00", claim="c")
    target = tmp_path / "victim"
    target.mkdir()
    args = [sys.executable, "-m", "ds_gate", "recall", "--tags", "topic:a", "--home", str(home), "--format", "json"]
    linked_folder = tmp_path / "linked-cache"
    linked_folder.symlink_to(target)
    done = subprocess.run(
        args, capture_output=True, text=True, env={**os.environ, "DS_GATE_CACHE_DIR": str(linked_folder)}
    )
    assert done.returncode == 0 and json.loads(done.stdout)["results"][0]["claim"] == "c"
    assert list(target.iterdir()) == []

    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    victim = target / "precious.txt"
    victim.write_text("keep me\n")
    (folder / cache_name("recall", home.resolve())).symlink_to(victim)
    done = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "DS_GATE_CACHE_DIR": str(folder)})
    assert done.returncode == 0 and json.loads(done.stdout)["results"][0]["claim"] == "c"
    assert victim.read_text() == "keep me\n" and sorted(p.name for p in target.iterdir()) == ["precious.txt"]
