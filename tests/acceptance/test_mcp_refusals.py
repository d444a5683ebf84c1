"""Issue 36 (adversary round 2, break 03): every request line ``ds-gate mcp`` cannot read gets a
JSON-RPC error answer, never silence. The SDK's stdio reader drops a line it cannot validate
(deeper than 200 levels, an integer of more than 4,300 digits, not JSON, not a message) without
a word, and its client waits without a timeout by default; the server answers each such line for
its id (``null`` when none can be read: -32700, as JSON-RPC 2.0 says) and answers the next call.
Through the real SDK client and raw stdio lines, each answer awaited with a timeout.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from test_mcp import connect, drive, is_error, payload

from helpers import McpLines

WAIT = McpLines.WAIT  # seconds; a silent server fails the test instead of hanging it


def nested(depth: int) -> str:
    return "[" * depth + '"x"' + "]" * depth


def call(ident: int, tool: str, arguments: str) -> bytes:
    return (
        f'{{"jsonrpc":"2.0","id":{ident},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}'
    ).encode()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("line", "ident", "code", "words"),
    [
        (call(1, "draft_distill_review", '{"run_ids":' + nested(200) + "}"), 1, -32600, "deeper than 200 levels"),
        (call(2, "draft_distill_review", '{"run_ids":' + nested(300) + "}"), 2, -32600, "Send flatter arguments"),
        (call(3, "list_recent", '{"limit":' + "9" * 4301 + "}"), 3, -32600, "more than 4,300 digits"),
        (call(4, "list_recent", '{"limit":1}')[:-2], 4, -32700, "parse error: the line is not JSON"),
        (b'{"params":{"name":"list_recent"},"method":"tools/call","jsonrpc":"2.0","id":"r-5"', None, -32700, "EOF"),
        (b"tools/call list_recent", None, -32700, "Send each request as one line of JSON"),
        (b'{"jsonrpc":"2.0","method":"tools/call","params":{"a":"\\ud800"' + b"]" * 3, None, -32700, "not JSON"),
        (b'{"jsonrpc":"2.0","id":6}', 6, -32600, "not a JSON-RPC 2.0 message"),
        (b"[1, 2]", None, -32600, "Send a request object"),
    ],
    ids=[
        "depth-200",
        "depth-300",
        "digits-4301",
        "truncated",
        "truncated-id-last",
        "not-json",
        "bad",
        "no-method",
        "array",
    ],
)
def test_a_line_the_sdk_would_drop_is_answered_and_the_next_call_too(make_quest, line, ident, code, words) -> None:
    server = McpLines(make_quest().root)
    server.send(line)
    refused = server.receive()
    assert refused["id"] == ident and refused["error"]["code"] == code, refused
    assert words in refused["error"]["message"] and "not read" in refused["error"]["message"], refused
    server.send(call(9, "list_recent", '{"limit":1}'))
    answered = server.receive()
    assert answered["id"] == 9 and not answered["result"]["isError"], answered
    assert "Traceback" not in server.close()


@pytest.mark.slow
def test_a_bad_notification_gets_no_answer_and_what_the_sdk_reads_is_unchanged(make_quest) -> None:
    server = McpLines(make_quest().root)
    server.send(b'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":' + nested(250).encode() + b"}}")
    server.send(b"")  # a blank line is no request
    server.send(call(1, "draft_distill_review", '{"run_ids":' + nested(150) + "}"))  # the SDK reads it: a tool error
    answered = server.receive()
    assert answered["id"] == 1 and answered["result"]["isError"], answered
    server.send(
        call(2, "list_recent", '{"limit":' + "9" * 4300 + "}")
    )  # at Python's digit limit: read, refused by the tool
    answered = server.receive()
    assert answered["id"] == 2 and "limit must be an integer" in answered["result"]["content"][0]["text"]
    assert "Traceback" not in server.close()


@pytest.mark.slow
def test_the_sdk_client_gets_an_error_for_a_huge_int_or_deep_nesting_not_a_hang(make_quest, tmp_path) -> None:
    quest = make_quest()
    errlog = tmp_path / "err.log"
    deep: Any = "x"
    for _ in range(250):
        deep = [deep]

    async def scenario() -> None:
        async with connect(quest.root, errlog) as session:
            for name, arguments, words in (
                ("list_recent", {"limit": 10**5000}, "more than 4,300 digits"),
                ("draft_distill_review", {"run_ids": deep}, "deeper than 200 levels"),
            ):
                with anyio.fail_after(WAIT):  # the SDK's own default is no timeout: a silent server hangs here
                    with pytest.raises(Exception) as raised:
                        await session.call_tool(name, arguments)
                assert words in str(raised.value), raised.value
                with anyio.fail_after(WAIT):
                    assert payload(await session.call_tool("list_recent", {"limit": 1}))["results"] is not None
            with anyio.fail_after(WAIT):
                assert not is_error(await session.call_tool("list_recent", {"limit": 2}))

    drive(scenario, errlog)
