"""Memory cards on a real filesystem: how ds-gate reads them and how it validates them.

Cards are the output of experience distillation, so every other card rule stands on this
reader. Real DeepScientist homes hold more shapes than today's MemoryService writes
(system notes without frontmatter, legacy "dual frontmatter" cards, tags stored raw by
older forks, unquoted YAML scalars, promoted copies sharing an id, a stale append-only
``_index.jsonl``), and they are user-writable files, so hostile YAML (alias bombs,
``!!python/object`` tags) and symbolic links out of the home must end in a finding,
never in a hang, code execution or a file read outside. Everything here is written to
disk and read back through the public functions or the in-process CLI; nothing is
mocked. See section 4 of deepscientist-quest-formats.md for the format.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.layout import kind_of
from ds_gate.model.records import Card
from ds_gate.rules.cards import card_findings, card_schema_findings
from ds_gate.sources.memory import (
    card_tags,
    jsonable,
    parse_card,
    read_cards,
    resolve_home,
)

KNOWLEDGE = """\
---
id: knowledge-f3e3bda8
type: knowledge
kind: knowledge
title: Router temperature matters
quest_id: '001'
tags:
- stage:experiment
- topic:routing
created_at: '2026-11-22T02:02:08+00:00'
updated_at: '2026-11-22T02:02:08+00:00'
scope: quest
---
Context: ...

Observation: ...
"""

# An experience card with four schema problems, one per line, so each finding's line
# number can be checked against the line it names.
BAD_EXPERIENCE = """\
---
id: knowledge-04942297
type: knowledge
claim: ''
lineage:
- quest: '001'
  note: no run here
