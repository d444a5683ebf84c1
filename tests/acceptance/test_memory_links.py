"""Issue 37.2, break s4-1: every memory root is contained by its own memory folder.

``<home>/memory`` holds the global cards, ``<quest>/memory`` a quest's, and a card, kind folder
or idea folder whose real path leaves its own memory folder is never followed, even when the
target lies in the same home or quest: a link in the global memory to quest B's card would
otherwise show B's card to quest A, labelled global, on an ``independent`` home. Each case runs
on every in-process recall surface (API, CLI, the agent's tool, the integration's answer), once
through ``ds-gate mcp`` with the real MCP SDK client, and through the gate's own reading of the
global cards (a review cannot be covered by a card linked in from another quest). Real git
quests, a real home, real links.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mcp import connect, drive, payload
from test_recall_visibility import every_surface, rows
from visibility_home import HIDDEN, SHARED, TAG, assert_hidden, configure, ids, plant

from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.recall.api import recall

pytestmark = pytest.mark.usefixtures("fresh_recall_indexes")

B_CARD = "quests/B/memory/knowledge/b-private-routing.md"  # under the home
GLOBAL_CARD = "memory/knowledge/global-routing-lesson.md"


def link(at: Path, target: str | Path) -> Path:
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(target, target_is_directory=not str(target).endswith(".md"))
    return at


# Each case plants links on the planted home and returns the links a note must name; the
# expected cards follow (A's recall on an independent home, unless the case says shared).
Planted = Callable[[Path, dict[str, Path]], list[Path]]


def global_card_to_b(home: Path, quests: dict[str, Path]) -> list[Path]:  # the reproducer's case
    return [link(home / "memory/knowledge/shared.md", f"../../{B_CARD}")]


def global_kind_folder_to_b(home: Path, quests: dict[str, Path]) -> list[Path]:
    return [link(home / "memory/papers", "../quests/B/memory/knowledge")]


def global_idea_folder_to_b(home: Path, quests: dict[str, Path]) -> list[Path]:
    return [link(home / "memory/ideas/idea-1", "../../quests/B/memory/knowledge")]


def chain_in_the_global_memory(home: Path, quests: dict[str, Path]) -> list[Path]:
    """one.md -> two.md (inside the memory) -> B's card: the whole chain is resolved."""
    two = link(home / "memory/knowledge/two.md", f"../../{B_CARD}")
    return [link(home / "memory/knowledge/one.md", "two.md"), two]


def quest_card_into_the_global_memory(home: Path, quests: dict[str, Path]) -> list[Path]:
    return [link(quests["A"] / "memory/knowledge/g.md", home / GLOBAL_CARD)]


def quest_card_into_a_sibling(home: Path, quests: dict[str, Path]) -> list[Path]:
    return [link(quests["A"] / "memory/knowledge/s.md", "../../../B/memory/knowledge/b-private-routing.md")]


def quest_card_into_its_own_notes(home: Path, quests: dict[str, Path]) -> list[Path]:
    """Inside the quest but out of its memory folder: a card is read only from where cards live."""
    (quests["A"] / "notes").mkdir()
    (quests["A"] / "notes/n.md").write_text(f"---\nid: k-note\ntags: [{TAG}]\n---\nA private note.\n")
    return [link(quests["A"] / "memory/knowledge/n.md", "../../notes/n.md")]


def global_memory_folder_is_a_link(home: Path, quests: dict[str, Path]) -> list[Path]:
    shutil.rmtree(home / "memory")
    return [link(home / "memory", "quests/B/memory")]


def quest_memory_folder_is_a_link(home: Path, quests: dict[str, Path]) -> list[Path]:
    shutil.rmtree(quests["A"] / "memory")
    return [link(quests["A"] / "memory", "../B/memory")]


CASES: dict[str, tuple[Planted, set[str]]] = {
    "global card to B's card": (global_card_to_b, {"k-a", "k-global"}),
    "global kind folder to B's": (global_kind_folder_to_b, {"k-a", "k-global"}),
    "global idea folder to B's": (global_idea_folder_to_b, {"k-a", "k-global"}),
    "a chain of links": (chain_in_the_global_memory, {"k-a", "k-global"}),
    "quest card into the global memory": (quest_card_into_the_global_memory, {"k-a", "k-global"}),
    "quest card into a sibling": (quest_card_into_a_sibling, {"k-a", "k-global"}),
    "quest card into its own notes": (quest_card_into_its_own_notes, {"k-a", "k-global"}),
    "the global memory folder a link": (global_memory_folder_is_a_link, {"k-a"}),
    "the quest memory folder a link": (quest_memory_folder_is_a_link, {"k-global"}),
}


