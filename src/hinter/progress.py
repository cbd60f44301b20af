"""Progress of long stages on stderr: counts, rate and an ETA.

On a terminal a tqdm bar; otherwise (a log file, a CI job, a Slurm job) one line every
``interval`` seconds, so a run of forty minutes logged to a file says how far it is; and a
heartbeat line at least every :data:`HEARTBEAT` seconds even while no count moves (one slow
batch, a long evaluation), so a silent log always means a dead job. A stage
passes a :class:`Progress` (or its ``update`` method, a plain callback) to the code doing the
work; nothing else knows how progress is shown.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

# Seconds between two progress lines when stderr is not a terminal: every 5 s at first, then a
# twentieth of the time elapsed, at most 30 s (an hour-long job logs ~120 lines, not 700).
# HINTER_PROGRESS_INTERVAL fixes the interval.
FIRST_INTERVAL = 5.0
MAX_INTERVAL = 30.0
# The longest silence of a stage that has started: a line (or a bar redraw) even without counts.
HEARTBEAT = 30.0
_sink: Callable[[str], None] | None = None


_stop: BaseException | None = None


def request_stop(exc: BaseException | None) -> None:
    """Make every following :meth:`Progress.update` raise ``exc`` (None: clear).

    A Ctrl-C that lands inside a finaliser is swallowed by Python ("Exception ignored in ...");
    the CLI's signal handler records it here too, so long work still stops at its next update.
    """
    global _stop
    _stop = exc


def configure(sink: Callable[[str], None] | None) -> None:
    """Send progress lines to ``sink`` (a logger's ``info``: a workflow job's log) instead of
    stderr. ``None`` restores the default (a bar on a terminal, lines otherwise)."""
    global _sink
    _sink = sink


def interval(elapsed: float = 0.0) -> float:
    """Seconds until the next progress line, ``elapsed`` seconds into a stage."""
    fixed = os.environ.get("HINTER_PROGRESS_INTERVAL")
    if fixed is not None:
        try:
            return max(0.0, float(fixed))
        except ValueError:
            pass
    return min(MAX_INTERVAL, max(FIRST_INTERVAL, elapsed / 20))


def duration(seconds: float) -> str:
    """``1:05:03``, ``4:07`` or ``12 s``."""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Counts of one stage towards ``total`` (a context manager; ``update`` is the callback).

    ``bar`` False: lines only, never a terminal bar (progress inside a stage that has its own
    bar, such as the answers of one LLM call within the predict stage)."""

    def __init__(
        self,
        desc: str,
        total: int | None,
        unit: str = "it",
        *,
        stream: IO[str] | None = None,
        enabled: bool = True,
        every: float | None = None,
        bar: bool = True,
        heartbeat: bool | float = True,
    ):
        self.desc = desc
        self.total = total
        self.unit = unit
        self.count = 0
        self.started = time.monotonic()
        self._stream = stream or sys.stderr
        self._every = every  # None: interval(elapsed)
        self._last = self.started
        self._lines = 0
        self._bar: Any = None
        self._sink = _sink
        self._enabled = enabled
        if bar and enabled and self._sink is None and _isatty(self._stream):
            from tqdm import tqdm

            self._bar = tqdm(
                total=total, desc=desc, unit=unit, file=self._stream, dynamic_ncols=True
            )
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        period = HEARTBEAT if heartbeat is True else float(heartbeat or 0)
        if enabled and period > 0:
            self._thread = threading.Thread(target=self._beat, args=(period,), daemon=True)
            _BEATING.add(self)
            self._thread.start()

    def _beat(self, period: float) -> None:
        """Every ``period`` s: redraw the bar, or write a line when none came for that long."""
        while not self._done.wait(period):
            try:
                with self._lock:
                    if self._bar is not None:
                        self._bar.refresh()
                        continue
                    now = time.monotonic()
                    if now - self._last >= period:
                        self._last = now
                        self._emit(self.line(now))
            except Exception:  # a closed stream, a test's fake clock: never kill the work
                return

    def update(self, n: int = 1) -> None:
        if _stop is not None:
            raise _stop
        if n <= 0:
            return
        self.count += n
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.monotonic()
        every = interval(now - self.started) if self._every is None else self._every
        if self._enabled and now - self._last >= every:
            with self._lock:
                self._last = now
                self._emit(self.line(now))

    def line(self, now: float | None = None) -> str:
        """``predict: 1,200/5,000 texts (24%), 35 s, 34.3 texts/s, ETA 1:50``."""
        elapsed = (now or time.monotonic()) - self.started
        done = f"{self.count:,}"
        if self.total:
            share = 100 * self.count / self.total
            done += f"/{self.total:,} {self.unit} ({share:.0f}%)"
        else:
            done += f" {self.unit}"
        parts = [f"{self.desc}: {done}", duration(elapsed)]
        if elapsed > 0 and self.count:
            speed = self.count / elapsed
            parts.append(rate(speed, self.unit))
            if self.total and self.total > self.count:
                parts.append(f"ETA {duration((self.total - self.count) / speed)}")
        return ", ".join(parts)

    def _emit(self, text: str) -> None:
        self._lines += 1
        if self._sink is not None:
            self._sink(text)
        else:
            print(f"hinter: {text}", file=self._stream, flush=True)

    def _stop_beat(self) -> None:
        """End the heartbeat thread and wait for it: a daemon thread that wakes while the
        interpreter shuts down is killed inside the C runtime (the process aborts with
        "terminate called without an active exception"), so none may outlive its Progress."""
        self._done.set()
        _BEATING.discard(self)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def close(self, stopped: bool = False) -> None:
        """End the stage; ``stopped``: it was interrupted, and the last line says so."""
        self._stop_beat()
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None
            elif self._enabled and self._lines:  # a line was shown: say when the stage ended
                took = duration(self._elapsed())
                if stopped:
                    of = f"/{self.total:,}" if self.total else ""
                    self._emit(
                        f"{self.desc}: stopped at {self.count:,}{of} {self.unit} after {took}"
                    )
                else:
                    self._emit(f"{self.desc}: {self.count:,} {self.unit} in {took}")
                self._lines = 0

    def _elapsed(self) -> float:
        return time.monotonic() - self.started

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        self.close(stopped=kind is not None)


_BEATING: set[Progress] = set()  # stages whose heartbeat thread runs


@atexit.register
def _stop_heartbeats() -> None:
    """Stop every heartbeat before the interpreter finalizes (an unclosed stage included)."""
    for progress in list(_BEATING):
        progress._stop_beat()


def rate(per_second: float, unit: str) -> str:
    """``34.3 texts/s``; below one a second, per minute (``6.0 answers/min``), then per hour."""
    if per_second >= 1:
        return f"{per_second:,.1f} {unit}/s"
    if per_second * 60 >= 1:
        return f"{per_second * 60:,.1f} {unit}/min"
    return f"{per_second * 3600:,.1f} {unit}/h"


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
