"""A message about a value ds-gate was given names it through ``kernel.errors.shown``, never
``!r``: ``repr`` raises on an integer over Python's 4,300-digit conversion limit and
on a list nested past the stack, which turned a bad argument into a ``ValueError`` traceback
instead of the ``QuestError`` (exit 2) that names it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ds_gate
from ds_gate.agent import toolspec
from ds_gate.kernel.errors import shown

PACKAGE = Path(ds_gate.__file__).parent
# where a bare repr stays, and why it is safe there
BARE_REPR_ALLOWED = {
    "__init__.py": "the attribute name Python hands __getattr__ is a str",
    "integration/wrap.py": "runs inside DeepScientist's runtime on the standard library only; the value is a str or JSON",
}


def _nested(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth):
        value = [value]
    return value


class _Refuses:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@pytest.mark.parametrize(
    "value",
    [10**5000, -(10**5000), _nested(100_000), {"a": [10**5000]}, _Refuses()],
    ids=["huge", "huge-negative", "deep", "huge-inside", "repr-raises"],
)
def test_a_value_whose_repr_fails_is_named_not_shown(value: object) -> None:
    assert shown(value) == "(too large or too deeply nested to show)"


def test_a_value_is_shown_as_repr_and_cut_only_when_asked() -> None:
    assert shown("a'b") == repr("a'b")
    assert shown(10**4000) == repr(10**4000)  # under the limit: shown whole
    assert shown("x" * 100, 20) == repr("x" * 100)[:17] + "..."
    assert len(shown(list(range(1000)), 60)) == 60


def test_no_message_in_the_package_uses_a_bare_repr() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name in BARE_REPR_ALLOWED or name == "kernel/errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), name)):
            if isinstance(node, ast.FormattedValue) and node.conversion in (ord("r"), ord("a")):
                found.append(f"{name}:{node.lineno}")
    assert not found, f"use kernel.errors.shown(value) in messages, not !r: {found}"


@pytest.mark.parametrize(
    "value",
    ["x" * 100, 7, [1, [2]], 10**5000, _nested(100_000), _Refuses()],
    ids=["long", "int", "list", "huge", "deep", "repr-raises"],
)
def test_the_runtime_copy_in_the_tool_table_shows_values_as_the_kernel_does(value: object) -> None:
    assert toolspec._shown(value) == shown(value, 60)
