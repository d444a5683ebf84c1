"""quest.yaml texts for the commit hook's shell fallback (hooks/pre-commit), and that fallback's
reading of one: ``shell_status`` runs the hook's own ``plain_status`` part (between its ``# >>>``
and ``# <<<`` lines) under ``/bin/sh``, as the hook runs it.

Two kinds of text: what DeepScientist main's ``write_yaml`` writes of a quest's dict
(``yaml.safe_dump(allow_unicode=True, sort_keys=False)``; texts with tabs, line breaks of every
kind, backslashes, quotes, YAML indicators and long lines, nested dicts and lists as
``startup_contract`` holds them), and hostile texts built from YAML's tokens (quotes left open
across lines, flow collections, anchors, aliases, tags, block scalars, explicit keys, status lines
in other spellings, every line break YAML knows).
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

HOOK = Path(__file__).resolve().parents[1] / "hooks" / "pre-commit"
STATUSES = ("active", "idle", "running", "stopped", "paused", "completed", "error", "waiting_for_user")
MAIN_STATUSES = st.sampled_from(STATUSES)
ABSENT = object()  # safe_load gave no top-level status (not a mapping, or no such key)


@functools.cache
def plain_status() -> str:
    """The hook's ``plain_status`` part, its ``plain`` awk program and the function that runs it."""
    hook = HOOK.read_text(encoding="utf-8")
    return hook[hook.index("# >>> plain_status") : hook.index("# <<< plain_status")]


def shell_status(raw: bytes) -> str | None:
    """The status word the fallback reads (lowercased) when the text is plain; None when it is not."""
    done = subprocess.run(
        ["/bin/sh", "-c", plain_status() + "plain_status"], input=raw, capture_output=True, check=False
    )
    assert not done.stderr, done.stderr  # an awk or sh error would read as "not plain"
    return done.stdout.decode("ascii").rstrip("\n") if done.returncode == 0 else None


class Unreadable(Exception):
    """main's read_yaml raises on this text (not UTF-8, or not YAML)."""


def main_status(raw: bytes) -> Any:
    """The top-level status as main's read_yaml gives it (``yaml.safe_load(path.read_text("utf-8"))``)."""
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        raise Unreadable from error
    return data.get("status", ABSENT) if isinstance(data, dict) else ABSENT


def main_completed(raw: bytes) -> bool:
    """Whether main reads status completed: it compares exactly, stripped or lowercased (and the
    Python hook casefolded): any of them counts."""
    try:
        status = main_status(raw)
    except Unreadable:
        return False
    if status is ABSENT:
        return False
    text = str(status).strip()
    return text.lower() == "completed" or text.casefold() == "completed"


def write_yaml(data: dict[str, Any]) -> bytes:
    """main's shared.write_yaml."""
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False).encode("utf-8")


_SPECIAL = st.sampled_from(
    [
        "\t", "\n", "\r", "\r\n", "\\", " ", "  ", "\u2028", "\u2029", "\x85", "\x00", "\x07", "\ufeff", "\u00a0",
        "completed", "Completed", "status: completed", "\nstatus: completed", '"', "'", "#", " #", ": ", ":", "- ",
        "? ", "[", "{", "]", "}", ",", "&a", "*a", "!!str", "|", ">", "---", "...", "%", "@", "`", "x" * 90,
        "é", "中文", "\U0001f600", "\ud7ff", "\ue000",
    ]
)  # fmt: skip
TEXTS = st.lists(st.one_of(_SPECIAL, st.text(max_size=20)), max_size=12).map("".join)
_SCALARS = st.one_of(TEXTS, st.none(), st.booleans(), st.integers(), st.floats())
JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXTS, inner, max_size=4)),
    max_leaves=16,
)
_NESTED = st.one_of(st.none(), st.dictionaries(TEXTS, JSON, max_size=4))


@st.composite
def quest_dicts(draw: st.DrawFn, status: st.SearchStrategy[str] = MAIN_STATUSES) -> dict[str, Any]:
    """A quest.yaml's dict as main writes it (quest/layout.py initial_quest_yaml, then its updates)."""
    data = {
        "quest_id": draw(st.one_of(st.just("001"), TEXTS)),
        "title": draw(TEXTS),
        "quest_root": draw(TEXTS),
        "status": draw(status),
        "active_anchor": draw(TEXTS),
        "baseline_gate": "pending",
        "confirmed_baseline_ref": draw(_NESTED),
        "requested_baseline_ref": draw(_NESTED),
        "startup_contract": draw(_NESTED),
        "default_runner": draw(TEXTS),
        "created_at": "2026-11-22T02:02:06+00:00",
        "updated_at": draw(st.one_of(st.just("2026-11-22T03:00:00+00:00"), TEXTS)),
    }
    if draw(st.booleans()):
        data["active_run_id"] = draw(TEXTS)
    return data


MAIN_WRITES = quest_dicts().map(write_yaml)

_TOKENS = st.sampled_from(
    [
        '"', "'", "[", "{", "[]", "{}", "completed", "Completed", "active", "x y", "#c", " #c", "\\", '\\"', "''", "|",
        ">", "*a", "&a ", "]", "}", ",", "...", "---", ": ", ":", " ", "- ", "? ", "status", "Status", "status: ",
        "status: completed", "\t", "!!str ", "x", "-", "%", "  ", "\u00a0", "e", "<<: ",
    ]
)  # fmt: skip
_FREE = st.tuples(st.sampled_from(["", " ", "  ", "   ", "    "]), st.lists(_TOKENS, max_size=6)).map(
    lambda t: t[0] + "".join(t[1])
)
_KEYED = st.tuples(
    st.sampled_from(["a", "title", "status", "b_c"]), st.sampled_from([": ", ":"]), st.lists(_TOKENS, max_size=5)
).map(lambda t: t[0] + t[1] + "".join(t[2]))
_NESTED_LINE = st.tuples(
    st.sampled_from([" ", "  ", "   ", "    "]),
    st.sampled_from(["", "- ", "? ", ": ", "k: ", "- k: ", '"k": ', "&a ", "- - "]),
    st.lists(_TOKENS, max_size=5),
).map(lambda t: t[0] + t[1] + "".join(t[2]))
_BREAKS = st.sampled_from(["\n"] * 12 + ["\r\n", "\r", "\u2028", "\x85", "\u2029"])


@st.composite
def hostile_texts(draw: st.DrawFn) -> bytes:
    """A text of YAML's tokens, one line at a time; often a plain status line, and a key line first."""
    lines = draw(st.lists(st.tuples(st.one_of(_FREE, _KEYED, _KEYED, _NESTED_LINE, _NESTED_LINE), _BREAKS), max_size=8))
    out = [line + brk for line, brk in lines]
    if draw(st.booleans()):
        word = draw(st.sampled_from(["completed", "active", "Completed", "COMPLETED"]))
        out.insert(draw(st.integers(0, len(out))), f"status: {word}\n")
    if draw(st.booleans()):
        out.insert(0, "title: x\n")
    return "".join(out).encode("utf-8")


QUEST_YAMLS = st.one_of(MAIN_WRITES, quest_dicts(st.one_of(MAIN_STATUSES, TEXTS)).map(write_yaml), hostile_texts())
# texts main reads as completed more often than not: what it writes, other spellings, hostile ones
COMPLETIONS = st.one_of(
    quest_dicts(st.just("completed")).map(write_yaml),
    quest_dicts(st.sampled_from(["Completed", "COMPLETED", " completed", "completed\n", "\tcompleted"])).map(
        write_yaml
    ),
    hostile_texts(),
)
