"""The public API's contract for bad input (docs/api.md): a ``QuestError`` naming what is wrong,
never a ``ValueError``, ``OSError``, ``RuntimeError`` or ``AttributeError`` from deeper down, and
never a silent empty answer. Each case here was an escape found by an adversary (issue 36's
breaks 01, 02 and 05); the Hypothesis test feeds every entry point values of any shape."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ds_gate
from ds_gate.agent import tools
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.given_path import given_path

HUGE = 10**5000  # more digits than Python converts to text: repr() raises ValueError


@pytest.fixture(scope="module")
def quest(tmp_path_factory: pytest.TempPathFactory) -> ExampleQuest:
    """Quest 001 in a home with global memory, one completed run committed: read, never changed."""
    home = tmp_path_factory.mktemp("bad-input") / "DeepScientist"
    (home / "memory" / "knowledge").mkdir(parents=True)
    made = ExampleQuest(home / "quests" / "001", "001").create()
    made.run(made.root, "main-001")
    made.checkpoint(made.root, "record")
    return made


@pytest.fixture
def odd(tmp_path: Path) -> dict[str, str]:
    """Paths that are wrong in every way a path can be."""
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "a-file").write_text("x")
    os.mkfifo(tmp_path / "fifo")
    return {
        "too long": "x" * 5000,
        "a name too long": str(tmp_path / ("n" * 300)),
        "a loop of links": str(tmp_path / "loop"),
        "a NUL byte": str(tmp_path) + "/\0",
        "through a file": str(tmp_path / "a-file" / "below"),
        "a file": str(tmp_path / "a-file"),
        "missing": str(tmp_path / "missing"),
        "a folder": str(tmp_path),
        "a FIFO": str(tmp_path / "fifo"),
    }


def said(call: Callable[[], object]) -> str:
    with pytest.raises(ds_gate.QuestError) as raised:
        call()
    message = str(raised.value)
    assert "\n" not in message and len(message) < 1000  # one line, a long path cut
    return message


# ------------------------------------------------------------------ break 01: a huge integer


def test_a_limit_too_large_to_show_is_named_not_a_value_error(quest: ExampleQuest) -> None:
    home = str(quest.root.parent.parent)
    for call in (
        lambda: ds_gate.list_knowledge_summaries(limit=HUGE, home=home),
        lambda: ds_gate.list_knowledge_summaries(max_chars=HUGE, home=home),
        lambda: ds_gate.list_recent(quest.root, limit=HUGE),
        lambda: tools.call("list_recent", quest.root, {"limit": HUGE}),
        lambda: tools.call("list_knowledge_summaries", quest.root, {"max_chars": HUGE}),
        lambda: ds_gate.list_knowledge_summaries(kind=HUGE, home=home),  # type: ignore[arg-type]
        lambda: ds_gate.list_recent(quest.root, kind=HUGE),  # type: ignore[arg-type]
    ):
        assert "too large or too deeply nested to show" in said(call)


# ------------------------------------------------------------------ break 02: paths that cannot be resolved


@pytest.mark.parametrize(
    ("which", "words"),
    [
        ("too long", "longer than the file system allows — pass a shorter path"),
        ("a name too long", "longer than the file system allows"),
        ("a loop of links", "its symbolic links lead in a loop — fix or remove the link"),
        ("a NUL byte", "holds a NUL byte"),
        ("through a file", "a part of the path that should be a folder is a file"),
        ("missing", "no such file or directory"),
    ],
)
def test_a_quest_path_that_cannot_be_resolved_is_a_quest_error(
    odd: dict[str, str], which: str, words: str, quest: ExampleQuest
) -> None:
    path = odd[which]
    for call in (
        lambda: ds_gate.evaluate(path),
        lambda: ds_gate.list_recent(path),
        lambda: ds_gate.list_distill_candidates(path),
        lambda: ds_gate.load_quest(path),
        lambda: ds_gate.list_knowledge_summaries(quest=path, home=str(quest.root.parent.parent)),
    ):
        message = said(call)
        assert words in message
        assert message.startswith((path, repr(path)[:100])) or which == "a NUL byte"


@pytest.mark.parametrize(
    ("which", "words"),
    [
        ("too long", "longer than the file system allows"),
        ("a loop of links", "lead in a loop"),
        ("a NUL byte", "holds a NUL byte"),
        ("a file", "the DeepScientist home (--home or home=) is not a folder"),
        ("a FIFO", "is not a folder — pass the folder that holds memory/ and quests/"),
        ("missing", "no such DeepScientist home — pass home="),
    ],
)
def test_a_home_that_is_no_folder_is_a_quest_error_not_an_empty_list(
    odd: dict[str, str], which: str, words: str
) -> None:
    assert words in said(lambda: ds_gate.list_knowledge_summaries(home=odd[which]))


def test_a_missing_home_is_the_gate_s_warning_as_closure_home_says_it(quest: ExampleQuest, odd: dict[str, str]) -> None:
    """``evaluate`` answers as ``closure --home`` does: a home that is not there is a warning
    (a CI clone of one quest), one that is a file is the usage error."""
    report = ds_gate.evaluate(quest.root, "closure", home=odd["missing"])
    assert isinstance(report, ds_gate.GateReport) and report.command == "closure"
    assert "not a folder" in said(lambda: ds_gate.evaluate(quest.root, "closure", home=odd["a file"]))
    assert "lead in a loop" in said(lambda: ds_gate.evaluate(quest.root, "closure", home=odd["a loop of links"]))


def test_the_one_resolver_names_every_way_a_path_is_wrong(odd: dict[str, str]) -> None:
    assert given_path(odd["a folder"]) == Path(odd["a folder"]).resolve()
    assert given_path(odd["missing"], must_exist=False) == Path(odd["missing"])
    assert "must be a path (a str or os.PathLike), not int" in said(lambda: given_path(5, "quest"))
    assert "must be a path as text, not bytes" in said(lambda: given_path(_BytesPath()))


class _BytesPath(os.PathLike[bytes]):
    def __fspath__(self) -> bytes:
        return b"/tmp"


@pytest.mark.parametrize("which", ["too long", "a loop of links", "a NUL byte", "through a file"])
def test_every_other_entry_point_taking_a_path_says_it_cannot_resolve_it(odd: dict[str, str], which: str) -> None:
    path = odd[which]
    for call in (
        lambda: ds_gate.commit_check(path),
        lambda: ds_gate.evaluate_lineage(path),
        lambda: ds_gate.evaluate_lineage(odd["a folder"], [path]),
    ):
        said(call)


@pytest.mark.parametrize("which", ["too long", "a NUL byte", "through a file", "a FIFO"])
def test_a_file_to_validate_that_cannot_be_read_is_its_finding_not_an_exception(
    odd: dict[str, str], which: str
) -> None:
    report, readable = ds_gate.validate_files([odd[which]])
    assert not readable and [f.rule for f in report.findings] == ["input.unreadable"]


# ------------------------------------------------------------------ break 05: untyped errors


def test_the_gate_s_bad_arguments_are_quest_errors(quest: ExampleQuest) -> None:
    assert "unknown command 'nonsense'" in said(lambda: ds_gate.evaluate(quest.root, "nonsense"))
    assert "unknown source 'bogus'" in said(lambda: ds_gate.evaluate(quest.root, source="bogus"))
    assert "unknown source" in said(lambda: ds_gate.list_recent(quest.root, source="bogus"))
    assert "staged_findings must be a list of Finding, not [1]" in said(
        lambda: ds_gate.evaluate(quest.root, staged_findings=[1])  # type: ignore[list-item]
    )
    assert "refs must be a list of str" in said(lambda: ds_gate.evaluate(quest.root, refs="main"))
    assert "require must be True or False, not 'yes'" in said(
        lambda: ds_gate.evaluate(quest.root, require="yes")  # type: ignore[arg-type]
    )
    assert ds_gate.evaluate(quest.root, staged_findings=iter(())).ok in (True, False)  # any iterable still does


def test_a_kind_that_is_no_text_is_a_quest_error(quest: ExampleQuest) -> None:
    assert "kind must be one artifact kind" in said(lambda: ds_gate.list_recent(quest.root, kind=5))  # type: ignore[arg-type]
    assert "kind must be one of the memory kinds" in said(
        lambda: ds_gate.list_knowledge_summaries(kind=[1], home=str(quest.root.parent.parent))  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("which", ["a folder", "a FIFO"])
def test_a_jsonl_source_that_is_no_regular_file_says_so(quest: ExampleQuest, odd: dict[str, str], which: str) -> None:
    message = said(lambda: ds_gate.list_knowledge_summaries(jsonl=[odd[which]], home=str(quest.root.parent.parent)))
    assert message == f"cannot read {odd[which]}: not a regular file (a folder, FIFO or device) — pass a JSONL file"


def test_a_jsonl_source_given_as_one_path_is_not_read_letter_by_letter(
    quest: ExampleQuest, odd: dict[str, str]
) -> None:
    assert "jsonl must be a list of paths, not str" in said(
        lambda: ds_gate.list_knowledge_summaries(jsonl=odd["a file"], home=str(quest.root.parent.parent))
    )
    assert "no such file or directory" in said(
        lambda: ds_gate.list_knowledge_summaries(jsonl=[odd["missing"]], home=str(quest.root.parent.parent))
    )


def test_a_tool_called_with_junk_is_a_quest_error(quest: ExampleQuest) -> None:
    assert "unknown tool [1]" in said(lambda: tools.call([1], quest.root, {}))  # type: ignore[arg-type]
    assert "an object of named values" in said(lambda: tools.call("list_recent", quest.root, [1]))  # type: ignore[arg-type]


# ------------------------------------------------------------------ anything at all


def _nested(depth: int) -> object:
    value: object = []
    for _ in range(depth):
        value = [value]
    return value


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([HUGE, -HUGE, 10**4300, _nested(50_000), {"a": HUGE}, float("nan"), b"\xff", object()]),
    st.text(max_size=40),
    st.sampled_from(["x" * 5000, "\0", "~", "~nobody-here/x", "", " ", "/", ".", "..", "/dev/null", "a\nb"]),
    st.lists(st.one_of(st.integers(), st.text(max_size=10), st.none()), max_size=4),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
# each entry point, with the one argument Hypothesis chooses (the others as a caller would give them)
ENTRY_POINTS: dict[str, Callable[[Path, str, Any], object]] = {
    "evaluate(quest)": lambda q, h, v: ds_gate.evaluate(v),
    "evaluate(command)": lambda q, h, v: ds_gate.evaluate(q, v),
    "evaluate(source)": lambda q, h, v: ds_gate.evaluate(q, source=v),
    "evaluate(refs)": lambda q, h, v: ds_gate.evaluate(q, refs=v),
    "evaluate(home)": lambda q, h, v: ds_gate.evaluate(q, home=v),
    "evaluate(staged_findings)": lambda q, h, v: ds_gate.evaluate(q, staged_findings=v),
    "evaluate(require)": lambda q, h, v: ds_gate.evaluate(q, require=v),
    "list_recent(quest)": lambda q, h, v: ds_gate.list_recent(v),
    "list_recent(kind)": lambda q, h, v: ds_gate.list_recent(q, kind=v),
    "list_recent(limit)": lambda q, h, v: ds_gate.list_recent(q, limit=v),
    "list_recent(source)": lambda q, h, v: ds_gate.list_recent(q, source=v),
    "list_distill_candidates": lambda q, h, v: ds_gate.list_distill_candidates(v),
    "load_quest": lambda q, h, v: ds_gate.load_quest(v),
    "evaluate_lineage(home)": lambda q, h, v: ds_gate.evaluate_lineage(v),
    "evaluate_lineage(paths)": lambda q, h, v: ds_gate.evaluate_lineage(h, [v]),
    "list_knowledge_summaries(home)": lambda q, h, v: ds_gate.list_knowledge_summaries(home=v),
    "list_knowledge_summaries(kind)": lambda q, h, v: ds_gate.list_knowledge_summaries(kind=v, home=h),
    "list_knowledge_summaries(limit)": lambda q, h, v: ds_gate.list_knowledge_summaries(limit=v, home=h),
    "list_knowledge_summaries(max_chars)": lambda q, h, v: ds_gate.list_knowledge_summaries(max_chars=v, home=h),
    "list_knowledge_summaries(scope)": lambda q, h, v: ds_gate.list_knowledge_summaries(scope=v, home=h),
    "list_knowledge_summaries(order)": lambda q, h, v: ds_gate.list_knowledge_summaries(order=v, home=h),
    "list_knowledge_summaries(quest)": lambda q, h, v: ds_gate.list_knowledge_summaries(quest=v, home=h),
    "list_knowledge_summaries(jsonl)": lambda q, h, v: ds_gate.list_knowledge_summaries(jsonl=v, home=h),
    "tools.call(list_recent)": lambda q, h, v: tools.call("list_recent", q, {"limit": v, "kind": v}),
    "tools.call(list_knowledge_summaries)": lambda q, h, v: tools.call(
        "list_knowledge_summaries", q, {"max_chars": v, "kind": v}, home=h
    ),
}


@settings(
    max_examples=int(os.environ.get("I36X1_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(value=JUNK, entry=st.sampled_from(sorted(ENTRY_POINTS)))
def test_whatever_a_caller_passes_only_a_result_or_a_quest_error_comes_back(
    quest: ExampleQuest, value: object, entry: str
) -> None:
    try:
        ENTRY_POINTS[entry](quest.root, str(quest.root.parent.parent), value)
    except ds_gate.QuestError as exc:
        assert "\n" not in str(exc)
