"""Issue 24, "bounded, never crashing": the one reader of ``tags`` (``sources.tag_values``)
and the card's own bounds, driven on in-memory values and bytes. Each case failed on the code
before it (a ``RecursionError`` out of ``json.loads``, or a card parsed whatever its size)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ds_gate.recall.entries import decode
from ds_gate.sources.memory import (
    MAX_CARD_VALUES,
    MAX_FRONTMATTER_CHARS,
    card_tags,
    parse_card,
)
from ds_gate.sources.tag_values import (
    MAX_JSON_DEPTH,
    MAX_TAG_CHARS,
    MAX_TAGS,
    parse_tags,
)

from rulecases import fired

FAILS = {"card.tags-over-limit"}
PASSES = {"card.tags-over-limit"}

DEEP = "[" * 100_000 + "]" * 100_000


def card(frontmatter: str) -> object:
    return parse_card(
        f"---\n{frontmatter}\n---\nbody\n".encode(),
        path=Path("/nowhere/k.md"),
        display="memory/knowledge/k.md",
        scope="quest",
        kind="knowledge",
    )


@pytest.mark.parametrize(
    ("value", "tags"),
    [
        ('["topic:a", " stage:b ", "topic:a", ""]', ("topic:a", "stage:b")),
        ("topic:a, stage:b", ("topic:a", "stage:b")),
        (["topic:a", 3, None, " "], ("topic:a", "3")),
        ("[not json, at all]", ("[not json", "at all]")),
        (None, ()),
        (7, ("7",)),
    ],
    ids=["json list", "comma list", "yaml list", "bracketed comma list", "none", "a number"],
)
def test_tags_read_as_memory_service_reads_them(value: object, tags: tuple[str, ...]) -> None:
    found = parse_tags(value)
    assert found.values == tags and found.problem is None


def test_a_json_list_nested_100000_deep_is_a_problem_not_a_recursion() -> None:
    found = parse_tags(DEEP)
    assert found.values == () and "nested 100000 levels" in (found.problem or "")
    shallow = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH  # within the bound: parsed, the inner list skipped
    assert parse_tags(shallow).values == () and "lists or mappings" in (parse_tags(shallow).problem or "")
    assert parse_tags(f'["a", {DEEP[:50_000]}"b"]').values == ()  # deep, unbalanced: never parsed


@pytest.mark.slow
def test_tags_beyond_the_bounds_are_not_read() -> None:
    many = parse_tags([f"t{i}" for i in range(MAX_TAGS * 3)])
    assert len(many.values) == MAX_TAGS and f"more than {MAX_TAGS:,} tags" in (many.problem or "")
    long = parse_tags(["ok", "x" * (MAX_TAG_CHARS + 1)])
    assert long.values == ("ok",) and "longer than" in (long.problem or "")
    huge = parse_tags(json.dumps([f"t{i}" for i in range(1_500_000)]))
    assert huge.values == () and "characters" in (huge.problem or "")
    assert card_tags(DEEP) == ()


def test_a_card_with_deep_tags_is_read_with_a_warning() -> None:
    found = card(f"id: k-1\ntitle: t\ntags: '{DEEP}'")
    assert found is not None and not found.broken and found.card_id == "k-1"
    assert fired(found.findings) == ["card.tags-over-limit"] and found.findings[0].severity == "warning"
    assert fired(card("id: k-1\ntitle: t\ntags: [topic:a, stage:b]").findings) == []


def test_a_frontmatter_past_the_bounds_is_refused_before_yaml_builds_it() -> None:
    many = card("id: k-1\ntags: [" + ", ".join(f"t{i}" for i in range(MAX_CARD_VALUES + 1)) + "]")
    assert many is not None and many.broken and fired(many.findings) == ["input.too-large"]
    assert f"more than {MAX_CARD_VALUES:,} values" in many.findings[0].message
    long = card("id: k-1\nclaim: '" + "x" * MAX_FRONTMATTER_CHARS + "'")
    assert long is not None and long.broken and fired(long.findings) == ["input.too-large"]
    # commas in a long text are not values: a claim full of them is read
    prose = card("id: k-1\nclaim: '" + "a, b: c - d\n\n" * (MAX_CARD_VALUES // 2) + "'")
    assert prose is not None and not prose.broken


def test_blocks_found_by_offsets_keep_lines_and_the_legacy_block() -> None:
    raw = b"---\nid: k-1\n---\n\n  \n---\ntitle: legacy\nid: other\n---\nthe body\n"
    found = parse_card(raw, path=Path("/nowhere/k.md"), display="k.md", scope="quest", kind="knowledge")
    assert found is not None and found.meta == {"id": "k-1", "title": "legacy"} and found.body == "the body\n"
    assert found.blocks == (("id: k-1", 2), ("title: legacy\nid: other", 7))
    empty = parse_card(b"---\n---", path=Path("/nowhere/k.md"), display="k.md", scope="quest", kind="knowledge")
    assert empty is not None and empty.meta == {} and empty.body == ""


def test_a_cache_row_holding_more_tags_than_are_read_is_read_again() -> None:
    row = json.dumps(["k", "t", None, [f"t{i}" for i in range(MAX_TAGS + 1)], "knowledge", None, None, ""])
    with pytest.raises(ValueError):
        decode(row, "global", "/nowhere/k.md")
