"""What the config schema checks beyond JSON Schema Draft 7 (used by :mod:`hinter.config`).

Each closes a class of values that passed validation and failed later (review 2026-11-28):

- **integers are integers**: Draft 7's ``integer`` accepts ``2.0``, which ``range()`` then
  refuses deep inside planning (V01); ``number`` refuses NaN and the infinities, which pass
  every ``minimum`` and ``maximum`` (a cost cap of ``nan`` caps nothing);
- **patterns match in full**: ``re.search`` with ``^…$`` accepts a final line break;
- **URLs parse** (keyword ``url: true``): a ``base_url`` such as ``http://[::1`` matched the
  pattern and failed after outputs were written (N34);
- a name too long for the file system (keyword ``maxLength`` on names) is worded as such.
"""

from __future__ import annotations

import math
import re
from typing import Any
from urllib.parse import urlsplit

from jsonschema import Draft7Validator, validators
from jsonschema.exceptions import ValidationError


def _is_integer(checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _is_number(checker: Any, instance: Any) -> bool:
    if isinstance(instance, bool) or not isinstance(instance, (int, float)):
        return False
    return isinstance(instance, int) or math.isfinite(instance)


TYPE_CHECKER = Draft7Validator.TYPE_CHECKER.redefine_many(
    {"integer": _is_integer, "number": _is_number}
)


def full_pattern(validator, pattern, instance, schema):
    """``pattern`` matched against the whole string: ``re.search`` with ``^…$`` accepts a final
    line break (``$`` matches before it), so a name could end in ``\\n``."""
    if not isinstance(instance, str):
        return
    if re.search(pattern, instance) is None or (pattern.endswith("$") and instance.endswith("\n")):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def url_problem(text: str) -> str | None:
    """Why ``text`` is not an http(s) URL a client can connect to (None when it is)."""
    try:
        parts = urlsplit(text)
        port = parts.port  # a bad port (or a bracket left open) raises here
    except ValueError as exc:
        return f"not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "not an http:// or https:// URL"
    if not parts.hostname:
        return "has no host name"
    if port == 0:
        return "port 0 is not a port a server listens on"
    return None


def url(validator, wanted, instance, schema):
    if wanted and isinstance(instance, str):
        problem = url_problem(instance)
        if problem:
            yield ValidationError(f"{instance!r}: {problem}")


def extend(base):
    """``base`` with the keywords and types above."""
    return validators.extend(base, {"pattern": full_pattern, "url": url}, type_checker=TYPE_CHECKER)


def describe(error: ValidationError, key) -> str | None:
    """The message of the errors this module adds or words; None for the others."""
    if error.validator == "maxLength" and isinstance(error.instance, str):
        where = key([*error.absolute_path, error.instance]) if _is_key(error) else None
        where = where or key(list(error.absolute_path))
        return (
            f"config key '{where[:80]}': a name of {len(error.instance)} characters, more than "
            f"{error.validator_value} (it becomes a folder or file name)"
        )
    if error.validator == "type" and isinstance(error.instance, float):
        wanted = error.validator_value
        wanted = wanted if isinstance(wanted, list) else [wanted]
        if "integer" in wanted and error.instance.is_integer():
            return (
                f"config key '{key(list(error.absolute_path))}': {error.instance!r} is not an "
                f"integer; write {int(error.instance)}"
            )
        if not math.isfinite(error.instance):
            return (
                f"config key '{key(list(error.absolute_path))}': {error.instance} is not a number"
            )
    return None


def _is_key(error: ValidationError) -> bool:
    return "propertyNames" in error.schema_path
