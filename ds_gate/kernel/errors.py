"""Exceptions that mean "bad input", kept apart so catching them imports nothing heavy, and
``shown``: the one way a message names a value it was given."""

FIX = ". Fix: "  # how a stop's message most often hands over to its fix


class QuestError(Exception):
    """Input ds-gate cannot work on at all (not a quest, unreadable): exit code 2.

    The message is ``cause + joint + fix``, as the raising site words it; ``cause`` and ``fix``
    are also kept apart, set where the stop is raised, so what shows the fix on its own (JSON
    ``fix``, SARIF ``properties.fix``, the GitHub and Markdown ``fix:`` lines, a JUnit hint) never
    cuts it from the message: a cause may quote the quest's own text (a link's target, a path),
    which may hold any marker. ``fix`` None: the stop names none."""

    def __init__(self, cause: str, fix: str | None = None, joint: str = FIX) -> None:
        super().__init__(cause if fix is None else f"{cause}{joint}{fix}")
        self.cause, self.fix, self.joint = cause, fix, joint


class NotAQuest(QuestError):
    """A folder with no ``quest.yaml`` at its root: ``closure``, finalizations and pre-push stop
    on it (exit 2); the commit hook lets an ordinary checkpoint there through, ungated."""

    def __init__(self, cause: str, root: str, fix: str | None = None, joint: str = FIX) -> None:
        super().__init__(cause, fix, joint)
        self.root = root

    def then(self, more: str) -> "NotAQuest":
        """This stop with ``more`` said after it, as part of its fix (a finalizing hook's reason to stop)."""
        if self.fix is None:
            return NotAQuest(f"{self}; {more}", self.root)
        return NotAQuest(self.cause, self.root, f"{self.fix}; {more}", self.joint)


def shown(value: object, limit: int | None = None) -> str:
    """``repr(value)``, at most ``limit`` characters, for a message about a value ds-gate was
    given (an API or tool argument, a quest's field). ``repr`` itself raises on an integer of more
    digits than Python converts (``ValueError``) and on a list nested deeper than the stack
    (``RecursionError``), and a value's own ``__repr__`` may raise anything; such a value is
    named, not shown, so the message about a bad input never becomes an error of its own.
    ``tests/unit/test_shown.py`` holds every message to it (no ``!r`` in ``ds_gate/``)."""
    try:
        text = repr(value)
    except Exception:  # any failure of a value's own repr is the same "cannot show"
        return "(too large or too deeply nested to show)"
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."
