"""A recall's answer, kept while nothing it read has changed, and given again by the kernel before
the command line loads (issue 38; ``ds_gate.__main__`` and ``cli.entry``; docs/performance.md).

The full path (``cli.recall`` through ``cli.kept``) keeps, in the user's cache folder
(``kernel.cache_folder``; never in a quest or a home), what it wrote to stdout and stderr, byte for
byte and in order, and its exit code, under the *request* (the exact argv, the working folder, the
environment variables that matter, the user, the interpreter and its flags, the streams'
encodings) and the cache's version, with what the answer *read* (``Watch``, told by the readers
themselves): paths whose stat matters (``lstat`` key; a link's also what it leads to and where),
paths whose kind alone matters, each card by the stat taken before it was read, each spelled path
with what it resolved to. A later process asking the same takes every one again; only when all
match does it print the kept bytes and exit with the kept code. Anything else (no kept answer, a
token that differs, a file of another version or seal, a terminal on stdout, any error) says
nothing, and the full path answers.

Never a stale answer: an answer is kept only when every stat it rests on is older than the run's
start by the cache's ``GRANULARITY`` (an edit within a timestamp's granularity leaves no trace;
where a path is not there, the folder that would hold it, which a removal changes), and when
every kind and resolved path is the same when kept as when it was read.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys

from ds_gate.kernel.cache_folder import (
    GRANULARITY,
    SEAL,
    seal,
    secret,
    stat_key,
    trusted,
    user_cache_dir,
    version,
)
from ds_gate.kernel.digest import blake2b

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the fast path
if TYPE_CHECKING:
    from collections.abc import Sequence

    Chunks = list[tuple[int, bytes]]  # (1 or 2, bytes) in the order they were written

FOLDER = "answers"  # in the cache folder: one file per request
KEEP = 32  # answers kept at most (each up to ~0.7 MB at 10,000 cards); the oldest go first
LIMIT = 64 << 20  # a larger answer file is not read
PART = b"recall-answer"  # this file kind's part of the cache version
ENV_PREFIXES = ("DS_", "DEEPSCIENTIST_", "XDG_", "LC_", "PYTHON")
ENV_NAMES = frozenset({"HOME", "LANG", "LANGUAGE", "NO_COLOR", "COLUMNS", "TERM"})
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class Watch:
    """What one answer read, told by the readers that read it: ``looks``, paths whose stat
    matters (folders listed, files read whole, files whose absence mattered), taken when the
    answer is kept; ``kinds``, paths whose kind alone matters (a quest's ``quest.yaml``, the marks
    of a trusted place), taken when looked at and again when kept; ``stats``, cards with the stat
    taken before each was read; ``reals``, a path as spelled and what it resolved to."""

    __slots__ = ("kinds", "looks", "reals", "stats")

    def __init__(self) -> None:
        self.looks: list[tuple[str, bytes]] = []
        self.kinds: list[tuple[str, bytes]] = []
        self.stats: list[tuple[str, os.stat_result]] = []
        self.reals: list[tuple[str, str]] = []

    def look(self, *paths: str | os.PathLike[str]) -> None:
        """Call before reading ``paths``: their tokens now, which must still hold when the answer is
        kept (an old file swapped in between, by a folder renamed or a link re-pointed on the way, is
        settled, and its stat alone would vouch for an answer made from another)."""
        self.looks.extend((os.fspath(p), _token(os.fspath(p))) for p in paths)

    def looked(self, path: str | os.PathLike[str], token: bytes) -> None:
        """``path`` with the token a reader took before it read it (``before``)."""
        self.looks.append((os.fspath(path), token))

    def kind(self, path: str | os.PathLike[str]) -> None:
        """Call before looking at ``path``: its kind now (is there, a folder, a link to where)."""
        self.kinds.append((os.fspath(path), _token(os.fspath(path), full=False)))

    def real(self, spelled: str | os.PathLike[str], resolved: str | os.PathLike[str]) -> None:
        self.reals.append((os.fspath(spelled), os.fspath(resolved)))


def request(argv: Sequence[str]) -> bytes:
    """What an answer is asked by, besides the files: argv, the working folder, the variables
    that matter, the user, the interpreter (its environment, flags and warning options: another
    venv may hold other libraries), and the encodings of stdout and stderr."""
    env = sorted((k, v) for k, v in os.environ.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES))
    streams = tuple((getattr(s, "encoding", None), getattr(s, "errors", None)) for s in (sys.stdout, sys.stderr))
    python = (sys.executable, sys.prefix, sys.flags, sys.warnoptions, sys._xoptions)
    # repr, not marshal: marshal's bytes depend on how the values were made (interned, shared)
    return repr((tuple(argv), os.getcwd(), tuple(env), os.getuid(), python, streams)).encode("utf-8", "surrogatepass")


def before(path: str | os.PathLike[str]) -> bytes:
    """A path's token, taken by a reader before it reads the file (``Watch.looked``)."""
    return _token(os.fspath(path))


