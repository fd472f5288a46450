"""Measurements with 95% bands: Student-t bands of a mean, Clopper–Pearson bands of a share
(both computed by the one band helper, :func:`numerics.evidence.student_t_half_width` and
:func:`numerics.evidence.clopper_pearson`), and extremes (a maximum over every run, reported without a band).

Bands describe run-to-run (seed-to-seed, prompt-to-prompt) variation of the mean at this scale;
they are not bounds on a limit.  With one run the band collapses to the value and says so.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from numerics.evidence import clopper_pearson, student_t_half_width

from .records import Measurement

LEVEL = 0.95
KEEP_VALUES = 256
"""Per-run values are stored in the JSON when there are at most this many."""


def _values(values: Iterable[float]) -> np.ndarray:
    arr = np.asarray(list(values), dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"expected a flat list of numbers, got shape {arr.shape}")
    return arr


def _kept(arr: np.ndarray) -> tuple[float, ...] | None:
    return tuple(float(v) for v in arr) if arr.size <= KEEP_VALUES else None


def mean_band(values: Iterable[float], what: str) -> Measurement:
    """``mean +- t_{0.975, n-1} sd / sqrt(n)`` over the finite values.  Non-finite runs are
    dropped; ``n`` counts the kept ones and ``what`` says how many were dropped (the band is then
    over the surviving runs only, which may be biased)."""
    arr = _values(values)
    dropped = int(arr.size - np.isfinite(arr).sum())
    arr = arr[np.isfinite(arr)]
    n = int(arr.size)
    if n == 0:
        raise ValueError(f"measurement {what!r}: no finite values")
    if dropped:
        what = f"{what} ({dropped} of {n + dropped} runs non-finite, dropped)"
    mean = float(arr.mean())
    if n < 2:
        return Measurement(mean, mean, mean, n, what, "single run (no band)", _kept(arr))
    half = float(student_t_half_width(arr, LEVEL))
    return Measurement(mean, mean - half, mean + half, n, what, "student-t 95%", _kept(arr))


def share_band(hits: int, n: int, what: str) -> Measurement:
    """The share ``hits / n`` with its exact (Clopper–Pearson) 95% band."""
    if n < 1 or not 0 <= hits <= n:
        raise ValueError(f"measurement {what!r}: expected 0 <= hits <= n and n >= 1, got {hits}/{n}")
    low, high = clopper_pearson(hits, n, LEVEL)
    return Measurement(hits / n, low, high, n, what, "clopper-pearson 95%", None)


def extreme(values: Iterable[float], what: str, kind: str = "max") -> Measurement:
    """The largest (``kind="max"``) or smallest value over every run; no band (``low = high``)."""
    arr = _values(values)
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"measurement {what!r}: expected finite values, got {arr.size} values")
    v = float(arr.max() if kind == "max" else arr.min())
    return Measurement(v, v, v, int(arr.size), what, "extreme", None)


def indicator(value: bool, what: str) -> Measurement:
    """A yes/no outcome of one check as 1.0 / 0.0 (``n = 1``, no band)."""
    v = 1.0 if value else 0.0
    return Measurement(v, v, v, 1, what, "single check", None)
