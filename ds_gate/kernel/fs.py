"""File-system questions that answer rather than raise, and the one way a file is read.

On Python 3.11 ``Path.is_dir()`` raises ``PermissionError`` under a folder that cannot be
entered (a home under a private folder was exit 3); these say "no" for a missing path and tell a
hidden one apart, so a reader reports "cannot be read", not "empty". Every file a quest, a home
or the command line hands ds-gate is read by ``read_file`` or ``stream_lines``: never a FIFO or
device, never more than the limit (``$DS_GATE_MAX_FILE_MB``, 64 MB; docs/limits.md).
"""

from __future__ import annotations

import errno
import os
import stat

from ds_gate.kernel.errors import QuestError, shown

TYPE_CHECKING = False  # the commit hook reads staged blobs through kernel.git, which asks the limit here
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


def is_inside(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is ``root`` or below it, by their spelling: callers resolve both first
    (the containment test of every "never follow a pointer out of the quest" rule)."""
    try:
        return os.path.commonpath([root, path]) == os.fspath(root)
    except ValueError:  # different drives, or one relative and one absolute
        return False


_MISSING = {errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP}


def is_dir(path: Path | str) -> bool:
    """A folder the user can see (symbolic links followed); never raises."""
    return os.path.isdir(path)


def is_file(path: Path | str) -> bool:
    """A regular file the user can see (symbolic links followed); never raises."""
    return os.path.isfile(path)


def hidden(path: Path | str) -> OSError | None:
    """Why ``path`` cannot even be looked at (a parent folder the user may not enter), or
    None when it can, or is simply not there."""
    try:
        os.stat(path)
    except OSError as exc:
        return None if exc.errno in _MISSING else exc
    return None


# ---------------------------------------------------------------- reading a file, bounded

DEFAULT_MAX_FILE_MB = 64
MAX_FILE_VARIABLE = "DS_GATE_MAX_FILE_MB"
INDEX_FACTOR = 16  # an index is streamed a line at a time, so it may be this many times larger
_MB = 1 << 20
_CHUNK = 1 << 20
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegular(OSError):
    """A FIFO, device, socket or folder where a file was expected: never read, since reading
    one can block forever (a FIFO with no writer) or never end (``/dev/zero``)."""

    def __str__(self) -> str:
        return str(self.strerror)


class TooLarge(OSError):
    """A file (or git blob) larger than the limit: refused before it is read, so memory is
    bounded by the limit, never by what a quest holds."""

    def __init__(self, size: int, limit: int, filename: str | None = None) -> None:
        super().__init__(
            errno.EFBIG, f"larger than {megabytes(limit)} ({megabytes(size, exact=True)}), not read", filename
        )
        self.size = size
        self.limit = limit

    def __str__(self) -> str:
        return str(self.strerror)


def megabytes(size: int, *, exact: bool = False) -> str:
    """``64 MB`` for a limit, ``1,024.0 MB`` for a size (1 MB = 1,048,576 bytes)."""
    if exact:
        return f"{size:,} bytes" if size < _MB else f"{size / _MB:,.1f} MB"
    return f"{size / _MB:g} MB"


def max_file_bytes() -> int:
    """The largest record, card, YAML or JSON file ds-gate reads: ``$DS_GATE_MAX_FILE_MB``
    megabytes, else 64. Read on each call, so a test or a long-lived process can change it."""
    text = os.environ.get(MAX_FILE_VARIABLE, "").strip()
    if not text:
        return DEFAULT_MAX_FILE_MB * _MB
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1 << 30:  # also false for NaN
        raise QuestError(f"{MAX_FILE_VARIABLE} must be a positive number of megabytes, not {shown(text)}")
    return max(1, int(value * _MB))


def _open(path: Path | str, follow: bool, dir_fd: int | None = None) -> tuple[int, os.stat_result]:
    """An open descriptor of a regular file and its ``fstat``. ``O_NONBLOCK``: opening a FIFO
    with no writer would otherwise hang here, before ``fstat`` could refuse it; the kind is
    asked of the open descriptor, so a file swapped for a FIFO after a listing is refused too."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = next((name for test, name in _KINDS if test(st.st_mode)), "a special file")
            raise NotRegular(errno.EINVAL, f"not a regular file ({kind})", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_file(path: Path | str, *, follow: bool = True, limit: int | None = None, dir_fd: int | None = None) -> bytes:
    """See ``read_with_stat``: the bytes alone."""
    return read_with_stat(path, follow=follow, limit=limit, dir_fd=dir_fd)[0]


def text_or_none(path: Path | str) -> str | None:
    """A small file's text (bad bytes replaced), or None when it is missing, not a regular
    file, over the limit or unreadable: for the files ds-gate only peeks at (git's config, a
    hook script), where "cannot tell" reads as "not there"."""
    try:
        return read_file(path).decode("utf-8", "replace")
    except OSError:
        return None


def read_with_stat(
    path: Path | str, *, follow: bool = True, limit: int | None = None, dir_fd: int | None = None
) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file of at most ``limit`` bytes (default ``max_file_bytes()``), and
    the ``fstat`` taken before the read (the record cache keys what it read by it).

    Raises ``NotRegular`` for anything but a regular file, ``TooLarge`` when ``fstat`` says it is
    larger (a sparse 1 GB file costs nothing); at most ``limit + 1`` bytes are read, so a file that
    grows after ``fstat`` is still bounded. ``follow=False`` (``O_NOFOLLOW``): for a resolved path,
    a link swapped in since is refused."""
    limit = max_file_bytes() if limit is None else limit
    fd, st = _open(path, follow, dir_fd)  # ``dir_fd``: ``path`` relative to that folder (no walk of the whole path)
    try:
        if st.st_size > limit:
            raise TooLarge(st.st_size, limit, str(path))
        parts = [os.read(fd, st.st_size + 1)]  # one read for the usual file; +1 sees growth
        total = len(parts[0])
        while parts[-1] and total <= limit:
            parts.append(os.read(fd, min(_CHUNK, limit + 1 - total)))
            total += len(parts[-1])
        if total > limit:
            raise TooLarge(total, limit, str(path))
        return (parts[0] if len(parts) <= 2 else b"".join(parts)), st
    finally:
        os.close(fd)


def stream_lines(path: Path | str, *, follow: bool = True, limit: int | None = None) -> Iterator[bytes | TooLarge]:
    """A file's lines (newlines kept), for files read a line at a time (an ``_index.jsonl``):
    memory is bounded by one line, not by the file. The file may be ``INDEX_FACTOR`` times
    the limit; a larger one raises ``TooLarge`` before a byte is read. A line longer than the
    limit is skipped without being held and yielded as a ``TooLarge``, so line numbers stay
    right."""
    limit = max_file_bytes() if limit is None else limit
    cap = limit * INDEX_FACTOR
    fd, st = _open(path, follow)
    with os.fdopen(fd, "rb") as handle:
        if st.st_size > cap:
            raise TooLarge(st.st_size, cap, str(path))
        done = 0  # bytes read: a file that grows while it is read still stops at the cap
        while done <= cap:
            line = handle.readline(limit + 1)
            if not line:
                return
            done += len(line)
            if len(line) <= limit:
                yield line
                continue
            size = len(line)
            while not line.endswith(b"\n") and done <= cap:  # skip the rest of the line, a chunk at a time
                line = handle.readline(_CHUNK)
                if not line:
                    break
                size += len(line)
                done += len(line)
            yield TooLarge(size, limit, str(path))


def open_folder(path: str) -> int | None:
    """A folder open for ``os.stat``/``os.open(name, dir_fd=…)``: each record of an artifacts
    folder is stat'ed and read relative to it, ~1.8x faster than by its whole path (None: by path)."""
    try:
        return os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
