"""Errors that end a run with one line naming the file, row or key at fault."""


class HinterError(Exception):
    """Base class: the message is a complete one-line explanation for the user."""


class ConfigError(HinterError):
    """The configuration is invalid; the message names the key."""


class DataError(HinterError):
    """An input file or dataset is malformed or disagrees with the known facts."""


class OfflineError(HinterError):
    """A hub resource was requested while offline."""


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (library errors can span many lines)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
