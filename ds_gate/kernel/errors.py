"""Exceptions that mean "bad input", kept apart so catching them imports nothing heavy."""


class QuestError(Exception):
    """Input ds-gate cannot work on at all (not a quest, unreadable): exit code 2."""


class NotAQuest(QuestError):
    """A folder with no ``quest.yaml`` at its root: ``closure``, finalizations and pre-push stop
    on it (exit 2); the commit hook lets an ordinary checkpoint there through, ungated."""

    def __init__(self, message: str, root: str) -> None:
        super().__init__(message)
        self.root = root
