"""The MCP server's request limits: every request line gets an answer, whatever it holds.

The SDK's stdio transport reads a request with ``readline()``, so a 50 MB argument is held whole
(and parsed into several copies): ~1 GB for one request. ``BoundedLines`` returns a line of at most
the cap and consumes a longer one in pieces, keeping only its two ends (to find the request's
``id``), which is answered with JSON-RPC error ``-32600``; the server reads on. The cap,
``$DS_GATE_MCP_MAX_REQUEST_MB`` (1 by default), comes from the environment, a trusted place the
quest never sets (docs/limits.md).

A line the SDK cannot read (not JSON, nested deeper than its parser's 200 levels, an integer of
more than 4,300 digits, not a JSON-RPC message) it drops without a word, and a client without a
read timeout (the SDK's default) waits for ever. So each line is first read as the SDK reads it
(``mcp_refusals``); one it would drop is answered here with an error naming the limit and the
fix, for its id (or ``null``, as JSON-RPC says when the id cannot be read), and never reaches it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import IO, Any, BinaryIO, cast

from ds_gate.agent.mcp_refusals import EDGE, REQUEST_TOO_LARGE, Refusal, reader_check, request_id
from ds_gate.kernel.errors import QuestError, shown

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]

MAX_REQUEST_VARIABLE = "DS_GATE_MCP_MAX_REQUEST_MB"
DEFAULT_MAX_REQUEST_MB = 1.0
_PIECE = 1 << 16


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


class BoundedLines:
    """A text stream of the lines of ``raw`` no longer than ``cap`` bytes that ``check`` finds
    readable; a longer line is consumed without being held and, like a line ``check`` refuses,
    handed to ``refuse`` (which answers it) instead."""

    def __init__(
        self,
        raw: BinaryIO,
        cap: int,
        refuse: Callable[[Refusal], None],
        check: Callable[[str], Refusal | None] = lambda line: None,
    ) -> None:
        self._raw = raw
        self._cap = cap
        self._refuse = refuse
        self._check = check

    def readline(self) -> str:
        while True:
            line = self._raw.readline(self._cap + 1)
            if not line or line.endswith(b"\n") or len(line) <= self._cap:
                text = line.decode("utf-8", "replace")
                refused = self._check(text) if text.strip() else None  # a blank line is no request
                if refused is None:
                    return text
                self._refuse(refused)
                continue
            head, tail, size = line[:EDGE], line[-EDGE:], len(line)
            while not tail.endswith(b"\n"):
                piece = self._raw.readline(_PIECE)
                if not piece:
                    break
                size += len(piece)
                tail = (tail + piece)[-EDGE:]
            self._refuse(too_large(size, request_id(head, tail.rstrip(b"\r\n")), self._cap))

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


def too_large(size: int, ident: int | str | None, cap: int) -> Refusal:
    return Refusal(
        REQUEST_TOO_LARGE,
        ident,
        f"request too large: {size:,} bytes, over ds-gate's cap of {cap:,} bytes; not read. Send smaller "
        f"arguments (the server's user may raise {MAX_REQUEST_VARIABLE})",
    )


def _error(stdio: Any, refused: Refusal) -> Any:
    """The SDK's own message object for a JSON-RPC error answering a request it is not handed."""
    data = {"jsonrpc": "2.0", "id": refused.ident, "error": {"code": refused.code, "message": refused.message}}
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

    def refuse(refused: Refusal) -> None:  # on the reader's worker thread
        ready.wait()
        try:
            anyio.from_thread.run(holder[0].send, _error(stdio, refused))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the client went away: nobody to answer

    lines = BoundedLines(raw, cap, refuse, reader_check(cast(Any, stdio).types))
    try:
        async with stdio.stdio_server(stdin=anyio.wrap_file(cast(IO[str], lines))) as (
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
