"""The one summary of a measurement over prompts (or runs): the median with the 10-90% quantile band,
clipped to the metric's range.

Text, JSON and figures of ``verify consensus`` (and the batch figures of ``verify simulate``) show
this statistic and no other, so the three agree number for number.  Why not mean +- Student t: with
two prompts that band was ``[-1.29, 2.68]`` for a metric in ``[0, 2]``; a quantile band never leaves
the range of the data, and the median is not pulled by one prompt that did not collapse.

A metric of the form ``1 - cos`` computed in float64 can come out a few ulps below 0.  Such a value is
float64 round-off, not a measurement: :func:`spread` clips it to the range and keeps the raw minimum
(``below``), and :func:`show` writes it as ``0 (round-off -2.2e-16)``, never as a negative number.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorems.errors import InvalidInput

QUANTILES = (0.10, 0.90)
"""The band: these quantiles over prompts or runs (linear interpolation between order statistics)."""
METRIC_RANGES = {"E_first": (0.0, 2.0), "E_first_abs": (0.0, 1.0), "E_pair": (0.0, 1.0)}
"""The consensus metrics' true ranges: ``1 - mean_j cos(a, x_j)`` lies in [0, 2]; ``1 - mean_j |cos(a, x_j)|``
and ``E_pair = 1 - |sum_i u_i|^2 / N^2`` (unit ``u_i``) in [0, 1]."""
DESCRIPTION = "median across prompts; band: the 10% and 90% quantiles across prompts, clipped to the metric's range"


@dataclass(frozen=True)
class Spread:
    """``median``, ``low``, ``high`` at every column (layer, time), each inside ``value_range``;
    ``below``: the raw minimum where a value fell below the range's lower end (round-off), else NaN."""

    median: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: int
    value_range: tuple[float, float]
    below: np.ndarray

    def at(self, index: int) -> dict:
        """The summary at one column as JSON: ``median``, ``band`` and, when clipped, ``raw_min``."""
        out = {"median": float(self.median[index]), "band": [float(self.low[index]), float(self.high[index])]}
        if np.isfinite(self.below[index]):
            out["raw_min"] = float(self.below[index])
        return out


def spread(values: np.ndarray, value_range: tuple[float, float], q: tuple[float, float] = QUANTILES) -> Spread:
    """The :class:`Spread` of ``values`` ``(runs, columns)`` (one run: the band is the run itself)."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise InvalidInput("values", "an array of shape (runs, columns) with at least one run", arr.shape)
    lo, hi = (float(v) for v in value_range)
    if not lo < hi:
        raise InvalidInput("value_range", "a range (low, high) with low < high", value_range)
    raw_min = np.nanmin(arr, axis=0) if np.isfinite(arr).any() else np.full(arr.shape[1], np.nan)
    below = np.where(raw_min < lo, raw_min, np.nan)
    clipped = np.clip(arr, lo, hi)
    low, median, high = np.quantile(clipped, [q[0], 0.5, q[1]], axis=0)
    return Spread(median, low, high, int(arr.shape[0]), (lo, hi), below)


def show(value: float, raw_min: float | None = None, low: float = 0.0, fmt: str = ".6g") -> str:
    """``value`` as text; a value clipped at the range's lower end ``low`` from a raw ``raw_min``
    below it (round-off) as ``0 (round-off -2.2e-16)``."""
    text = format(float(value), fmt)
    if raw_min is not None and np.isfinite(raw_min) and raw_min < low and value <= low:
        text += f" (round-off {float(raw_min):.2g})"
    return text


__all__ = ["DESCRIPTION", "METRIC_RANGES", "QUANTILES", "Spread", "show", "spread"]