@pytest.fixture
def quests(home: Path, tmp_path: Path) -> dict[str, Path]:
    return plant(home, tmp_path / "outside")


def notes_of(result: Any) -> str:
    if isinstance(result, list):
        return ""  # the API's list has no place for notes (recall() carries them)
    return " ".join(result["notes"])


def links_named(result: Any, links: list[Path]) -> None:
    """The note names each link by its own path, and says why it was not recalled."""
    notes = notes_of(result)
    if isinstance(result, list):
        return
    assert "not recalled:" in notes and "symbolic link out of its memory folder" in notes, notes
    for path in links:
        assert str(path) in notes, (path, notes)


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_link_brings_a_card_in_from_outside_its_memory_folder(home, quests, capsys, case) -> None:
    plant_links, expected = CASES[case]
    links = plant_links(home, quests)
    configure(home, HIDDEN["independent"])
    for surface, result in every_surface(home, quests["A"], capsys).items():
        assert ids(rows(result)) == expected, (case, surface)
        assert_hidden(result, f"{case}: {surface}")
        text = json.dumps(result)
        assert "k-note" not in text and "A private note" not in text and "/notes/" not in text, (case, surface)
        for row in rows(result):  # every card (and each copy folded into it) lies in its scope's memory
            for copy in [row, *row.get("copies", [])]:
                assert "/memory/" in copy["path"] and not any(str(p) == copy["path"] for p in links), copy
                assert (copy["card_id"], copy["scope"]) in {("k-a", "quest"), ("k-global", "global")}, copy
        links_named(result, links)


def test_a_siblings_link_is_not_followed_on_a_shared_home(home, quests, capsys) -> None:
    """On a shared home B's cards are seen, but never what B's memory links to: C's card (C, with no
    quest.yaml, is no quest) nor the global card, which would come back labelled as B's."""
    to_c = link(quests["B"] / "memory/knowledge/c.md", "../../../C/memory/knowledge/c-loose-routing.md")
    to_global = link(quests["B"] / "memory/knowledge/g.md", home / GLOBAL_CARD)
    configure(home, SHARED["shared_across_quests"])
    for surface, result in every_surface(home, quests["A"], capsys).items():
        found = rows(result)
        assert ids(found) == {"k-a", "k-b", "k-global"}, surface
        for row in found:
            for copy in [row, *row.get("copies", [])]:
                assert copy["path"] not in (str(to_c), str(to_global)), (surface, copy)
                assert copy["card_id"] != "k-global" or copy["scope"] == "global", (surface, copy)
        assert "k-c" not in json.dumps(result)
        links_named(result, [to_c, to_global])


def test_a_link_that_stays_in_its_memory_folder_is_recalled(home, quests) -> None:
    """The containment is the memory folder, no narrower: a card linked to another file of the same
    memory folder is that folder's card, as before."""
    (home / "memory/archive").mkdir()
    (home / "memory/archive/kept.md").write_text(f"---\nid: k-kept\ntags: [{TAG}]\n---\nKept in the memory.\n")
    link(home / "memory/knowledge/kept.md", "../archive/kept.md")
    found = recall([TAG], home=home, quest=quests["A"])
    assert ids(found["results"]) == {"k-a", "k-global", "k-kept"}
    assert not any("not recalled" in note for note in found["notes"])


def test_a_hard_link_is_read_as_the_file_it_is(home, quests) -> None:
    """docs/threat-model.md: a hard link is a second name of one file, which no reader can tell from
    the file; ds-gate reads it as a card of the folder it lies in, as main's memory service does
    (writing one takes the same access as copying the card there)."""
    os.link(home / B_CARD, home / "memory/knowledge/hard.md")
    found = recall([TAG], home=home, quest=quests["A"])
    hard = [r for r in found["results"] if r["card_id"] == "k-b"]
    assert [(r["scope"], r["path"]) for r in hard] == [("global", str(home / "memory/knowledge/hard.md"))]


