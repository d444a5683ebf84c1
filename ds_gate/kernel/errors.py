"""Exceptions that mean "bad input", kept apart so catching them imports nothing heavy, and
``shown``: the one way a message names a value it was given."""


class QuestError(Exception):
    """Input ds-gate cannot work on at all (not a quest, unreadable): exit code 2."""


class NotAQuest(QuestError):
    """A folder with no ``quest.yaml`` at its root: ``closure``, finalizations and pre-push stop
    on it (exit 2); the commit hook lets an ordinary checkpoint there through, ungated."""

    def __init__(self, message: str, root: str) -> None:
        super().__init__(message)
        self.root = root


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
