"""The shipped schemas, the fast accept path's agreement with jsonschema, and line placement."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ds_gate.io import schemas
from ds_gate.kernel import schema_fast
from ds_gate.kernel.jsondoc import line_of, pointer
from ds_gate.kernel.resources import data_dir
from ds_gate.kernel.schema_files import SCHEMA_NAMES, load

RUN = "run-e79fde93"
VALID = {
    "distill_review": {
        "kind": "decision",
        "artifact_id": "decision-674d8f0a",
        "action": "distill_review",
        "verdict": "covered",
        "reason": "1 run distilled into 1 global card",
        "reviewed_run_ids": [RUN],
        "cards_written": [{"card_id": "knowledge-14ff84d4", "scope": "global", "action": "new", "target_run_id": RUN}],
        "neighbor_decisions": [
            {
                "candidate_card_id": "knowledge-0000aaaa",
                "decision": "neighbor_but_separate",
                "target_run_id": RUN,
                "reason": "different mechanism",
            }
        ],
        "notes": "demo",
    },
    "distill_review_report": {
        "kind": "report",
        "artifact_id": "report-5be8d1f0",
        "report_type": "distill_review",
        "reviewed_run_ids": [RUN],
        "cards_written": [{"card_id": "knowledge-14ff84d4", "scope": "global", "action": "new", "target_run_id": RUN}],
        "neighbor_decisions": [
            {
                "candidate_card_id": "knowledge-0000aaaa",
                "decision": "neighbor_but_separate",
                "target_run_id": RUN,
                "reason": "different mechanism",
            }
        ],
        "notes": "demo",
    },
    "decision": {
        "kind": "decision",
        "artifact_id": "decision-80379c60",
        "verdict": "good",
        "action": "launch_experiment",
        "reason": "Idea is promising.",
    },
    "run": {
        "kind": "run",
        "artifact_id": "run-51c9ad07",
        "run_id": "main-001",
        "run_kind": "main_experiment",
        "status": "completed",
    },
    "ds_gate_config": {
        "waivers": [
            {"rule": "coverage.pending-run", "id": "run-51c9ad07", "reason": "smoke test", "expires": "2026-12-31"},
            {"rule": "card.schema", "path": "memory/knowledge/x.md", "reason": "r"},
        ]
    },
    # the real cards of the quest-formats reference, loaded as JSON values
    "knowledge_card": {
        "id": "knowledge-f3e3bda8",
        "type": "knowledge",
        "kind": "knowledge",
        "title": "Router temperature matters",
        "quest_id": "001",
        "tags": ["stage:experiment", "topic:routing"],
        "created_at": "2026-11-22T02:02:08+00:00",
        "updated_at": "2026-11-22T02:02:08+00:00",
        "scope": "quest",
        "confidence": 0.5,
        "promoted_from": {"quest_root": "/home/r/DeepScientist/quests/001", "path": "memory/knowledge/a.md"},
    },
    "experience_card": {
        "claim": "Load-balancing loss prevents expert collapse.",
        "lineage": [{"quest": "001", "run": "run-xxxx", "direction": "idea-x", "note": "n"}],
        "id": "knowledge-04942297",
        "type": "knowledge",
        "kind": "knowledge",
        "title": "Sparse routing needs load balancing",
        "quest_id": "001",
        "tags": ["task:sparse-routing"],
        "confidence": 0.7,
        "scope": "global",
    },
}
REPLACEMENTS: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    1.5,
    -0.5,
    "",
    " ",
    "x",
    "global",
    "new",
    "distill_review",
    "decision",
    "run",
    [],
    ["x"],
    [""],
    {},
    {"a": 1},
]


def mutations(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[Any]:
    """Every document one edit away: each value replaced, each key removed, each list emptied."""

    def at(root: Any, where: tuple[Any, ...]) -> Any:
        for part in where:
            root = root[part]
        return root

    node = at(doc, path)
    children = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
    for key, child in children:
        for value in REPLACEMENTS:
            mutated = copy.deepcopy(doc)
            at(mutated, path)[key] = copy.deepcopy(value)
            yield mutated
        mutated = copy.deepcopy(doc)
        del at(mutated, path)[key]
        yield mutated
        if isinstance(child, (dict, list)):
            yield from mutations(doc, (*path, key))
    if isinstance(node, dict):
        for extra in ("reason_if_empty", "unexpected"):
            mutated = copy.deepcopy(doc)
            at(mutated, path)[extra] = "because"
            yield mutated


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_shipped_schemas_are_valid_draft_2020_12(name) -> None:
    Draft202012Validator.check_schema(load(name))
    assert (data_dir("schemas") / f"{name}.schema.json").is_file()


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_the_fast_path_agrees_with_jsonschema_on_every_single_edit(name) -> None:
    fast = schema_fast.fast(name)
    assert fast is not None, "the schema uses a keyword the fast path does not implement"
    authority = schemas.validator(name)
    base = VALID[name]
    docs = [base, *mutations(base)]
    if name in ("distill_review", "distill_review_report"):  # the conditional branch: empty cards_written
        empty = dict(base, cards_written=[], reason_if_empty="nothing reusable")
        docs += [empty, *mutations(empty)]
    disagreements = [d for d in docs if fast(d) != authority.is_valid(d)]
    assert len(docs) > len(base) * len(REPLACEMENTS)  # every key was edited every way
    assert not disagreements, json.dumps(disagreements[:3])
    assert any(not fast(d) for d in docs) and fast(base)


def test_the_fast_path_declines_keywords_it_does_not_implement() -> None:
    with pytest.raises(schema_fast.Unsupported):
        schema_fast.compile_schema({"type": "array", "uniqueItems": True}, "x.schema.json")


def test_json_equality_keeps_booleans_apart_from_numbers() -> None:
    check = schema_fast.compile_schema({"enum": [1, "x"]}, "x.schema.json")
    assert check(1) and check(1.0) and not check(True)
    assert schema_fast.compile_schema({"const": False}, "x.schema.json")(False) is True
    assert schema_fast.compile_schema({"const": False}, "x.schema.json")(0) is False


def test_errors_carry_a_place_a_message_and_a_hint() -> None:
    doc = dict(
        VALID["distill_review"], reviewed_run_ids=["main-001", ""], cards_written=[{"card_id": "k", "scope": "team"}]
    )
    found = {pointer(e.path): e for e in schemas.errors("distill_review", doc)}
    assert set(found) == {
        "/reviewed_run_ids/1",
        "/cards_written/0/scope",
        "/cards_written/0/action",
        "/cards_written/0/target_run_id",
    }
    assert (
        found["/cards_written/0/scope"].message == "`cards_written[0].scope` is 'team'; expected one of: global, quest"
    )
    assert found["/cards_written/0/target_run_id"].anchor == ("cards_written", 0)  # the line goes on the object
    assert all(e.hint for e in found.values())


TEXT = """{
  "kind": "decision",
  "note": "braces { and [ and an \\"escaped\\" quote",
  "reviewed_run_ids": [
    "run-1",
    "main-001"
  ],
  "cards_written": [{"card_id": "a"},
    {"card_id": "b",
     "scope": "x"}],
  "dup": 1,
  "dup": 2
}"""


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ((), 1),
        (("kind",), 2),
        (("reviewed_run_ids",), 4),
        (("reviewed_run_ids", 1), 6),
        (("cards_written", 0), 8),
        (("cards_written", 1, "scope"), 10),
        (("dup",), 12),  # the value json.loads keeps is the last one
        (("missing",), None),
        (("reviewed_run_ids", 7), None),
        (("kind", "deeper"), None),
    ],
)
def test_line_of_finds_the_line_of_a_json_pointer(path, line) -> None:
    assert json.loads(TEXT)  # the text is real JSON
    assert line_of(TEXT, path) == line


def test_line_of_never_raises_on_broken_text() -> None:
    assert line_of('{"a": [1, 2', ("a", 5)) is None
    assert line_of("", ("a",)) is None
    assert line_of('{"a": "unterminated', ("b",)) is None


def test_pointer_escapes_per_rfc_6901() -> None:
    assert pointer(("a/b", "c~d", 0)) == "/a~1b/c~0d/0"


@pytest.mark.slow
def test_the_fast_path_reads_the_pattern_not_blank_as_re_does() -> None:
    """Issue 17: ``\\S`` is checked without ``re`` (the commit hook must not import it);
    ``re``'s Unicode whitespace and ``str.strip``'s agree on every code point."""
    import re
    import sys

    from ds_gate.kernel.schema_fast import compile_schema

    check = compile_schema({"pattern": r"\S"}, "inline.schema.json")
    for point in range(sys.maxunicode + 1):
        char = chr(point)
        assert check(char) == (re.search(r"\S", char) is not None), hex(point)
    for text in ("", " ", " \t\n\u00a0\u2003", " x ", "\u3000y", "\x1c\x1d\x1e\x1f", "\x85"):
        assert check(text) == (re.search(r"\S", text) is not None), repr(text)
    assert check(5) and check(None)  # not a string: pattern does not apply
