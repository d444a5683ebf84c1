"""Exceptions that mean "bad input", kept apart so catching them imports nothing heavy."""


class QuestError(Exception):
    """Input ds-gate cannot work on at all (not a quest, unreadable): exit code 2."""
