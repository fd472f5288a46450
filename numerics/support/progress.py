"""One progress utility with one callback signature: ``progress(fraction, label="")``, ``fraction``
in ``[0, 1]`` and an optional short label of what is running.

Library code never prints: it calls a :data:`Progress` callback.  :class:`Reporter` turns the
progress of several parts (sub-batches, tasks) into one monotone fraction, in steps of at least
``step``, from any thread; :class:`TextProgress` is the one renderer (a line on a stream with the
elapsed time and an ETA), for the CLI.  Counting code adapts with :func:`counted`.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, TextIO, final

Progress = Callable[..., None]
"""``progress(fraction, label="")``: the fraction of the work done (``0..1``) and, optionally, a
short label of what is running (callers may omit it)."""


@final
class Reporter:
    """The minimum over ``parts`` of their fractions, reported when it grew by ``step`` (thread-safe)."""

    def __init__(self, progress: Progress | None, parts: int = 1, step: float = 0.01) -> None:
        self._progress = progress
        self._fracs = [0.0] * max(1, parts)
        self._last = -1.0
        self._step = step
        self._lock = threading.Lock()

    def __call__(self, part: int, fraction: float) -> None:
        if self._progress is None:
            return
        with self._lock:
            self._fracs[part] = fraction
            low = min(self._fracs)
            if low - self._last >= self._step:
                self._last = low
                self._progress(low)

    def finish(self) -> None:
        if self._progress is not None and self._last < 1.0:
            self._last = 1.0
            self._progress(1.0)


def counted(progress: Progress | None, total: int) -> Callable[[int], None]:
    """``done -> progress(done / total)``: for loops that count items."""
    def tick(done: int) -> None:
        if progress is not None and total > 0:
            progress(min(1.0, done / total))
    return tick


@final
class TextProgress:
    """``prefix: 42%  12.3 s  ETA 17 s`` rewritten in place on ``stream`` (a newline at 100%)."""

    def __init__(self, stream: TextIO, prefix: str, enabled: bool = True) -> None:
        self.stream, self.prefix, self.enabled = stream, prefix, enabled
        self.start = time.perf_counter()
        self.label = ""

    def __call__(self, fraction: float, label: str | None = None) -> None:
        if label is not None:
            self.label = label
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        eta = f"ETA {elapsed / fraction * (1 - fraction):6.0f} s" if 0 < fraction < 1 else " " * 12
        self.stream.write(f"\r{self.prefix}: {100 * fraction:5.1f}%  {elapsed:7.1f} s  {eta}  {self.label[:40]:<40}")
        if fraction >= 1:
            self.stream.write("\n")
        self.stream.flush()


__all__ = ["Progress", "Reporter", "TextProgress", "counted"]
