"""The neighbour rules (issue 37): a neighbour decision names a card the quest can see, a patch
decision has its patch entry, and a near-duplicate new card is weighed against its twin. Cards in
memory (``rulecases``); main's ``sharedmemory::`` ids and the home's visibility on real files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ds_gate.model.records import Card
from ds_gate.rules.cards import CardIndex
from ds_gate.rules.neighbours import TagIndex, claim_overlap, neighbour_findings
from ds_gate.sources.shared_memory import DocumentId, Neighbourhood, document_id
from ds_gate.sources.visibility import INDEPENDENT, SHARED, read_visibility

from rulecases import ROOT, RUN_ID, card, decision, fired, review_data

FAILS = {"review.neighbor-missing-card", "review.neighbor-patch-unwritten", "review.near-duplicate-card"}
PASSES = set(FAILS)

CLAIM = "lower router temperature stabilises training of the sparse mixture model on long runs"
ONE_WORD = "smaller router temperature stabilises training of the sparse mixture model on long runs"
HOME = ROOT.parent.parent  # /nowhere: rulecases' global cards lie in /nowhere/memory


def neighbour(candidate: str, decision_: str = "neighbor_but_separate", **extra: Any) -> dict[str, Any]:
    return {"candidate_card_id": candidate, "decision": decision_, "target_run_id": RUN_ID, "reason": "r", **extra}


def lesson(card_id: str, claim: str, tags: list[str], name: str, scope: str = "global") -> Card:
    display = f"memory/knowledge/{name}.md" if scope == "global" else f"quests/001/memory/knowledge/{name}.md"
    meta = {"id": card_id, "title": name, "claim": claim, "tags": tags}
    return card(meta, scope=scope, body=f"Context: {name}.", display=display)


def judge(
    review: dict[str, Any],
    own: list[Card] = (),  # type: ignore[assignment]
    glob: list[Card] | None = (),  # type: ignore[assignment]
    home: Path = HOME,
    closing: bool = True,
) -> list[Any]:
    own_index = CardIndex(own)
    glob_index = CardIndex(glob) if glob is not None else None
    place = Neighbourhood(home, glob is not None, ROOT, "001", own, glob)
    tables = [TagIndex(own), *([TagIndex(glob)] if glob else []), TagIndex(place.siblings())]
    return neighbour_findings([decision(review)], own_index, glob_index, place, lambda: tables, closing).findings


def test_main_document_ids_are_read_as_main_reads_them() -> None:
    assert document_id("knowledge-1") is None
    assert document_id(" memory::knowledge/x.md ") == DocumentId(None, "knowledge/x.md")
    assert document_id("sharedmemory::B::/knowledge/x.md") == DocumentId("B", "knowledge/x.md")  # main's lstrip("/")
    assert "not main's sharedmemory" in str(document_id("sharedmemory::B::"))
    assert "not a quest id" in str(document_id("sharedmemory::..::knowledge/x.md"))
    assert "without '..'" in str(document_id("sharedmemory::B::knowledge/../../../etc/passwd"))
    assert "without '..'" in str(document_id("memory::../x.md"))


@given(st.text(alphabet=st.sampled_from(list("ab./:\\\0 sharedmemoy")), max_size=40))
def test_a_document_id_never_leads_out_of_its_memory_folder(text: str) -> None:
    """Whatever the quest writes, a path id resolves inside ``<home>/quests/<quest>/memory`` (or
    the quest's or home's ``memory``), or is refused with a reason; it never raises."""
    doc = document_id(text)
    if isinstance(doc, DocumentId):
        base = Path("/h/quests") / (doc.quest or "q") / "memory"
        resolved = Path(os.path.normpath(base / doc.rel))
        assert resolved.is_relative_to(base) and resolved != base, (text, doc)


def test_a_neighbour_decision_names_a_card_that_exists_where_it_says() -> None:
    existing = card({"id": "knowledge-0", "title": "t"}, display="memory/knowledge/o.md")
    written = card({"id": "knowledge-1", "title": "w"})
    assert judge(review_data(neighbor_decisions=[neighbour("knowledge-0")]), glob=[existing, written]) == []
    [missing] = judge(review_data(neighbor_decisions=[neighbour("knowledge-9")]), glob=[existing, written])
    assert (
        missing.rule == "review.neighbor-missing-card" and missing.pointer == "/neighbor_decisions/0/candidate_card_id"
    )
    assert "no card this quest can see has that id" in missing.message and missing.line is not None
    # a scope that is not where the card lies: the scope to set
    [wrong] = judge(review_data(neighbor_decisions=[neighbour("knowledge-0", scope="quest")]), glob=[existing, written])
    assert "(it is in the global memory)" in wrong.message and wrong.hint.startswith("set scope: global")
    [bad] = judge(review_data(neighbor_decisions=[neighbour("knowledge-0", scope="home")]), glob=[existing, written])
    assert "claims scope 'home'" in bad.message
    # main's memory:: document id, by path under the global memory
    assert judge(review_data(neighbor_decisions=[neighbour("memory::knowledge/o.md")]), glob=[existing, written]) == []
    [gone] = judge(review_data(neighbor_decisions=[neighbour("memory::knowledge/p.md")]), glob=[existing, written])
    assert "there is no knowledge/p.md in the quest or global memory" in gone.message


def test_without_a_home_a_global_neighbour_is_not_judged() -> None:
    assert judge(review_data(cards_written=[], neighbor_decisions=[neighbour("knowledge-9")]), glob=None) == []


def test_check_shows_them_as_warnings() -> None:
    [found] = judge(review_data(neighbor_decisions=[neighbour("knowledge-9")]), closing=False)
    assert found.severity == "warning" and "closure and finalization fail on it" in found.hint


def test_a_patch_decision_has_its_patch_entry() -> None:
    target = card({"id": "knowledge-0", "title": "t"}, display="memory/knowledge/o.md")
    decided = [neighbour("knowledge-0", "patch")]
    [unwritten] = judge(review_data(neighbor_decisions=decided), glob=[target, card({"id": "knowledge-1"})])
    assert unwritten.rule == "review.neighbor-patch-unwritten" and unwritten.pointer == "/neighbor_decisions/0/decision"
    assert "'action': 'patch'" in unwritten.hint
    patched = [{"card_id": "knowledge-0", "scope": "global", "action": "patch", "target_run_id": RUN_ID}]
    assert judge(review_data(cards_written=patched, neighbor_decisions=decided), glob=[target]) == []
    # a path id: the id of the card it leads to
    by_path = [neighbour("memory::knowledge/o.md", "patch")]
    assert judge(review_data(cards_written=patched, neighbor_decisions=by_path), glob=[target]) == []


def test_claims_say_the_same_when_equal_or_sharing_most_words() -> None:
    assert claim_overlap("Lower  is STEADIER.", "lower is steadier.") == 1.0
    assert claim_overlap(CLAIM, ONE_WORD) == pytest.approx(12 / 14)
    assert claim_overlap("lower temperature helps", "higher temperature helps") is None  # 2/4
    assert claim_overlap("", CLAIM) is None


@pytest.mark.parametrize(
    "other",
    [
        "a learned InfoNCE temperature does not beat a fixed 0.07 on the retrieval benchmark at every batch size",
        "a learned InfoNCE temperature doesn't beat a fixed 0.07 on the retrieval benchmark at every batch size",
        "a learned InfoNCE temperature never beats a fixed 0.07 on the retrieval benchmark at every batch size",
        "a learned InfoNCE temperature beat a fixed 0.05 on the retrieval benchmark at every batch size",
    ],
)
def test_a_claim_that_says_the_opposite_or_another_number_is_no_near_duplicate(other: str) -> None:
    """Adversary s4 weakness 06: "does not help" scored 0.93 against "helps", "500 vs 5000 steps" 0.87;
    flagged, a legitimate review could not close until it named a card it contradicts."""
    claim = "a learned InfoNCE temperature beat a fixed 0.07 on the retrieval benchmark at every batch size"
    assert claim_overlap(claim, other) is None
    assert claim_overlap("学习率预热有帮助", "学习率预热没有帮助") is None  # 没: not


def test_a_near_duplicate_new_card_needs_a_neighbour_decision() -> None:
    old = lesson("knowledge-0", CLAIM, ["Topic: Router", "stage:experiment"], "old")
    new = lesson("knowledge-1", ONE_WORD, ["topic:router", "Stage: Experiment", "topic:router"], "new")
    [near] = judge(review_data(), glob=[old, new])
    assert near.rule == "review.near-duplicate-card" and near.pointer == "/cards_written/0"
    assert "knowledge-0" in near.message and "0.86 of the claim words shared" in near.message
    assert "'candidate_card_id': 'knowledge-0'" in near.hint and f"'target_run_id': '{RUN_ID}'" in near.hint
    assert judge(review_data(neighbor_decisions=[neighbour("knowledge-0")]), glob=[old, new]) == []
    # named by main's document id of the quest card: the same
    quest_old = lesson("knowledge-0", CLAIM, ["topic:router", "stage:experiment"], "old", scope="quest")
    quest_old.path = ROOT / "memory" / "knowledge" / "old.md"
    assert judge(review_data(neighbor_decisions=[neighbour("memory::knowledge/old.md")]), [quest_old], [new]) == []
    assert fired(judge(review_data(), [quest_old], [new])) == ["review.near-duplicate-card"]
    # other tags, or a claim that says something else: no twin
    assert judge(review_data(), glob=[lesson("knowledge-0", CLAIM, ["topic:router"], "old"), new]) == []
    assert judge(review_data(), glob=[lesson("knowledge-0", "a different claim", old.meta["tags"], "old"), new]) == []


def test_a_pair_review_duplicate_card_reports_is_not_reported_twice() -> None:
    old = lesson("knowledge-0", CLAIM, ["topic:router"], "same")
    new = lesson("knowledge-1", CLAIM, ["topic:router"], "same")  # the same title: review.duplicate-card's
    assert judge(review_data(), glob=[old, new]) == []


# ---------------------------------------------------------------- the home's visibility, on real files


def _home(tmp_path: Path, mode: str | None) -> Path:
    home = tmp_path / "home"
    (home / "quests" / "001").mkdir(parents=True)
    if mode is not None:
        (home / "config").mkdir()
        (home / "config" / "config.yaml").write_text(mode)
    return home


@pytest.mark.parametrize(
    ("config", "mode"),
    [
        (None, INDEPENDENT),
        ("memory:\n  read_visibility_mode: shared_across_quests\n", SHARED),
        ("memory: {read_visibility_mode: ' Shared_Across_Quests '}\n", SHARED),
        ("memory: {read_visibility_mode: everyone}\n", INDEPENDENT),
        ("memory: [shared_across_quests\n", INDEPENDENT),  # not YAML: main would raise; the narrower view
        ("memory: {read_visibility_mode: null}\n", INDEPENDENT),
    ],
)
def test_the_homes_visibility_mode_as_main_normalises_it(tmp_path: Path, config: str | None, mode: str) -> None:
    assert read_visibility(_home(tmp_path, config)).mode == mode


def _sibling_card(home: Path, quest: str = "002", name: str = "x") -> Path:
    (home / "quests" / quest / "quest.yaml").parent.mkdir(parents=True, exist_ok=True)
    (home / "quests" / quest / "quest.yaml").write_text(f"quest_id: '{quest}'\n")
    path = home / "quests" / quest / "memory" / "knowledge" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nid: knowledge-{name}\ntitle: {name}\n---\nbody\n")
    return path


def _shared(home: Path, candidate: str, **extra: Any) -> list[Any]:
    review = review_data(cards_written=[], reason_if_empty="none", neighbor_decisions=[neighbour(candidate, **extra)])
    return judge(review, glob=[], home=home)


def test_another_quests_card_is_not_visible_in_an_independent_home_whether_or_not_it_exists(tmp_path: Path) -> None:
    home = _home(tmp_path, None)
    _sibling_card(home)
    [there] = _shared(home, "sharedmemory::002::knowledge/x.md")
    [absent] = _shared(home, "sharedmemory::002::knowledge/nothing.md")
    [no_quest] = _shared(home, "sharedmemory::999::knowledge/x.md")
    assert there.message.replace("x.md", "?") == absent.message.replace("nothing.md", "?")
    assert "names another quest's card, which this home's memory.read_visibility_mode 'independent'" in there.message
    assert there.hint == absent.hint == no_quest.hint and "x.md" not in there.hint
    # a plain id claimed in another quest: the same words
    [plain] = _shared(home, "knowledge-x", scope="shared_quest")
    assert plain.message.split(") ", 1)[1] == there.message.split(") ", 1)[1]
    assert fired(_shared(home, "knowledge-x")) == ["review.neighbor-missing-card"]  # never looked up in 002


def test_another_quests_card_counts_in_a_shared_home(tmp_path: Path) -> None:
    home = _home(tmp_path, "memory:\n  read_visibility_mode: shared_across_quests\n")
    _sibling_card(home)
    assert _shared(home, "sharedmemory::002::knowledge/x.md") == []
    assert _shared(home, "knowledge-x") == [] and _shared(home, "knowledge-x", scope="shared_quest") == []
    [absent] = _shared(home, "sharedmemory::002::knowledge/nothing.md")
    assert "there is no" in absent.message and "nothing.md" in absent.message
    # a link out of the home is never followed; a quest folder without quest.yaml is no sibling
    outside = tmp_path / "outside.md"
    outside.write_text("---\nid: knowledge-out\n---\n")
    os.symlink(outside, home / "quests" / "002" / "memory" / "knowledge" / "out.md")
    [out] = _shared(home, "sharedmemory::002::knowledge/out.md")
    assert "leads out of that quest's memory folder" in out.message and str(outside) not in out.message
    (home / "quests" / "002" / "notes").mkdir()  # nor a link into its own quest folder, out of its memory
    (home / "quests" / "002" / "notes" / "n.md").write_text("---\nid: knowledge-note\n---\n")
    os.symlink("../../notes/n.md", home / "quests" / "002" / "memory" / "knowledge" / "n.md")
    [note] = _shared(home, "sharedmemory::002::knowledge/n.md")
    assert "leads out of that quest's memory folder" in note.message
    os.symlink("002", home / "quests" / "009")  # a quest folder that is a link: its memory is not read
    [linked] = _shared(home, "sharedmemory::009::knowledge/x.md")
    assert "is a symbolic link; not followed" in linked.message
    _sibling_card(home, "003", "y")
    (home / "quests" / "003" / "quest.yaml").unlink()
    assert fired(_shared(home, "knowledge-y")) == ["review.neighbor-missing-card"]
    # this quest's own sharedmemory id: its own memory
    own = card({"id": "knowledge-own"}, scope="quest", display="memory/knowledge/own.md")
    own.path = ROOT / "memory" / "knowledge" / "own.md"
    review = review_data(
        cards_written=[], reason_if_empty="n", neighbor_decisions=[neighbour("sharedmemory::001::knowledge/own.md")]
    )
    assert judge(review, [own], [], home=home) == []
