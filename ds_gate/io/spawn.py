"""A program run to its end, its output read, without importing ``subprocess``.

The commit hook runs on every checkpoint an agent makes, and on an ordinary checkpoint its
whole work is one ``git diff --cached``. Importing ``subprocess`` (``selectors``,
``threading``, ``signal``, ``locale``) costs ~9 ms here, more than that git call; so the
calls that need no input and run in this process's folder go through ``os.posix_spawn``.
"""

from __future__ import annotations

import os


class Done:
    """What a git call returned (``subprocess.CompletedProcess``'s three fields, without
    importing subprocess where it is not needed)."""

    __slots__ = ("returncode", "stdout", "stderr")

    def __init__(self, returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def spawn(command: list[str], env: dict[str, str]) -> Done:
    """``command`` in this process's folder, read to the end: ``os.posix_spawn`` and two
    pipes drained together (``poll``, so neither can fill and stall git). The commit hook's
    one call on an ordinary checkpoint goes this way, because importing ``subprocess``
    (selectors, threading, signal, locale) costs more than the call itself."""
    import select

    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        pid = os.posix_spawn(command[0], command, env, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_DUP2, err_w, 2),
        ])
    except BaseException:
        os.close(out_r)
        os.close(err_r)
        raise
    finally:
        os.close(out_w)
        os.close(err_w)
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    poller = select.poll()
    for fd in chunks:
        poller.register(fd, select.POLLIN)
    open_fds = set(chunks)
    while open_fds:
        for fd, _event in poller.poll():
            data = os.read(fd, 1 << 16)
            if data:
                chunks[fd].append(data)
            else:
                poller.unregister(fd)
                open_fds.discard(fd)
                os.close(fd)
    _, status = os.waitpid(pid, 0)
    return Done(os.waitstatus_to_exitcode(status), b"".join(chunks[out_r]), b"".join(chunks[err_r]))
