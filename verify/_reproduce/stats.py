"""Measurements with bands: the one statistic of :mod:`numerics.spread` over runs (the median with the
10-90% quantile band, clipped to the quantity's range), the exact Clopper–Pearson 95% band of a share
(:func:`numerics.evidence.clopper_pearson`), and extremes (a maximum over every run, without a band).

A quantile band describes run-to-run (seed-to-seed, prompt-to-prompt) spread at this scale: most
runs lie inside it.  It is not a bound on a limit, and it never leaves the quantity's range (a
``1 - cos`` metric a few ulps below 0 is round-off, shown as 0 with the raw minimum kept).  With one
run the band collapses to the value and says so.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from numerics.evidence import clopper_pearson
from numerics.spread import QUANTILES, spread

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


QUANTILE_BAND = f"{100 * QUANTILES[0]:g}-{100 * QUANTILES[1]:g}% quantiles"
"""The ``band`` name of :func:`median_band`."""
UNBOUNDED = (-math.inf, math.inf)
"""The range of a quantity without bounds (a fitted rate, a slope)."""


def median_band(values: Iterable[float], what: str, value_range: tuple[float, float]) -> Measurement:
    """The median of the finite values with their 10-90% quantile band, all clipped to
    ``value_range`` (:func:`numerics.spread.spread`: the statistic of the consensus figures and text).
    Non-finite runs are dropped; ``n`` counts the kept ones and ``what`` says how many were dropped
    (the band is then over the surviving runs only, which may be biased).  A value below the range's
    lower end (float round-off) is kept as ``raw_min``."""
    arr = _values(values)
    dropped = int(arr.size - np.isfinite(arr).sum())
    arr = arr[np.isfinite(arr)]
    n = int(arr.size)
    if n == 0:
        raise ValueError(f"measurement {what!r}: no finite values")
    if dropped:
        what = f"{what} ({dropped} of {n + dropped} runs non-finite, dropped)"
    s = spread(arr[:, None], value_range)
    median, low, high = float(s.median[0]), float(s.low[0]), float(s.high[0])
    raw_min = float(s.below[0]) if np.isfinite(s.below[0]) else None
    if n < 2:
        low = high = median
    band = QUANTILE_BAND if n >= 2 else "single run (no band)"
    return Measurement(median, low, high, n, what, band, _kept(arr), tuple(value_range), raw_min)


def share_band(hits: int, n: int, what: str) -> Measurement:
    """The share ``hits / n`` with its exact (Clopper–Pearson) 95% band."""
    if n < 1 or not 0 <= hits <= n:
        raise ValueError(f"measurement {what!r}: expected 0 <= hits <= n and n >= 1, got {hits}/{n}")
    low, high = clopper_pearson(hits, n, LEVEL)
    return Measurement(hits / n, low, high, n, what, "clopper-pearson 95%", None)


def extreme(values: Iterable[float], what: str, kind: str = "max",
            value_range: tuple[float, float] | None = None) -> Measurement:
    """The largest (``kind="max"``) or smallest value over every run; no band (``low = high``).
    With ``value_range`` the value is clipped to it and a raw value below it kept as ``raw_min``."""
    arr = _values(values)
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"measurement {what!r}: expected finite values, got {arr.size} values")
    v = float(arr.max() if kind == "max" else arr.min())
    raw_min = None
    if value_range is not None:
        raw_min = float(arr.min()) if float(arr.min()) < value_range[0] else None
        v = min(max(v, value_range[0]), value_range[1])
    return Measurement(v, v, v, int(arr.size), what, "extreme", None, None if value_range is None else tuple(value_range), raw_min)


def indicator(value: bool, what: str) -> Measurement:
    """A yes/no outcome of one check as 1.0 / 0.0 (``n = 1``, no band)."""
    v = 1.0 if value else 0.0
    return Measurement(v, v, v, 1, what, "single check", None)
