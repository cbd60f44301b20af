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


def os_error(exc: OSError, doing: str = "") -> str:
    """One line for a failed file operation, with advice that fits the cause.

    A full disk, a read-only location and a missing folder each need a different fix; the
    message says which, and names the file.
    """
    import errno

    where = exc.filename or ""
    what = f"{doing} {where}".strip() if doing or where else "file operation"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{what}: no space left on the device (free some space and rerun to resume)"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{what}: permission denied (not writable here; choose another folder)"
    reason = exc.strerror or first_line(exc)
    return f"{what}: {reason}"


def sqlite_error(path, exc: BaseException, what: str) -> str:
    """One line for a failed SQLite cache operation; only a corrupt file is to be deleted."""
    text = first_line(exc)
    lowered = text.lower()
    if "disk is full" in lowered:
        return f"{path}: no space left on the device for the {what} (free some space and rerun)"
    if "readonly" in lowered or "read-only" in lowered or "unable to open" in lowered:
        return f"{path}: cannot write the {what} ({text}; check the folder's permissions)"
    if "locked" in lowered or "busy" in lowered:
        return f"{path}: the {what} is locked by another process ({text}); retry when it ends"
    return f"{path}: unusable {what} ({text}); delete the file to rebuild it"
