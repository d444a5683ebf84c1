"""Lineage chains across a real home: three quests (git repos with worktrees) and global cards.

A chain is checked link by link against the run records of the quests it names, found in
any of their workspaces, by artifact id or experiment run_id.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest


@pytest.fixture
def three(make_quest) -> tuple[dict[str, ExampleQuest], dict[str, str]]:
    """Quests 001-003, each with one completed run recorded in a worktree (not the root)."""
    quests, runs = {}, {}
    for qid in ("001", "002", "003"):
        quest = make_quest(qid)
        idea = quest.worktree(f"idea-{qid}", f"idea/{qid}-a")
        runs[qid] = quest.run(idea, f"main-{qid}")
        quest.checkpoint(idea, "experiment: record")
        quests[qid] = quest
    return quests, runs


def rules(out: dict) -> list[tuple[str, str, str]]:
    return sorted((f["rule"], f["path"].rsplit("/", 1)[-1], f["pointer"]) for f in out["findings"])


def test_a_valid_three_quest_chain_passes(three, home, gate_json) -> None:
    quests, runs = three
    # the origin's artifact id, then 002's experiment run_id, then 003's artifact id
    quests["001"].card(
        "global",
        "Sparse routing needs load balancing",
        claim="Load-balancing loss prevents expert collapse.",
        lineage=[
            {"quest": "001", "run": runs["001"], "direction": "idea-a", "note": "found"},
            {"quest": "002", "run": "main-002"},
            {"quest": "003", "run": runs["003"]},
        ],
    )
    code, out = gate_json("lineage", "--home", str(home))
    assert code == 0, out["findings"]
    assert out["findings"] == []
    assert [(c["card_id"].split("-")[0], c["scope"], c["experience"]) for c in out["cards"]] == [
        ("knowledge", "global", True)
    ]
    assert out["cards"][0]["path"] == "memory/knowledge/sparse-routing-needs-load-balancing.md"  # relative to the home


def test_a_second_link_naming_a_run_that_does_not_exist_fails_with_a_did_you_mean(three, home, gate_json) -> None:
    quests, runs = three
    typo = runs["002"][:-1] + ("0" if runs["002"][-1] != "0" else "1")
    card = quests["001"].card(
        "global",
        "Chain with a dangling link",
        claim="c",
        lineage=[{"quest": "001", "run": runs["001"]}, {"quest": "002", "run": typo}],
    )
    code, out = gate_json("lineage", "--home", str(home))
    assert code == 1
    [finding] = out["findings"]
    assert (finding["rule"], finding["pointer"], finding["severity"]) == (
        "lineage.unknown-run",
        "/lineage/1/run",
        "error",
    )
    assert finding["path"] == "memory/knowledge/chain-with-a-dangling-link.md"
    text = (home / finding["path"]).read_text().splitlines()
    assert text[finding["line"] - 1].strip() == f"run: {typo}"
    assert finding["hint"] == f"did you mean {runs['002']}?"
    assert card in (home / finding["path"]).read_text()


def test_a_chain_whose_first_entry_is_not_the_origin_fails(three, home, gate_json) -> None:
    quests, runs = three
    # written by quest 003, but its lineage starts at 001 and never names 003
    quests["003"].card("global", "Borrowed lesson", claim="c", lineage=[{"quest": "001", "run": runs["001"]}])
    code, out = gate_json("lineage", "--home", str(home))
    assert code == 1
    assert rules(out) == [("lineage.not-origin", "borrowed-lesson.md", "/lineage/0/quest")]
    assert "came from quest 003" in out["findings"][0]["message"]


def test_unknown_quests_repeated_entries_and_ids_that_would_leave_the_home(three, home, gate_json) -> None:
    quests, runs = three
    quests["001"].card(
        "global",
        "Messy chain",
        claim="c",
        lineage=[
            {"quest": "001", "run": runs["001"]},
            {"quest": "001", "run": "main-001"},  # the same run by its experiment run_id
            {"quest": "404", "run": "run-00000000"},
            {"quest": "../001", "run": runs["001"]},
        ],
    )
    (home / "outside").mkdir()
    code, out = gate_json("lineage", "--home", str(home))
    assert code == 1
    assert rules(out) == [
        ("lineage.repeated-entry", "messy-chain.md", "/lineage/1"),
        ("lineage.unknown-quest", "messy-chain.md", "/lineage/2/quest"),
        ("lineage.unknown-quest", "messy-chain.md", "/lineage/3/quest"),
    ]
    assert "not a quest id" in next(f["message"] for f in out["findings"] if f["pointer"] == "/lineage/3/quest")


def test_a_promoted_card_keeps_its_id_and_its_origin(three, home, gate_json) -> None:
    quests, runs = three
    lesson = dict(claim="Warm restarts hide divergence.", lineage=[{"quest": "002", "run": runs["002"]}])
    card_id = quests["002"].card("quest", "Warm restarts hide divergence", **lesson)
    code, out = gate_json("check", str(quests["002"].root))
    assert [f["rule"] for f in out["findings"]] == ["card.quest-scope-lesson"] and code == 0

    # promote_to_global: the same id, scope global, promoted_from; this copy lost its quest_id,
    # so its origin comes from promoted_from
    quests["002"].card(
        "global",
        "Warm restarts hide divergence",
        card_id=card_id,
        quest_id=None,
        promoted_from={"quest_root": str(quests["002"].root), "path": "memory/knowledge/warm.md"},
        **lesson,
    )
    code, out = gate_json("check", str(quests["002"].root))
    assert code == 0 and out["findings"] == []  # promoted: no more warning
    code, out = gate_json("lineage", "--home", str(home), str(quests["002"].root))
    assert code == 0 and out["findings"] == []
    assert sorted(c["scope"] for c in out["cards"]) == ["global", "quest"]
    assert {c["card_id"] for c in out["cards"]} == {card_id}  # two files, one id

    # a promoted copy whose lineage starts elsewhere still fails
    quests["002"].card(
        "global",
        "Promoted elsewhere",
        quest_id=None,
        claim="c",
        promoted_from={"quest_root": str(quests["002"].root), "path": "x.md"},
        lineage=[{"quest": "003", "run": runs["003"]}],
    )
    code, out = gate_json("lineage", "--home", str(home))
    assert rules(out) == [("lineage.not-origin", "promoted-elsewhere.md", "/lineage/0/quest")]


def test_quest_scope_cards_of_a_quest_outside_the_home_resolve_their_own_runs(tmp_path, home, gate_json) -> None:
    elsewhere = ExampleQuest(tmp_path / "scratch" / "q9", "q9").create()
    run = elsewhere.run(elsewhere.root, "main-001")
    elsewhere.card("quest", "Local lesson", claim="c", lineage=[{"quest": "q9", "run": run}])
    code, out = gate_json("lineage", "--home", str(home), str(elsewhere.root))
    assert code == 0, out["findings"]
    assert out["cards"][0]["path"] == str(elsewhere.root / "memory" / "knowledge" / "local-lesson.md")


def test_the_lineage_command_explains_a_missing_home_and_a_bad_revision(tmp_path, capsys) -> None:
    assert main(["lineage", "--home", str(tmp_path / "nowhere")]) == 2
    assert "no DeepScientist home" in capsys.readouterr().err


def test_check_follows_the_cards_a_review_wrote_into_global_memory(three, home, gate_json) -> None:
    quests, runs = three
    quest = quests["001"]
    written = quest.card(
        "global",
        "Lesson with a broken chain",
        claim="c",
        lineage=[{"quest": "001", "run": runs["001"]}, {"quest": "002", "run": "main-999"}],
    )
    quest.review(
        quest.root,
        [runs["001"]],
        cards=[{"card_id": written, "scope": "global", "action": "new", "target_run_id": runs["001"]}],
    )
    code, out = gate_json("closure", str(quest.root))
    assert code == 1
    assert out["pending_run_ids"] == []  # the review covers the run ...
    assert rules(out) == [
        ("lineage.unknown-run", "lesson-with-a-broken-chain.md", "/lineage/1/run")
    ]  # ... its card fails
    assert out["home"] == str(home)
    assert out["findings"][0]["path"] == str(home / "memory" / "knowledge" / "lesson-with-a-broken-chain.md")


def test_text_output_names_the_card_line_rule_and_hint(three, home, capsys) -> None:
    quests, runs = three
    quests["003"].card("global", "Borrowed lesson", claim="c", lineage=[{"quest": "001", "run": runs["001"]}])
    assert main(["lineage", "--home", str(home)]) == 1
    out = capsys.readouterr().out
    assert "memory/knowledge/borrowed-lesson.md:4: error [lineage.not-origin]" in out
    assert "hint: put the origin first" in out and "Traceback" not in out


def test_home_from_the_environment(three, home, gate_json, monkeypatch) -> None:
    quests, runs = three
    quests["003"].card("global", "Borrowed lesson", claim="c", lineage=[{"quest": "001", "run": runs["001"]}])
    monkeypatch.delenv("DEEPSCIENTIST_HOME")
    monkeypatch.setenv("DS_HOME", str(home))
    code, out = gate_json("lineage")
    assert code == 1 and out["home"] == str(Path(home).resolve())


def test_without_a_home_links_to_other_quests_are_one_warning(tmp_path, gate_json) -> None:
    # a CI clone of one quest: its own runs resolve, other quests are simply not there
    quest = ExampleQuest(tmp_path / "clone" / "001", "001").create()
    run = quest.run(quest.root, "main-001")
    quest.card(
        "quest",
        "Local lesson",
        claim="c",
        lineage=[{"quest": "001", "run": run}, {"quest": "002", "run": "run-1"}, {"quest": "001", "run": "main-404"}],
    )
    code, out = gate_json("check", str(quest.root), "--home", str(tmp_path / "no-home"))
    assert code == 1
    assert sorted((f["rule"], f["severity"], f["pointer"]) for f in out["findings"]) == [
        ("card.home-missing", "warning", ""),
        ("card.quest-scope-lesson", "warning", ""),
        ("lineage.unknown-run", "error", "/lineage/2/run"),  # its own quest is still checked
    ]
    assert "lineage links to quest 002" in next(
        f["message"] for f in out["findings"] if f["rule"] == "card.home-missing"
    )


@pytest.mark.slow
def test_a_quest_finds_the_home_it_lies_in_when_nothing_names_one(tmp_path, monkeypatch) -> None:
    """Issue 14: ``<tmp>/DS/quests/001`` with ``HOME`` elsewhere and no variables is in ``<tmp>/DS``."""
    import json as _json
    import subprocess
    import sys

    from ds_gate.demo.example_quest import ExampleQuest

    home = tmp_path / "DS"
    quest = ExampleQuest(home / "quests" / "001").create()
    run = quest.run(quest.root, "main-001")
    quest.review(quest.root, [run])  # writes a global lesson into <tmp>/DS/memory and names it
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    for name in ("DEEPSCIENTIST_HOME", "DS_HOME"):
        monkeypatch.delenv(name, raising=False)
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "check", str(quest.root), "--format", "json"], capture_output=True, text=True
    )
    out = _json.loads(done.stdout)
    assert done.returncode == 0 and out["home"] == str(home.resolve())
    assert "card.home-missing" not in {f["rule"] for f in out["findings"]}
    lineage = subprocess.run(
        [sys.executable, "-m", "ds_gate", "lineage", "001", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=home / "quests",
    )
    assert lineage.returncode == 0, lineage.stderr
    assert _json.loads(lineage.stdout)["home"] == str(home.resolve())
