"""The one escaping place (``reporters/escape.py``) and the writer at the CLI's edge."""

from __future__ import annotations

import io
import json
import os
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from hypothesis import given, settings
from hypothesis import strategies as st

from ds_gate.cli._shared import write
from ds_gate.reporters.escape import json_safe, md, printable


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("run-a\nb.json", "run-a\\nb.json"),
        ("red\x1b[31m\rover", "red\\x1b[31m\\rover"),
        ("tab\there", "tab\\there"),
        (os.fsdecode(b"\xff\xfe.json"), "\\xff\\xfe.json"),  # bytes that were not UTF-8: shown as the bytes
        ("\x00\x7f\x85\x9f", "\\x00\\x7f\\x85\\x9f"),  # NUL, DEL and C1 controls
        ("lone \ud800", "lone \\ud800"),  # a surrogate JSON's \\ud800 made, not a byte
    ],
)
def test_printable_escapes_what_would_split_a_line_or_drive_a_terminal(raw, shown) -> None:
    assert printable(raw) == shown
    printable(raw).encode("utf-8")  # always encodable


@pytest.mark.parametrize("text", ["plain ascii", "中文\u3000全角 space", "emoji \U0001f600", "back\\slash", ""])
def test_printable_leaves_ordinary_text_as_it_is(text) -> None:
    assert printable(text) is text  # the same object: golden output cannot change


def test_json_safe_turns_lone_surrogates_into_visible_escapes_and_keeps_json_valid() -> None:
    value = {"path": os.fsdecode(b"artifacts/runs/\xff.json"), "summary": "\x1b[31m\r", "odd": "\ud800", "zh": "中文"}
    out = json_safe(json.dumps(value, ensure_ascii=False))
    back = json.loads(out.encode("utf-8"))
    assert back == {"path": "artifacts/runs/\\xff.json", "summary": "\x1b[31m\r", "odd": "\\ud800", "zh": "中文"}
    plain = json.dumps({"a": "b"}, ensure_ascii=False)
    assert json_safe(plain) is plain


def test_write_escapes_what_the_stream_cannot_encode_and_json_stays_utf8() -> None:
    ascii_stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    write(ascii_stream, "学习 ok\n")
    assert ascii_stream.buffer.getvalue() == b"\\u5b66\\u4e60 ok\n"
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    write(latin, '{"t": "学"}\n', "utf-8")
    assert json.loads(latin.buffer.getvalue().decode("utf-8")) == {"t": "学"}
    plain = io.StringIO()
    write(plain, "no buffer\n")
    assert plain.getvalue() == "no buffer\n"


def gfm(markdown: str) -> str:
    """``markdown`` as GitHub renders it (cmark-gfm with its extensions: tables, autolinks)."""
    return str(cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE))


@pytest.mark.parametrize(
    "text",
    [
        "see https://evil.example/x",
        "www.evil.example",
        "mail me@evil.example",
        "mailto:a@evil.example",
        "xmpp:a@evil.example",
        "ftp://evil.example",
        "HTTPS://EVIL.EXAMPLE",
        "1@.a",  # found by the table-cell property: GFM links an address whose domain starts with a dot
        "[x](https://evil.example) ![i](https://evil.example/i.png) <a href=x>y</a>",
    ],
)
def test_md_draws_no_link_in_githubs_markdown_where_the_raw_text_would(text: str) -> None:
    """Adversary s4 break 05: escaping alone left bare URLs, ``www.`` and e-mail addresses, which GFM
    links with no syntax; a step summary showed the quest's links."""
    assert "<a " in gfm(text) or "<img" in gfm(text)
    assert "<a " not in gfm(md(text)) and "<img" not in gfm(md(text))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:/.@#w|[]()<>!*_`~&;\\ \n\t-1")), max_size=60))
def test_md_in_a_table_cell_is_one_inert_cell(text: str) -> None:
    """Whatever the quest writes: one cell, no element of its own (no link, image or HTML)."""
    html = gfm(f"| a | b |\n|---|---|\n| {md(text)} | z |\n")
    assert html.count("<td>") == 2 and "<a " not in html and "<img" not in html
    assert all(tag in ("table", "thead", "tbody", "tr", "th", "td") for tag in re.findall(r"<(\w+)", html))


def plain_text(text: str) -> bool:
    """``text`` as a line is one paragraph, and as a list item's start one item of one list."""
    line, item = gfm(f"{text}\n"), gfm(f"- {text}: tail\n")
    return set(re.findall(r"<(\w+)", line)) <= {"p"} and (
        set(re.findall(r"<(\w+)", item)) <= {"ul", "li"} and item.count("<ul>") == 1
    )


@pytest.mark.parametrize("text", ["# INJECTED", "1. x", "1) x", "+ x", "- - -", "    code", "  # h", "=== x"])
def test_md_at_the_start_of_a_list_item_or_line_starts_no_block(text: str) -> None:
    """Adversary s5 break 03: the report's lists begin an item with quest text; `# x` became a heading,
    `1. x` a list, four spaces a code block."""
    assert not plain_text(text) or text == "=== x"  # unescaped, each starts a block of its own
    assert plain_text(md(text))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("#+-=1.) >*`_~[]!<&:/@w\t\n")), max_size=30))
def test_md_as_a_list_item_or_a_line_is_plain_text(text: str) -> None:
    assert plain_text(md(text)), (text, md(text))