def _token(path: str, full: bool = True) -> bytes:
    """A path's token: its ``lstat`` key (``full``) or only its kind; a link's also what it leads
    to (its stat key, or kind) and its real path; the errno when there is nothing there."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError) as exc:
        return b"!%d" % (getattr(exc, "errno", None) or 0)
    token = (stat_key(st) if full else b"") + stat.S_IFMT(st.st_mode).to_bytes(4, "little")
    if stat.S_ISLNK(st.st_mode):
        try:
            led = os.stat(path)
            token += b">" + (stat_key(led) if full else b"") + stat.S_IFMT(led.st_mode).to_bytes(4, "little")
        except OSError as exc:
            token += b">!%d" % (exc.errno or 0)
        token += b">" + os.fsencode(os.path.realpath(path))
    return token


def _settled(path: str, settled: int) -> bool:
    """Whether nothing changed at ``path`` since ``settled`` (ns): not it, nor what a link of it leads
    to, nor, where either is not there, the nearest folder above it (which a removal changes)."""
    for place in dict.fromkeys((path, os.path.realpath(path))):
        while True:
            try:
                st = os.lstat(place)
            except (FileNotFoundError, NotADirectoryError):
                if place == os.path.dirname(place):
                    break
                place = os.path.dirname(place)
                continue
            except (OSError, ValueError):
                return False
            if not (0 <= st.st_mtime_ns < settled and 0 <= st.st_ctime_ns < settled):
                return False
            break
    return True


def _file(argv: Sequence[str]) -> tuple[str, str, bytes, bytes, bytes] | None:
    """(cache folder, answer file, request, version, its name as bytes), or None when there is no
    cache folder to trust or this is not a process that could be answered (POSIX only)."""
    if os.name != "posix" or sys.stdout is None or sys.stderr is None:
        return None
    folder = user_cache_dir()
    if folder is None:
        return None
    asked = request(argv)
    kind = version((PART,))
    name = blake2b(kind + asked, digest_size=16).hexdigest()
    return folder, os.path.join(folder, FOLDER, name), asked, kind, name.encode()


def keep(argv: Sequence[str], watch: Watch, code: int, chunks: Chunks, started: int) -> bool:
    """Keep this answer (False when it may not be: something read changed around the run, or the
    cache folder cannot be used). ``started``: ``time.time_ns()`` before anything was read."""
    try:
        where = _file(argv)
        if where is None:
            return False
        folder, path, asked, kind, name = where
        settled = started - GRANULARITY
        looks = list(dict.fromkeys(watch.looks))
        if any(_token(seen) != token for seen, token in looks):
            return False  # changed since it was read: the answer may be another's
        if not all(_settled(seen, settled) for seen, _ in looks):
            return False  # changed around the run: its stat may not tell the next change
        if any(_token(seen, full=False) != token for seen, token in watch.kinds):
            return False  # changed while the answer was made
        if any(os.path.realpath(spelled) != resolved for spelled, resolved in watch.reals):
            return False  # a link on the way changed while the answer was made
        folders: dict[str, tuple[list[str], list[bytes]]] = {}
        for card, st in watch.stats:
            if not (0 <= st.st_mtime_ns < settled and 0 <= st.st_ctime_ns < settled):
                return False
            parent, base = os.path.split(card)
            names, keys = folders.setdefault(parent, ([], []))
            names.append(base)
            keys.append(stat_key(st))
        # a folder's cards as two values (names, keys): 10,000 pairs cost a new process more to load
        cards = tuple((parent, "\0".join(names), b"".join(keys)) for parent, (names, keys) in folders.items())
        kinds = tuple(dict.fromkeys(watch.kinds))
        body = marshal.dumps((asked, code, tuple(chunks), tuple(looks), kinds, cards, tuple(watch.reals)))
        answers = os.path.dirname(path)
        os.makedirs(answers, mode=0o700, exist_ok=True)
        key = secret(folder)
        if key is None or not trusted(folder, FOLDER) or not trusted(answers, os.path.basename(path)):
            return False
        temporary = f"{path}.{os.getpid()}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        try:
            data = memoryview(seal(kind, key, (name, body)) + body)
            while data:
                data = data[os.write(fd, data) :]
        finally:
            os.close(fd)
        os.replace(temporary, path)
        _prune(answers)
    except (OSError, ValueError):
        return False
    return True


def _prune(answers: str) -> None:
    """At most ``KEEP`` answers: each edit of ds-gate's code, and each new request, makes a new file."""
    with os.scandir(answers) as found:
        files = [(entry.stat(follow_symlinks=False).st_mtime_ns, entry.path) for entry in found]
    for _, old in sorted(files)[: max(0, len(files) - KEEP)]:
        try:
            os.unlink(old)
        except OSError:
            pass


