"""One progress utility with one callback signature: ``progress(fraction, label="")``, ``fraction``
in ``[0, 1]`` and an optional short label of what is running.

Library code never prints: it calls a :data:`Progress` callback.  :class:`Reporter` turns the
progress of several parts (sub-batches, tasks) into one monotone fraction, in steps of at least
``step``, from any thread; :class:`TextProgress` is the one renderer, for the CLI (tqdm on a
terminal, a few plain lines in a log).  Counting code adapts with :func:`counted`.
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


ETA_AFTER = (0.05, 2.0)
"""An ETA is shown only once 5% of the work is done and 2 s have passed (an earlier one is noise)."""
LOG_STEPS = 4
"""Lines written into a file or pipe: one per quarter of the work (and none more)."""


@final
class TextProgress:
    """The one progress renderer of the CLI (a :data:`Progress` callback).

    On a terminal: a tqdm bar on ``stream`` (elapsed time, ETA, the running label), redrawn in place.
    Into a file or a pipe (``stream.isatty()`` false): a plain line ``prefix: 25% after 3.1 s, about
    9 s left (label)`` at each quarter of the work, no carriage return, so a log stays readable.
    ``enabled=False`` writes nothing."""

    def __init__(self, stream: TextIO, prefix: str, enabled: bool = True) -> None:
        self.stream, self.prefix, self.enabled = stream, prefix, enabled
        self.start = time.perf_counter()
        self.label = ""
        isatty = getattr(stream, "isatty", None)
        self.tty = bool(isatty()) if callable(isatty) else False
        self._bar = None
        self._logged = 0
        self._lock = threading.Lock()

    def __call__(self, fraction: float, label: str | None = None) -> None:
        if label is not None:
            self.label = label
        if not self.enabled:
            return
        fraction = min(1.0, max(0.0, float(fraction)))
        with self._lock:
            if self.tty:
                self._draw(fraction)
            else:
                self._log(fraction)

    def _draw(self, fraction: float) -> None:
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=1000, desc=self.prefix, file=self.stream, leave=True, dynamic_ncols=True,
                             bar_format="{desc}: {percentage:5.1f}%|{bar}| {elapsed}<{remaining} {postfix}")
        self._bar.n = int(round(1000 * fraction))
        self._bar.set_postfix_str(self.label[:40], refresh=False)
        self._bar.refresh()
        if fraction >= 1:
            self._bar.close()
            self._bar = None

    def _log(self, fraction: float) -> None:
        step = min(LOG_STEPS, int(fraction * LOG_STEPS + 1e-12))
        if step <= self._logged:
            return
        self._logged = step
        elapsed = time.perf_counter() - self.start
        eta = ""
        if fraction < 1 and fraction >= ETA_AFTER[0] and elapsed >= ETA_AFTER[1]:
            eta = f", about {elapsed / fraction * (1 - fraction):.0f} s left"
        label = f" ({self.label[:60]})" if self.label else ""
        self.stream.write(f"{self.prefix}: {100 * fraction:.0f}% after {elapsed:.1f} s{eta}{label}\n")
        self.stream.flush()


__all__ = ["Progress", "Reporter", "TextProgress", "counted"]
