"""Issue 37.2: the home's quirks files as recall entries (``recall.quirks``), and the home's
``memory.read_visibility_mode`` as main reads it (``sources.visibility``), on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from ds_gate.kernel.errors import QuestError
from ds_gate.recall.entries import MAX_RECALL_CARDS, Budget
from ds_gate.recall.quirks import PREAMBLES, read_quirks, split_entries
from ds_gate.recall.visible import plan
from ds_gate.sources.visibility import INDEPENDENT, SHARED, normalize_mode, read_visibility, sibling_quests

FRAMEWORK = "\n\n".join(PREAMBLES["framework"]) + "\n"


def test_main_s_preamble_alone_is_no_entry_and_entries_split_at_headings() -> None:
    assert split_entries(FRAMEWORK) == []
    assert split_entries("\n\n".join(PREAMBLES["system"])) == []
    text = FRAMEWORK + "\n## first\nline one\n\nline two\n### second\nbody\n#### detail\nmore\n"
    assert [(n, h) for n, h, _ in split_entries(text)] == [(9, "first"), (13, "second")]
    assert split_entries(text)[0][2] == "## first\nline one\n\nline two"
    assert "#### detail" in split_entries(text)[1][2]  # a deeper heading is part of its entry


def test_loose_text_is_one_entry_a_block_and_fenced_code_never_splits() -> None:
    text = FRAMEWORK + "\nSurface: a. Symptom: b.\nWorkaround: c.\n\nSurface: d.\n"
    assert [body for _, _, body in split_entries(text)] == ["Surface: a. Symptom: b.\nWorkaround: c.", "Surface: d."]
    fenced = "## the entry\n```\n## not a heading\n\nstill code\n```\nafter\n"
    [(line, heading, body)] = split_entries(fenced)
    assert (line, heading) == (1, "the entry") and body.endswith("after")
    # an edited preamble keeps the paragraphs that are still main's out; a level-1 heading of an agent's leads an entry
    edited = "# Framework Quirks\n\nOur own intro.\n\n" + PREAMBLES["framework"][1] + "\n\n# Agent's entry\ntext\n"
    assert [(h, b) for _, h, b in split_entries(edited)] == [
        (None, "Our own intro."),
        ("Agent's entry", "# Agent's entry\ntext"),
    ]


def test_entries_have_stable_ids_tags_and_places_and_spend_the_budget(tmp_path: Path) -> None:
    path = tmp_path / "system_quirks.md"
    path.write_text("\n\n".join(PREAMBLES["system"]) + "\n\n## Expected x, got y\nWorkaround: z.\n")
    [entry], problems = read_quirks(path, Budget())
    assert problems == []
    assert entry.card_id.startswith("quirk-system-") and len(entry.card_id) == len("quirk-system-") + 8
    assert (entry.title, entry.kind, entry.scope, entry.tags) == (
        "Expected x, got y",
        "quirks",
        "home_quirks",
        ("quirk", "system"),
    )
    assert entry.path == f"{path}:9" and entry.updated_at and entry.content() == "Workaround: z."
    assert read_quirks(path, Budget())[0][0].card_id == entry.card_id
    with pytest.raises(QuestError, match="recall holds at most"):
        read_quirks(path, Budget(cards=MAX_RECALL_CARDS))
    assert read_quirks(tmp_path / "framework_quirks.md", Budget()) == ([], [])  # not there: nothing
    (tmp_path / "framework_quirks.md").symlink_to(path)
    assert read_quirks(tmp_path / "framework_quirks.md", Budget()) == ([], [])  # a link: never read


@pytest.mark.parametrize(
    ("value", "mode"),
    [
        ("shared_across_quests", SHARED),
        (" Shared_Across_Quests\n", SHARED),
        ("independent", INDEPENDENT),
        ("shared-across-quests", INDEPENDENT),
        ("", INDEPENDENT),
        (None, INDEPENDENT),
        (True, INDEPENDENT),
        (10**5000, INDEPENDENT),  # str() of it raises: never turned into text
        (["shared_across_quests"], INDEPENDENT),
    ],
    ids=range(9),  # pytest's own id of 10**5000 is str() of it, which raises
)
def test_the_mode_is_normalised_as_main_normalises_it(value: object, mode: str) -> None:
    assert normalize_mode(value) == mode


def test_config_forms_that_main_reads_as_its_defaults(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    config = tmp_path / "config" / "config.yaml"
    for text, origin in (
        ("", "default"),
        ("- a list\n", "default"),
        ("memory: shared_across_quests\n", "default"),
        ("memory: {}\n", "default"),
        ("memory: {read_visibility_mode: null}\n", "config"),
        ("memory: {read_visibility_mode: shared_across_quests}\n", "config"),
    ):
        config.write_text(text)
        seen = read_visibility(tmp_path)
        assert seen.origin == origin and seen.mode == (SHARED if "mode: shared" in text else INDEPENDENT), text
    config.unlink()
    config.mkdir()  # a folder in its place: cannot be read, the narrower view
    seen = read_visibility(tmp_path)
    assert seen.origin == "fallback" and "cannot be read" in (seen.note or "")


def test_siblings_are_the_quest_folders_holding_a_quest_yaml_of_their_own(tmp_path: Path) -> None:
    home, outside = tmp_path / "home", tmp_path / "outside"
    for name in ("A", "B", "C", "E"):
        (home / "quests" / name).mkdir(parents=True)
    for name in ("A", "B"):
        (home / "quests" / name / "quest.yaml").write_text("quest_id: x\n")
    outside.mkdir()
    (outside / "quest.yaml").write_text("quest_id: e\n")
    (home / "quests" / "E" / "quest.yaml").symlink_to(outside / "quest.yaml")  # leads out of E: no quest of the home
    (home / "quests" / "L").symlink_to(home / "quests" / "B", target_is_directory=True)
    found, notes = sibling_quests(home, home / "quests" / "A")
    assert [p.name for p in found] == ["B"] and any("quests/L is a symbolic link" in n for n in notes)
    everything, _ = sibling_quests(home, None, initialized=False)
    assert [p.name for p in everything] == ["A", "B", "C", "E"]


def test_a_quirks_file_over_the_file_limit_is_passed_over_with_a_note(tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.yaml").write_text("memory: {read_visibility_mode: shared_across_quests}\n")
    (home / "framework_quirks.md").write_text(FRAMEWORK + "\n## big\n" + "x" * 2_000_000 + "\n")
    (home / "system_quirks.md").write_text("## small\nfine\n")
    monkeypatch.setenv("DS_GATE_MAX_FILE_MB", "1")
    seen = plan(home, None, "visible", "follow")
    assert seen.quirks == [home / "system_quirks.md"]
    assert any("framework_quirks.md is over 1 MB" in note for note in seen.notes)
    assert read_quirks(home / "framework_quirks.md", Budget()) == ([], [])  # and its reader never holds it