- just a string
confidence: 1.5
scope: global
---
Body line.
"""


# ---------------------------------------------------------------- helpers


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def card_text(*lines: str, body: str = "Body.\n") -> str:
    return "---\n" + "".join(f"{line}\n" for line in lines) + "---\n" + body


def read_home(home: Path) -> tuple[list[Card], list]:
    return read_cards(home / "memory", scope="global", base=home)


def parse(text: str | bytes, kind: str = "knowledge") -> Card | None:
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return parse_card(
        raw, path=Path("/nowhere/memory") / kind / "x.md", display=f"memory/{kind}/x.md", scope="quest", kind=kind
    )


def rules(findings) -> list[str]:
    return [f.rule for f in findings]


def line_at(text: str, line: int | None) -> str:
    assert line is not None and line >= 1
    return text.split("\n")[line - 1]


@pytest.fixture
def writer(home: Path) -> ExampleQuest:
    """Writes cards as MemoryService does (no git needed for that)."""
    return ExampleQuest(home / "quests" / "001", "001")


# ---------------------------------------------------------------- frontmatter


def test_markdown_without_frontmatter_is_skipped_quietly(home: Path) -> None:
    write(home / "memory" / "knowledge" / "active-user-requirements.md", "# Active requirements\n\n- be brief\n")
    write(home / "memory" / "knowledge" / "rule-first.md", "Text\n---\nid: not-a-card\n---\n")
    cards, findings = read_home(home)
    assert cards == [] and findings == []
    assert parse("# just notes\n") is None
    assert parse("") is None


def test_a_real_card_reads_with_its_metadata_and_body(home: Path) -> None:
    write(home / "memory" / "knowledge" / "router-temperature-matters.md", KNOWLEDGE)
    (card,), findings = read_home(home)
    assert findings == [] and card_findings(card) == []
    assert card.card_id == "knowledge-f3e3bda8" and card.title == "Router temperature matters"
    assert card.kind == "knowledge" and card.scope == "global" and not card.broken
    assert card.display == "memory/knowledge/router-temperature-matters.md"
    assert card.meta["tags"] == ["stage:experiment", "topic:routing"]
    assert card.body == "Context: ...\n\nObservation: ...\n"
    assert not card.is_experience


def test_a_frontmatter_that_never_closes_is_a_finding_on_line_1(home: Path) -> None:
    write(home / "memory" / "knowledge" / "open.md", "---\nid: knowledge-1\ntitle: Never closed\n\nBody text.\n")
    (card,), findings = read_home(home)
    assert findings == [] and card.broken and card.meta == {}
    (finding,) = card_findings(card)
    assert finding.rule == "card.frontmatter-invalid" and finding.severity == "error"
    assert finding.line == 1 and finding.path == "memory/knowledge/open.md"
    assert "never closes" in finding.message


def test_invalid_yaml_is_a_finding_on_the_line_of_the_error(home: Path) -> None:
    text = card_text("id: knowledge-1", "title: a: b", "scope: quest")
    write(home / "memory" / "knowledge" / "bad.md", text)
    (card,), _ = read_home(home)
    (finding,) = card_findings(card)
    assert finding.rule == "card.frontmatter-invalid" and "not valid YAML" in finding.message
    assert line_at(text, finding.line) == "title: a: b"


def test_an_unclosed_flow_list_is_a_finding_with_a_line_inside_the_frontmatter() -> None:
    card = parse(card_text("id: knowledge-1", "tags: [a, b"))
    assert card is not None and card.broken
    (finding,) = card_findings(card)
    assert finding.rule == "card.frontmatter-invalid"
    assert finding.line is not None and 2 <= finding.line <= 4  # the stream ends at the closing `---`


def test_a_frontmatter_that_is_a_list_is_a_finding() -> None:
    card = parse(card_text("- id: knowledge-1", "- title: a list"))
    assert card is not None and card.broken
    (finding,) = card_findings(card)
    assert finding.rule == "card.frontmatter-invalid" and finding.line == 2
    assert "list" in finding.message


def test_crlf_and_a_byte_order_mark_read_like_plain_text() -> None:
    card = parse(b"\xef\xbb\xbf" + KNOWLEDGE.replace("\n", "\r\n").encode())
    assert card is not None and not card.broken
    assert card.card_id == "knowledge-f3e3bda8" and card.body == "Context: ...\n\nObservation: ...\n"


def test_a_card_that_is_not_utf8_is_a_finding() -> None:
    card = parse(b"---\nid: knowledge-1\ntitle: caf\xe9\n---\n")
    assert card is not None and rules(card_findings(card)) == ["card.frontmatter-invalid"]


# ---------------------------------------------------------------- legacy dual frontmatter


def test_a_legacy_second_block_fills_missing_keys_and_leaves_the_body() -> None:
    text = card_text(
        "id: knowledge-1",
        "title: First title",
        body="\n---\ntitle: Legacy title\nclaim: Warmup stabilises routing.\nlineage:\n- quest: '001'\n  run: run-1\n---\nBody.\n",
    )
    card = parse(text)
    assert card is not None and not card.broken
    assert card.meta["claim"] == "Warmup stabilises routing."  # filled from the legacy block
    assert card.meta["lineage"] == [{"quest": "001", "run": "run-1"}]
    assert card.title == "First title"  # the first block wins
    assert card.legacy_keys == {"claim", "lineage"}
    assert card.body == "Body.\n" and "Legacy title" not in card.body
    assert card.is_experience and card_findings(card) == []


def test_a_finding_on_a_legacy_key_points_into_the_second_block() -> None:
    text = card_text(
        "id: knowledge-1", "title: t", body="---\nlineage:\n- quest: '001'\n  run: run-1\nclaim: ''\n---\nBody.\n"
    )
    card = parse(text)
    assert card is not None
    (finding,) = card_findings(card)
    assert finding.rule == "card.experience-schema" and finding.pointer == "/claim"
    assert line_at(text, finding.line) == "claim: ''"


def test_a_rule_later_in_the_body_is_not_a_legacy_block() -> None:
    text = card_text("id: knowledge-1", body="Some text.\n---\nclaim: not metadata\n---\nMore.\n")
    card = parse(text)
    assert card is not None and "claim" not in card.meta
    assert card.body == "Some text.\n---\nclaim: not metadata\n---\nMore.\n"


def test_a_body_that_starts_with_a_rule_around_prose_keeps_its_text() -> None:
    card = parse(card_text("id: knowledge-1", body="---\nJust a horizontal rule around prose.\n---\nMore.\n"))
    assert card is not None and card.meta == {"id": "knowledge-1"}
    assert card.body.startswith("---\nJust a horizontal rule")


# ---------------------------------------------------------------- tags and scalars


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (["stage:experiment", "topic:routing"], ("stage:experiment", "topic:routing")),
        ("a, b, a", ("a", "b")),
        ('["a","b"]', ("a", "b")),
        ('["a", "b", "a"]', ("a", "b")),
        ("[not json, x]", ("[not json", "x]")),  # looks like a list, is not JSON: comma split
        ('{"a": 1}', ('{"a": 1}',)),
        ("[]", ()),
        (None, ()),
        ("", ()),
        ("   ", ()),
        ([" x ", "", "x", "y"], ("x", "y")),
        (["Topic:A", "topic:a", "Topic:A"], ("Topic:A", "topic:a")),  # exact duplicates only, no case folding
        ([1, "1", 2.5], ("1", "2.5")),
        ("stage:idea", ("stage:idea",)),
    ],
)
def test_card_tags_normalise_like_memory_service(value, expected) -> None:
    assert card_tags(value) == expected


def test_tags_in_every_stored_shape_validate(home: Path) -> None:
    shapes = {"list": "tags:\n- a\n- b", "comma": "tags: a, b, a", "json": 'tags: \'["a","b"]\'', "none": "tags: null"}
    for name, tags in shapes.items():
        write(home / "memory" / "knowledge" / f"{name}.md", card_text(f"id: knowledge-{name}", tags))
    cards, findings = read_home(home)
    assert findings == [] and len(cards) == 4
    assert {c.card_id: card_tags(c.meta.get("tags")) for c in cards} == {
        "knowledge-list": ("a", "b"),
        "knowledge-comma": ("a", "b"),
        "knowledge-json": ("a", "b"),
        "knowledge-none": (),
    }
    assert [f for c in cards for f in card_findings(c)] == []


def test_unquoted_int_quest_id_and_datetime_load_and_validate() -> None:
    card = parse(
        card_text("id: knowledge-1", "quest_id: 1", "created_at: 2026-11-22T02:02:08+00:00", "updated_at: 2026-11-22")
    )
    assert card is not None and not card.broken
    assert card.meta["quest_id"] == 1 and card.quest_id == "1"
    assert card.meta["created_at"] == "2026-11-22T02:02:08+00:00"  # a str, no longer a datetime
    assert card.meta["updated_at"] == "2026-11-22"
    assert card_findings(card) == []


def test_jsonable_turns_yaml_values_into_json_values() -> None:
    from datetime import date, datetime, timezone

    value = {1: datetime(2026, 11, 22, 2, 2, 8, tzinfo=timezone.utc), "d": date(2026, 1, 2), "s": {3}, "t": (1, None)}
    assert jsonable(value) == {"1": "2026-11-22T02:02:08+00:00", "d": "2026-01-02", "s": [3], "t": [1, None]}


# ---------------------------------------------------------------- which files are cards


def test_the_same_id_in_two_files_gives_two_cards(make_quest, home: Path) -> None:
    quest = make_quest()
    card_id = quest.card(
        "quest", "Warmup matters", claim="Warmup stabilises routing.", lineage=[{"quest": "001", "run": "run-1"}]
    )
    quest.card(
        "global",
        "Warmup matters",
        card_id=card_id,
        claim="Warmup stabilises routing.",
        lineage=[{"quest": "001", "run": "run-1"}],
        promoted_from={"quest_root": str(quest.root), "path": "memory/knowledge/warmup-matters.md"},
    )
    # and a second file in the same folder that kept the id (a renamed title)
    quest.card(
        "global",
        "Warmup really matters",
        card_id=card_id,
        claim="Warmup stabilises routing.",
        lineage=[{"quest": "001", "run": "run-1"}],
    )
    quest_cards, qf = read_cards(quest.root / "memory", scope="quest", base=quest.root)
    global_cards, gf = read_home(home)
    assert qf == [] and gf == []
    assert [c.card_id for c in quest_cards] == [card_id]
    assert [c.card_id for c in global_cards] == [card_id, card_id]
    assert sorted(c.display for c in global_cards) == [
        "memory/knowledge/warmup-matters.md",
        "memory/knowledge/warmup-really-matters.md",
    ]
    promoted = next(c for c in global_cards if "promoted_from" in c.meta)
    assert promoted.scope == "global" and promoted.meta["scope"] == "global"
    assert promoted.origin_quests() == ["001"]


def test_a_stale_index_line_does_not_make_a_card(writer: ExampleQuest, home: Path) -> None:
    gone = writer.card("global", "Deleted lesson")
    kept = writer.card("global", "Kept lesson")
    overwritten = writer.card("global", "Kept lesson", card_id="knowledge-newer")  # same title: same file
    (writer.card_path("global", "Deleted lesson")).unlink()
    index = (home / "memory" / "knowledge" / "_index.jsonl").read_text()
    assert gone in index and kept in index and overwritten in index
    cards, findings = read_home(home)
    assert findings == [] and [c.card_id for c in cards] == ["knowledge-newer"]


def test_idea_cards_one_level_down_are_read_deeper_ones_are_not(home: Path) -> None:
    memory = home / "memory"
    write(memory / "ideas" / "idea-1" / "idea.md", card_text("id: idea-1", "type: ideas", "kind: idea"))
    write(memory / "ideas" / "idea-1" / "draft.md", card_text("id: idea-1-draft", "type: ideas", "kind: idea"))
    write(memory / "ideas" / "idea-1" / "old" / "idea.md", card_text("id: idea-too-deep"))
    write(memory / "ideas" / "top.md", card_text("id: idea-top"))
    write(memory / "knowledge" / "sub" / "nested.md", card_text("id: knowledge-nested"))
    write(memory / "notes" / "x.md", card_text("id: not-a-kind"))
    write(memory / "stray.md", card_text("id: stray"))
    write(memory / "knowledge" / "x.txt", card_text("id: not-markdown"))
    cards, findings = read_home(home)
    assert findings == []
    assert sorted((c.card_id, c.kind) for c in cards) == [
        ("idea-1", "ideas"),
        ("idea-1-draft", "ideas"),
        ("idea-top", "ideas"),
    ]


@pytest.mark.parametrize(
    ("rel", "kind"),
    [
        ("knowledge/x.md", "knowledge"),
        ("papers/p.md", "papers"),
        ("ideas/idea-1/idea.md", "ideas"),
        ("ideas/idea-1/draft.md", "ideas"),
        ("ideas/x.md", "ideas"),
        ("ideas/idea-1/old/idea.md", None),
        ("knowledge/sub/x.md", None),
        ("knowledge/_index.jsonl", None),
        ("knowledge/x.txt", None),
        ("notes/x.md", None),
        ("knowledge.md", None),
        ("x.md", None),
        ("knowledge", None),
    ],
)
def test_kind_of(rel: str, kind: str | None) -> None:
    assert kind_of(rel) == kind


def test_a_card_linked_from_outside_the_home_is_not_read(home: Path, tmp_path: Path) -> None:
    secret = write(tmp_path / "outside" / "secret.md", card_text("id: knowledge-secret", "title: outside"))
    link = home / "memory" / "knowledge" / "linked.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(secret)
    write(home / "memory" / "knowledge" / "real.md", card_text("id: knowledge-real"))
    inside = home / "memory" / "knowledge" / "alias.md"
    inside.symlink_to(home / "memory" / "knowledge" / "real.md")  # a link that stays inside is fine
    cards, findings = read_home(home)
    assert sorted(c.card_id for c in cards) == ["knowledge-real", "knowledge-real"]
    (finding,) = findings
    assert finding.rule == "path.symlink-outside-quest" and finding.path == "memory/knowledge/linked.md"
    assert "knowledge-secret" not in repr(cards)


def test_a_kind_folder_linked_from_outside_the_home_is_not_read(home: Path, tmp_path: Path) -> None:
    write(tmp_path / "elsewhere" / "x.md", card_text("id: knowledge-elsewhere"))
    (home / "memory").mkdir()
    (home / "memory" / "knowledge").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    cards, findings = read_home(home)
    assert cards == [] and rules(findings) == ["path.symlink-outside-quest"]
    assert findings[0].path == "memory/knowledge"


def test_a_named_pipe_called_md_is_not_opened(home: Path) -> None:
    folder = home / "memory" / "knowledge"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "pipe.md")  # reading it would block forever
    write(folder / "real.md", card_text("id: knowledge-real"))
    cards, findings = read_home(home)
    assert [c.card_id for c in cards] == ["knowledge-real"] and findings == []


# ---------------------------------------------------------------- hostile YAML


def test_a_yaml_alias_bomb_ends_in_a_finding(home: Path) -> None:
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")  # 9**9 values in all
    write(home / "memory" / "knowledge" / "bomb.md", card_text("id: knowledge-bomb", *levels))
    (card,), findings = read_home(home)
    assert findings == [] and card.broken
    (finding,) = card_findings(card)
    assert finding.rule == "card.frontmatter-invalid" and finding.line is not None


def test_a_recursive_alias_ends_in_a_finding() -> None:
    for value in ("a: &a [*a]", "a: &a {b: *a}"):
        card = parse(card_text("id: knowledge-1", value))
        assert card is not None and rules(card_findings(card)) == ["card.frontmatter-invalid"]


def test_python_tags_are_never_constructed(home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payloads = [
        f"x: !!python/object/apply:os.system ['touch {marker}']",
        f"x: !!python/object/new:subprocess.check_call [['touch', '{marker}']]",
        "x: !!python/name:os.system",
        "x: !!python/object:builtins.object {}",
    ]
    for i, payload in enumerate(payloads):
        write(home / "memory" / "knowledge" / f"evil-{i}.md", card_text(f"id: knowledge-{i}", payload))
    cards, findings = read_home(home)
    assert not marker.exists()
    assert findings == [] and len(cards) == len(payloads)
    for card in cards:
        assert card.broken and rules(card_findings(card)) == ["card.frontmatter-invalid"]
        assert card_findings(card)[0].line == 3


# ---------------------------------------------------------------- the home


def test_resolve_home_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("DEEPSCIENTIST_HOME", raising=False)
    monkeypatch.delenv("DS_HOME", raising=False)
    assert resolve_home() == (user / "DeepScientist").resolve()
    assert resolve_home("") == (user / "DeepScientist").resolve()

    monkeypatch.setenv("DS_HOME", str(tmp_path / "ds"))
    assert resolve_home() == (tmp_path / "ds").resolve()

    monkeypatch.setenv("DEEPSCIENTIST_HOME", str(tmp_path / "deep"))
    assert resolve_home() == (tmp_path / "deep").resolve()

    assert resolve_home(tmp_path / "given") == (tmp_path / "given").resolve()
    assert resolve_home("~/given") == (user / "given").resolve()

    monkeypatch.setenv("DEEPSCIENTIST_HOME", "   ")  # blank counts as unset
    assert resolve_home() == (tmp_path / "ds").resolve()


# ---------------------------------------------------------------- schema


def test_experience_schema_findings_carry_pointer_and_the_right_line(home: Path) -> None:
    write(home / "memory" / "knowledge" / "bad.md", BAD_EXPERIENCE)
    (card,), _ = read_home(home)
    found = {f.pointer: f for f in card_findings(card)}
    assert set(found) == {"/claim", "/lineage/0/run", "/lineage/1", "/confidence"}
    assert found["/claim"].rule == "card.experience-schema"
    assert found["/lineage/0/run"].rule == "card.experience-schema"
    assert found["/lineage/1"].rule == "card.experience-schema"
    assert found["/confidence"].rule == "card.schema"  # a rule for every card, not only lessons
    assert all(f.severity == "error" and f.path == "memory/knowledge/bad.md" for f in found.values())
    assert line_at(BAD_EXPERIENCE, found["/claim"].line) == "claim: ''"
    assert line_at(BAD_EXPERIENCE, found["/lineage/0/run"].line) == "- quest: '001'"  # the entry missing `run`
    assert line_at(BAD_EXPERIENCE, found["/lineage/1"].line) == "- just a string"
    assert line_at(BAD_EXPERIENCE, found["/confidence"].line) == "confidence: 1.5"


def test_a_good_experience_card_written_like_memory_service_passes(writer: ExampleQuest, home: Path) -> None:
    writer.card(
        "global",
        "Sparse routing needs load balancing",
        claim="Load-balancing loss prevents expert collapse.",
        lineage=[{"quest": "001", "run": "run-xxxx", "direction": "idea-x", "note": "n"}],
        confidence=0.7,
    )
    (card,), findings = read_home(home)
    assert findings == [] and card.is_experience and card_findings(card) == []


def test_schema_findings_of_a_knowledge_card() -> None:
    bad = {"type": "knowledge-cards", "quest_id": ["001"], "scope": "shared"}
    assert sorted((f.rule, f.pointer) for f in card_schema_findings(bad, "x.md")) == [
        ("card.schema", "/id"),
        ("card.schema", "/quest_id"),
        ("card.schema", "/scope"),
        ("card.schema", "/type"),
    ]
    assert card_schema_findings({"id": "knowledge-1", "confidence": 0}, "x.md") == []


def test_an_experience_card_needs_both_claim_and_lineage() -> None:
    text = card_text("id: knowledge-1", "title: t", "claim: A lesson.")
    card = parse(text)
    assert card is not None
    (finding,) = card_findings(card)
    assert finding.rule == "card.experience-schema" and finding.pointer == "/lineage"
    assert finding.line is not None


def test_a_nan_confidence_is_not_a_number_from_0_to_1() -> None:
    card = parse(card_text("id: knowledge-1", "confidence: .nan"))
    assert card is not None
    assert [(f.rule, f.pointer) for f in card_findings(card)] == [("card.schema", "/confidence")]


# ---------------------------------------------------------------- ds-gate validate


def test_validate_reports_a_bad_card(home: Path, monkeypatch: pytest.MonkeyPatch, gate_json) -> None:
    write(home / "memory" / "knowledge" / "x.md", BAD_EXPERIENCE)
    monkeypatch.chdir(home)
    code, out = gate_json("validate", "memory/knowledge/x.md")
    assert code == 1 and out["ok"] is False
    got = sorted((f["rule"], f["pointer"], f["line"]) for f in out["findings"])
    assert got == [
        ("card.experience-schema", "/claim", 4),
        ("card.experience-schema", "/lineage/0/run", 6),
        ("card.experience-schema", "/lineage/1", 8),
        ("card.schema", "/confidence", 9),
    ]
    assert {f["path"] for f in out["findings"]} == {"memory/knowledge/x.md"}
    assert "1 memory card of 1 file" in out["notes"][0]


def test_validate_reports_an_unreadable_frontmatter(home: Path, monkeypatch: pytest.MonkeyPatch, gate_json) -> None:
    write(home / "memory" / "knowledge" / "x.md", "---\nid: knowledge-1\n")
    monkeypatch.chdir(home)
    code, out = gate_json("validate", "memory/knowledge/x.md")
    assert code == 1
    assert [(f["rule"], f["line"]) for f in out["findings"]] == [("card.frontmatter-invalid", 1)]


def test_validate_passes_a_good_card(
    writer: ExampleQuest, home: Path, monkeypatch: pytest.MonkeyPatch, gate_json
) -> None:
    writer.card("global", "Router temperature matters", tags=["stage:experiment"])
    write(home / "memory" / "ideas" / "idea-1" / "idea.md", card_text("id: idea-1", "type: ideas", "kind: idea"))
    monkeypatch.chdir(home)
    code, out = gate_json("validate", "memory/knowledge/router-temperature-matters.md", "memory/ideas/idea-1/idea.md")
    assert code == 0 and out["ok"] is True and out["findings"] == []
    assert "2 memory cards" in out["notes"][0]


def test_validate_skips_markdown_without_frontmatter(home: Path, monkeypatch: pytest.MonkeyPatch, gate_json) -> None:
    write(home / "memory" / "knowledge" / "active-user-requirements.md", "# Requirements\n\n---\n\nNone yet.\n")
    monkeypatch.chdir(home)
    code, out = gate_json("validate", "memory/knowledge/active-user-requirements.md")
    assert code == 0 and out["ok"] is True and out["findings"] == []
    assert "0 memory cards" in out["notes"][0]
