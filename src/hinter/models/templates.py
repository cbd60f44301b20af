"""A chat template is code from the model folder: its rendering is bounded in steps, time and size.

transformers renders chat templates in Jinja's sandbox, which blocks escapes (review 2026-11-28,
N31) but bounds nothing: two nested ``range(100000)`` loops render for hours (N33). The
sandbox compiles a template to Python, so :func:`bounded_render` runs the rendering under a
trace function that counts the lines it executes and refuses the template, with one
ConfigError, once it passes :data:`MAX_STEPS` lines or :data:`MAX_SECONDS`; a rendering longer
than :data:`MAX_CHARS` is refused too. A real template renders a chat in a few thousand lines.
The frame of a prompt is rendered once per model and prompt (:func:`hinter.models.context.
chat_frame`), so the trace costs nothing per document.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from hinter.errors import ConfigError

MAX_STEPS = 2_000_000  # Python lines executed while rendering one chat
MAX_SECONDS = 20.0
MAX_CHARS = 4_000_000  # a rendered chat (a prompt of a few thousand tokens is ~100 KB)


class _Cut(BaseException):
    """Raised inside the rendering by the trace function (a BaseException: no ``except
    Exception`` of the library on the way up swallows it)."""


def bounded_render(render: Callable[[], Any], where: str, max_steps: int | None = None) -> Any:
    """``render()`` (a chat template's rendering), cut off with one ConfigError naming
    ``where`` once it runs more than ``max_steps`` lines or :data:`MAX_SECONDS`, or returns
    over :data:`MAX_CHARS` characters."""
    max_steps = MAX_STEPS if max_steps is None else max_steps
    steps = 0
    deadline = time.monotonic() + MAX_SECONDS

    def trace(frame, event, arg):
        nonlocal steps
        if event == "line":
            steps += 1
            if steps > max_steps or (steps % 4096 == 0 and time.monotonic() > deadline):
                raise _Cut()
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        result = render()
    except _Cut:
        raise ConfigError(
            f"{where}: the chat template does not finish rendering one chat within {max_steps:,} "
            f"steps or {MAX_SECONDS:g}s (a runaway loop?); fix the model folder's chat template"
        ) from None
    finally:
        sys.settrace(previous)
    if isinstance(result, str) and len(result) > MAX_CHARS:
        raise ConfigError(
            f"{where}: the chat template renders one chat as {len(result):,} characters (over "
            f"{MAX_CHARS:,}); fix the model folder's chat template"
        )
    return result
