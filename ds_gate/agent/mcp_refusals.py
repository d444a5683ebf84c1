"""The MCP server's answer to a request line the SDK would drop unanswered (``mcp_limits``).

The SDK's stdio reader validates each line with its JSON-RPC model; when that fails it passes
the exception on and sends nothing, so the client's call never ends. ``reader_check`` asks the
same model first and turns a failure into a ``Refusal``: a JSON-RPC error for the line's id
(read from the parsed object, or from its ends when it does not parse), or for ``null`` when no
id can be read, which JSON-RPC 2.0 prescribes for a parse error. The text names the limit met
and the fix, because the agent reading it takes it as its next step.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PARSE_ERROR = -32700  # JSON-RPC: the line is not JSON
INVALID_REQUEST = -32600  # JSON-RPC: JSON, but no request the server reads (also: over a limit)
REQUEST_TOO_LARGE = INVALID_REQUEST
MAX_DEPTH = 200  # the SDK's JSON parser (pydantic's jiter) refuses deeper nesting
EDGE = 4096  # bytes kept from each end of a line, to find its id
_VALUE = r'(-?\d+|"(?:[^"\\]|\\.)*")'
_ID_FIRST = re.compile(rb'^\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"[^"]*"\s*,\s*)*"id"\s*:\s*' + _VALUE.encode())
_ID_LAST = re.compile(rb'[,{]\s*"id"\s*:\s*' + _VALUE.encode() + rb"\s*\}\s*$")


@dataclass(frozen=True)
class Refusal:
    """A JSON-RPC error answering a request line the SDK is not handed."""

    code: int
    ident: int | str | None
    message: str


def request_id(head: bytes, tail: bytes) -> int | str | None:
    """The id of a request seen only by its two ends: first among the keys before ``params``
    (the Python SDK's order) or last in the object (the TypeScript SDK's); else None, which
    JSON-RPC allows when the id cannot be read."""
    found = _ID_FIRST.match(head) or _ID_LAST.search(tail)
    if found is None:
        return None
    return _an_id(_loads(found.group(1)))


def _an_id(value: object) -> int | str | None:
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


def _loads(text: bytes | str) -> object:
    """``text`` as Python's ``json`` reads it, or None (a number past Python's digit limit,
    nesting past its recursion limit, no JSON)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def refusal(line: str, problem: str, invalid_json: bool) -> Refusal | None:
    """The answer to ``line``, which the SDK's reader refused with ``problem`` (its first error;
    ``invalid_json``: the JSON parser's, not the message model's); None for a notification (a
    JSON object without an id: JSON-RPC answers none)."""
    parsed = _loads(line)
    if isinstance(parsed, dict):
        if "id" not in parsed and "method" in parsed:
            return None
        ident = _an_id(parsed.get("id"))
    else:
        raw = line.strip().encode("utf-8", "surrogateescape")
        ident = request_id(raw[:EDGE], raw[-EDGE:])
    if not invalid_json:
        return Refusal(
            INVALID_REQUEST,
            ident,
            f"invalid request: not a JSON-RPC 2.0 message the server reads ({problem}); not read. "
            "Send a request object with jsonrpc, id, method and params",
        )
    if "recursion limit" in problem:
        return Refusal(
            INVALID_REQUEST,
            ident,
            f"request refused: its JSON nests deeper than {MAX_DEPTH} levels, the MCP SDK's parser limit; not read. "
            "Send flatter arguments",
        )
    if "number out of range" in problem:
        return Refusal(
            INVALID_REQUEST,
            ident,
            "request refused: it holds a number the MCP SDK's parser cannot read (an integer of more than "
            "4,300 digits); not read. Send a smaller number",
        )
    return Refusal(
        PARSE_ERROR,
        ident,
        f"parse error: the line is not JSON ({problem}); not read. Send each request as one line of JSON",
    )


def reader_check(types: Any) -> Callable[[str], Refusal | None]:
    """A check reading a line as the SDK's stdio reader does (``types``: the SDK's ``mcp.types``
    or ``mcp_types``): None when the SDK reads it, else the ``Refusal`` answering it."""
    adapter = getattr(types, "jsonrpc_message_adapter", None)  # mcp 2.x; 1.x validates with the model

    def validate(line: str) -> object:
        if adapter is not None:
            return adapter.validate_json(line, by_name=False)
        return types.JSONRPCMessage.model_validate_json(line)

    def check(line: str) -> Refusal | None:
        try:
            validate(line)
        except Exception as exc:  # the SDK's reader catches any error, so any is answered
            errors = getattr(exc, "errors", None)
            first = errors()[0] if callable(errors) and errors() else {"type": "", "msg": str(exc)}
            problem = str(first.get("msg", "")).removeprefix("Invalid JSON: ")
            return refusal(line, problem, first.get("type") == "json_invalid")
        return None

    return check