def test_the_gate_never_takes_a_global_card_linked_in_from_another_quest(home, tmp_path, gate_json) -> None:
    """The gate reads the global cards for lineage, duplicates and the cards a review wrote: the
    same containment holds, so a review is not covered by another quest's card linked into the
    global memory (on main's code it was read as a global card)."""
    a = ExampleQuest(home / "quests" / "A", "A").create()
    b = ExampleQuest(home / "quests" / "B", "B").create()
    run = a.run(a.root, "main-001")
    b.card("quest", "B private routing", card_id="knowledge-b", claim="c", lineage=[{"quest": "A", "run": run}])
    planted = link(home / "memory/knowledge/lesson.md", f"../../{B_CARD}")
    a.review(
        a.root, [run], cards=[{"card_id": "knowledge-b", "scope": "global", "action": "new", "target_run_id": run}]
    )
    code, out = gate_json("closure", str(a.root))
    assert code == 1
    found = {(f["rule"], f["path"]) for f in out["findings"]}
    assert ("path.symlink-outside-quest", str(planted)) in found
    assert any(rule == "review.missing-card" for rule, _ in found), found
    assert "B private" not in json.dumps(out) and "b-private-routing" not in json.dumps(out)


# ---------------------------------------------------------------- any link, anywhere

PLACES = {  # where a link is planted: (owner, path under it)
    "global card": ("home", "memory/knowledge/l.md"),
    "global kind folder": ("home", "memory/templates"),
    "global idea folder": ("home", "memory/ideas/i"),
    "quest card": ("A", "memory/knowledge/l.md"),
    "quest kind folder": ("A", "memory/templates"),
    "quest idea folder": ("A", "memory/ideas/i"),
}
TARGETS = {  # what it points to, under the home: a card or a folder of cards
    "B's card": B_CARD,
    "B's knowledge": "quests/B/memory/knowledge",
    "A's card": "quests/A/memory/knowledge/a-routing-lesson.md",
    "A's knowledge": "quests/A/memory/knowledge",
    "the global card": GLOBAL_CARD,
    "the global knowledge": "memory/knowledge",
    "C's card": "quests/C/memory/knowledge/c-loose-routing.md",
    "a file of the home": "loose.md",
}


@pytest.fixture(scope="module")
def planted_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    root = tmp_path_factory.mktemp("links")
    home = root / "home"
    quests = plant(home, root / "outside")
    (home / "loose.md").write_text(f"---\nid: k-loose\ntags: [{TAG}]\n---\nNot in any memory.\n")
    configure(home, HIDDEN["independent"])
    return home, quests


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    planted=st.lists(
        st.tuples(st.sampled_from(sorted(PLACES)), st.sampled_from(sorted(TARGETS)), st.booleans(), st.integers(0, 2)),
        min_size=1,
        max_size=3,
        unique_by=lambda t: t[0],
    )
)
def test_any_link_in_any_memory_folder_stays_in_its_folder(planted_home, planted) -> None:
    """Whatever links a quest or the home holds (to a card or a folder, relative or absolute, through
    a chain of links inside the memory folder), every recalled card lies in the memory folder of its
    scope, nothing of B or C is seen, and each card or folder reached through a link out is named."""
    home, quests = planted_home
    owners = {"home": home, "A": quests["A"]}
    made: list[Path] = []
    try:
        for place, target, relative, hops in planted:
            owner, under = PLACES[place]
            at = owners[owner] / under
            goal: str | Path = home / TARGETS[target]
            if relative:
                goal = os.path.relpath(goal, at.parent)
            for hop in range(hops):  # a chain: each hop another link in the same memory folder
                step = owners[owner] / "memory" / f"hop-{place.replace(' ', '-')}-{hop}{'.md' if at.suffix else ''}"
                made.append(link(step, goal))
                goal = step
            made.append(link(at, goal))
        found = recall([TAG], home=home, quest=quests["A"], refresh=True, cache=False)
        memory = {"global": os.path.realpath(home / "memory"), "quest": os.path.realpath(quests["A"] / "memory")}
        for row in found["results"]:
            for copy in [row, *row.get("copies", [])]:
                assert copy["scope"] in memory, copy
                real = os.path.realpath(copy["path"])
                assert os.path.commonpath([memory[copy["scope"]], real]) == memory[copy["scope"]], copy
                assert copy["card_id"] in {"k-a", "k-global"}, copy
        assert_hidden(found, repr(planted))
    finally:
        for path in reversed(made):
            path.unlink()


@pytest.mark.slow
def test_ds_gate_mcp_does_not_follow_the_link(home: Path, tmp_path: Path) -> None:
    """The reproducer through ``ds-gate mcp`` and the real MCP SDK client."""
    quests = plant(home, tmp_path / "outside")
    [planted] = global_card_to_b(home, quests)
    configure(home, HIDDEN["independent"])
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(quests["A"], errlog) as session:
            result = payload(await session.call_tool("list_knowledge_summaries", {"domain_tags": [TAG]}))
            assert ids(result["results"]) == {"k-a", "k-global"}
            assert_hidden(result, "ds-gate mcp")
            links_named(result, [planted])

    drive(scenario, errlog)
