"""The MCP server's request cap: one JSON-RPC line is read in bounded memory, whatever its size.

The SDK's stdio transport reads a request with ``readline()``, so a 50 MB argument is held whole
(and parsed into several copies): ~1 GB for one request. ``BoundedLines`` returns a line of at most
the cap and consumes a longer one in pieces, keeping only its two ends (to find the request's
``id``), which is answered with JSON-RPC error ``-32600``; the server reads on. The cap,
``$DS_GATE_MCP_MAX_REQUEST_MB`` (1 by default), comes from the environment, a trusted place the
quest never sets (docs/limits.md).
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import IO, Any, BinaryIO, cast

from ds_gate.kernel.errors import QuestError, shown

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]

MAX_REQUEST_VARIABLE = "DS_GATE_MCP_MAX_REQUEST_MB"
DEFAULT_MAX_REQUEST_MB = 1.0
REQUEST_TOO_LARGE = -32600  # JSON-RPC "Invalid Request"
_PIECE = 1 << 16
_EDGE = 4096  # bytes kept from each end of an over-long line, to find its id
_VALUE = r'(-?\d+|"(?:[^"\\]|\\.)*")'
_ID_FIRST = re.compile(rb'^\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"[^"]*"\s*,\s*)*"id"\s*:\s*' + _VALUE.encode())
_ID_LAST = re.compile(rb'[,{]\s*"id"\s*:\s*' + _VALUE.encode() + rb"\s*\}\s*$")


def max_request_bytes() -> int:
    """``$DS_GATE_MCP_MAX_REQUEST_MB`` in bytes (1 MB when unset); a bad value is a usage error."""
    text = os.environ.get(MAX_REQUEST_VARIABLE, "").strip()
    if not text:
        return int(DEFAULT_MAX_REQUEST_MB * (1 << 20))
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1024:  # also false for NaN
        raise QuestError(f"{MAX_REQUEST_VARIABLE} must be a number of megabytes from 0 to 1024, not {shown(text)}")
    return max(1024, int(value * (1 << 20)))


def request_id(head: bytes, tail: bytes) -> int | str | None:
    """The id of a request seen only by its two ends: first among the keys before ``params``
    (the Python SDK's order) or last in the object (the TypeScript SDK's); else None, which
    JSON-RPC allows when the id cannot be read."""
    found = _ID_FIRST.match(head) or _ID_LAST.search(tail)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


class BoundedLines:
    """A text stream of the lines of ``raw`` no longer than ``cap`` bytes; a longer line is
    consumed without being held and reported to ``too_long(size, id)`` instead."""

    def __init__(self, raw: BinaryIO, cap: int, too_long: Callable[[int, int | str | None], None]) -> None:
        self._raw = raw
        self._cap = cap
        self._too_long = too_long

    def readline(self) -> str:
        while True:
            line = self._raw.readline(self._cap + 1)
            if not line or line.endswith(b"\n") or len(line) <= self._cap:
                return line.decode("utf-8", "replace")
            head, tail, size = line[:_EDGE], line[-_EDGE:], len(line)
            while not tail.endswith(b"\n"):
                piece = self._raw.readline(_PIECE)
                if not piece:
                    break
                size += len(piece)
                tail = (tail + piece)[-_EDGE:]
            self._too_long(size, request_id(head, tail.rstrip(b"\r\n")))

    def close(self) -> None:
        """The wire is the process's stdin: never closed here."""


def _claim_stdin() -> tuple[BinaryIO, Callable[[], None]]:
    """Serve the wire from a private duplicate of fd 0 and point fd 0 at the null device, as
    the SDK does for the stdin it reads itself, so a child process never reads a request."""
    try:
        if fcntl is None:
            raise OSError("no fcntl on this platform")
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        return sys.stdin.buffer, lambda: None
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)

    def restore() -> None:
        os.dup2(private, 0)

    return os.fdopen(private, "rb", closefd=False), restore


def _error(stdio: Any, size: int, ident: int | str | None, cap: int) -> Any:
    """The SDK's own message object for a JSON-RPC error answering an over-long request."""
    data = {
        "jsonrpc": "2.0",
        "id": ident,
        "error": {
            "code": REQUEST_TOO_LARGE,
            "message": f"request too large: {size:,} bytes, over ds-gate's cap of {cap:,} bytes; not read. Send smaller "
            f"arguments (the server's user may raise {MAX_REQUEST_VARIABLE})",
        },
    }
    types = stdio.types
    adapter = getattr(types, "jsonrpc_message_adapter", None)
    message = adapter.validate_python(data) if adapter is not None else types.JSONRPCMessage.model_validate(data)
    return stdio.SessionMessage(message)


@asynccontextmanager
async def bounded_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's ``stdio_server`` reading stdin through ``BoundedLines``."""
    import anyio
    import anyio.from_thread
    from mcp.server import stdio

    cap = max_request_bytes()
    raw, restore = _claim_stdin()
    holder: list[Any] = []
    ready = threading.Event()  # the reader may meet an over-long first line before the stream is handed out

    def too_long(size: int, ident: int | str | None) -> None:  # on the reader's worker thread
        ready.wait()
        try:
            anyio.from_thread.run(holder[0].send, _error(stdio, size, ident, cap))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the client went away: nobody to answer

    try:
        async with stdio.stdio_server(stdin=anyio.wrap_file(cast(IO[str], BoundedLines(raw, cap, too_long)))) as (
            read,
            write,
        ):
            holder.append(write)
            ready.set()
            yield read, write
    finally:
        restore()


def run_stdio(server: Any) -> None:
    """Serve an ``MCPServer`` (or ``FastMCP``) over stdio with the request cap."""
    import anyio

    async def serve() -> None:
        low = getattr(server, "_lowlevel_server", None) or server._mcp_server  # MCPServer (2.x) or FastMCP (1.x)
        async with bounded_stdio() as (read, write):
            await low.run(read, write, low.create_initialization_options())

    anyio.run(serve)
