"""The one way ds-gate runs a program (git): started, fed, read to its end, reaped.

With ``os.posix_spawn``: on an ordinary checkpoint the hook's whole work is one ``git diff
--cached``, which importing ``subprocess`` would cost more than. Only a platform without it
(Windows) goes through ``subprocess``.
"""

from __future__ import annotations

import os
import select


class Done:
    """What a git call returned (``subprocess.CompletedProcess``'s three fields, without
    importing subprocess where it is not needed)."""

    __slots__ = ("returncode", "stdout", "stderr")

    def __init__(self, returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


class Running:
    """A program started by ``start``; ``wait`` feeds its input, reads its output to the end
    and reaps it. Until then it runs beside this process: the commit hook starts
    ``git worktree list`` and validates the staged records while git answers."""

    __slots__ = ("pid", "out_r", "err_r", "in_w", "stdin", "done")

    def __init__(self, pid: int, out_r: int, err_r: int, in_w: int, stdin: bytes, done: Done | None = None) -> None:
        self.pid, self.out_r, self.err_r, self.in_w, self.stdin = pid, out_r, err_r, in_w, stdin
        self.done = done  # already run to its end (a platform without posix_spawn)

    def wait(self) -> Done:
        """Serve the pipes together (``poll``, so none can fill and stall the program), then
        reap it."""
        if self.done is not None:
            return self.done
        out_r, err_r, in_w = self.out_r, self.err_r, self.in_w
        chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
        poller = select.poll()
        for fd in chunks:
            poller.register(fd, select.POLLIN)
        open_fds = set(chunks)
        pending = memoryview(self.stdin)
        if in_w >= 0:
            os.set_blocking(in_w, False)
            poller.register(in_w, select.POLLOUT)
            open_fds.add(in_w)
        while open_fds:
            for fd, _event in poller.poll():
                if fd == in_w:
                    try:
                        pending = pending[os.write(in_w, pending[: 1 << 16]) :]
                    except BrokenPipeError:  # the program stopped reading (it failed): its exit code says why
                        pending = pending[:0]
                    if not pending:
                        poller.unregister(in_w)
                        open_fds.discard(in_w)
                        os.close(in_w)
                    continue
                data = os.read(fd, 1 << 16)
                if data:
                    chunks[fd].append(data)
                else:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                    os.close(fd)
        _, status = os.waitpid(self.pid, 0)
        return Done(os.waitstatus_to_exitcode(status), b"".join(chunks[out_r]), b"".join(chunks[err_r]))


def start(command: list[str], env: dict[str, str], stdin: bytes | None = None) -> Running:
    """``command`` started in this process's folder with ``os.posix_spawn``, fed ``stdin`` (else
    ``/dev/null``) once ``wait`` is called: the commit hook's git calls, for which importing
    ``subprocess`` costs more than the call itself."""
    if not hasattr(os, "posix_spawn"):
        import subprocess  # kernel.lazy.LAZY_PLACES: only where os.posix_spawn is missing

        ran = subprocess.run(command, input=stdin, capture_output=True, env=env, check=False)
        return Running(-1, -1, -1, -1, b"", Done(ran.returncode, ran.stdout, ran.stderr))
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if stdin else (-1, -1)
    feed = [(os.POSIX_SPAWN_DUP2, in_r, 0) if stdin else (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    try:
        pid = os.posix_spawn(
            command[0],
            command,
            env,
            file_actions=[
                *feed,
                (os.POSIX_SPAWN_DUP2, out_w, 1),
                (os.POSIX_SPAWN_DUP2, err_w, 2),
            ],
        )
    except BaseException:
        for fd in (out_r, err_r, in_w):
            if fd >= 0:
                os.close(fd)
        raise
    finally:
        for fd in (out_w, err_w, in_r):
            if fd >= 0:
                os.close(fd)
    return Running(pid, out_r, err_r, in_w, stdin or b"")