def kept(argv: Sequence[str]) -> tuple[int, Chunks] | None:
    """The kept answer to this request, when everything it read is as it was; else None."""
    try:
        where = _file(argv)
        if where is None:
            return None
        folder, path, asked, kind, name = where
        if not trusted(folder, FOLDER) or not trusted(os.path.dirname(path), os.path.basename(path)):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW)  # a FIFO planted there never blocks
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_size > LIMIT:
                return None
            data = b"".join(iter(lambda: os.read(fd, 1 << 20), b""))
        finally:
            os.close(fd)
        key = secret(folder, make=False)
        if key is None or data[:SEAL] != seal(kind, key, (name, data[SEAL:])):
            return None
        held, code, chunks, looks, kinds, cards, reals = marshal.loads(data[SEAL:])
        if held != asked or any(os.path.realpath(spelled) != resolved for spelled, resolved in reals):
            return None
        if any(_token(seen) != token for seen, token in looks):
            return None
        if any(_token(seen, full=False) != token for seen, token in kinds):
            return None
        for parent, names, keys in cards:  # each card's stat, relative to its open folder (a shorter walk)
            dir_fd = os.open(parent, os.O_RDONLY | _DIRECTORY)
            try:
                now = b"".join([stat_key(os.stat(base, dir_fd=dir_fd)) for base in names.split("\0")])
            finally:
                os.close(dir_fd)
            if now != keys:
                return None
        return code, list(chunks)
    except Exception:  # any doubt: the full path answers
        return None


def served(argv: Sequence[str]) -> int | None:
    """Print the kept answer to a ``recall`` call and give its exit code; None: not kept, changed,
    or stdout is a terminal (text there is laid out for it), so the full path answers."""
    if list(argv[:1]) != ["recall"]:
        return None
    try:
        if os.isatty(1):
            return None
    except OSError:
        return None
    found = kept(argv)
    if found is None:
        return None
    code, chunks = found
    closed: set[int] = set()
    for fd, data in chunks:
        view = memoryview(data)
        while view and fd not in closed:
            try:
                view = view[os.write(fd, view) :]
            except OSError:  # `| head`: the reader left; the answer still stands, as on the full path
                closed.add(fd)
    return int(code)
