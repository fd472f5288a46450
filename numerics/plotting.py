"""Figures of consensus metrics against time: matplotlib Figures on their own Agg canvas (no pyplot
state, nothing shown, no files), and the PNG bytes of the same figures.

:func:`trajectory_figure` (PNG: :func:`plot_trajectory`): left, ``E_first`` and ``E_pair`` against
``t`` on a log axis, and ``V`` (Theorem 4.2's Lyapunov quantity ``sum_i (1 - cos(x_1, x_i))``)
only for a causal run, the mask where it is defined as a Lyapunov function; right, when ``d = 3``,
the token paths of the first instance on ``S^2``.

A batch is drawn as the **median over its instances with the 10-90% quantile band**
(:func:`quantile_band`), never as mean +- Student t: that band is symmetric about the mean, reaches
below zero for metrics that are 0 in most runs, and then covers a whole log axis down to the floor.
The band shows run-to-run spread; it is not a confidence band of a limit.  Values below
:data:`FLOOR` are drawn at it, and the strip below :data:`ROUNDOFF` (float64 round-off of metrics
of the form ``1 - cos``) is shaded and labelled whenever a curve enters it.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

import numpy as np

from theorems.errors import InvalidInput

from .metrics import E_first, E_pair, V_first, Variant
from .spread import QUANTILES  # the band of every batch and prompt curve (the one statistic)
from .support.png import figure_png, new_figure
from .trajectory import Trajectory

FLOOR = 1e-17
"""Values are clipped here for a log axis (metrics of converged float64 states are ~1e-16 or 0)."""
ROUNDOFF = 1e-15
"""Below this a metric ``1 - cos`` is float64 round-off, not a measured distance."""
STYLES = {"E_first": {"color": "tab:blue", "lw": 1.8},
          "E_pair": {"color": "tab:orange", "lw": 1.6, "ls": (0, (6, 2))},
          "V": {"color": "tab:green", "lw": 1.6, "ls": (0, (3, 1, 1, 1))}}
"""Colour and dash per metric: E_first and E_pair nearly coincide under full attention, dashes keep both visible."""
_DOLLAR = re.compile(r"(?<!\\)\$")


def literal(text: object) -> str:
    """``text`` (an instance or model name, a caller's title) as matplotlib draws it literally: every
    unescaped ``$`` escaped, so ``"$x^$"`` is never parsed as mathtext (which would raise when the
    figure is drawn).  Idempotent: escaping twice draws the same text."""
    return _DOLLAR.sub(r"\$", str(text))


def quantile_band(values: np.ndarray, q: tuple[float, float] = QUANTILES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(median, low, high)`` over axis 1 of ``values`` ``(T, B)``: the median and the ``q``
    quantiles (linear interpolation between order statistics; one run: all three are the run)."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape[1] < 1:
        raise InvalidInput("values", "an array of shape (T, runs) with at least one run", values.shape)
    low, median, high = np.quantile(values, [q[0], 0.5, q[1]], axis=1)
    return median, low, high


def band_label(of: str = "runs", q: tuple[float, float] = QUANTILES) -> str:
    """``"10-90% of runs"``: the legend text of :func:`quantile_band`'s band."""
    return f"{100 * q[0]:g}-{100 * q[1]:g}% of {of}"


def draw_band(ax: Any, x: np.ndarray, values: np.ndarray, *, label: str, color: str | None = None,
              log: bool = True, of: str = "runs", q: tuple[float, float] = QUANTILES, alpha: float = 0.22,
              band_label_too: bool = True, **line: Any) -> Any:
    """One metric on ``ax``: a line for ``values`` of shape ``(T,)`` or ``(T, 1)``, else the median
    with the ``q`` :func:`quantile_band` shaded (named in the legend unless ``band_label_too`` is
    false); clipped at :data:`FLOOR` when ``log``. Returns the line."""
    values = np.asarray(values, dtype=float)
    label = literal(label)
    clip = (lambda v: np.maximum(v, FLOOR)) if log else (lambda v: v)
    if values.ndim == 1 or values.shape[1] == 1:
        line_, = ax.plot(x, clip(values.reshape(len(x))), label=label, color=color, **line)
        return line_
    median, low, high = quantile_band(values, q)
    B = values.shape[1]
    line_, = ax.plot(x, clip(median), label=f"{label}: median of {B}", color=color, **line)
    ax.fill_between(x, clip(low), clip(high), color=line_.get_color(), alpha=alpha, lw=0,
                    label=f"{label}: {band_label(of, q)}" if band_label_too else None)
    return line_


def shade_roundoff(ax: Any, lowest: float) -> None:
    """Shade and label the float64 round-off strip of a log axis when the data reach it."""
    if lowest < ROUNDOFF:
        ax.axhspan(FLOOR / 3, ROUNDOFF, color="0.9", zorder=0, lw=0,
                   label=f"below {ROUNDOFF:g}: float64 round-off (values < {FLOOR:g} drawn at {FLOOR:g})")
        ax.set_ylim(bottom=FLOOR / 3)


def metrics_figure(t: np.ndarray, series: Mapping[str, np.ndarray], *, title: str = "",
                   paths: np.ndarray | None = None, paths_note: str = "", ax: Any = None) -> Any:
    """The Figure: every ``series[label]`` (``(T,)`` or ``(T, runs)``) against ``t`` on a log axis,
    the legend below the axes; ``paths`` ``(T, N, 3)`` adds the token paths on ``S^2``.  Given an
    existing matplotlib ``ax``, the metrics are drawn into it (no sphere panel) and its Figure returned."""
    t = np.asarray(t, dtype=float)
    if ax is not None:
        fig, paths = ax.figure, None
    else:
        fig = new_figure((12.5 if paths is not None else 7.5, 6.2), dpi=110, layout="constrained")
        ax = fig.add_subplot(1, 2 if paths is not None else 1, 1)
    lowest = np.inf
    for label, values in series.items():
        values = np.asarray(values, dtype=float)
        if values.shape[0] != t.shape[0]:
            raise InvalidInput(f"series[{label!r}]", f"{t.shape[0]} values (one per time)", values.shape)
        style = STYLES.get(re.match(r"\w*", label).group(), {"lw": 1.6})
        draw_band(ax, t, values, label=label, **style)
        lowest = min(lowest, float(np.nanmin(values)))
    ax.set_yscale("log")
    shade_roundoff(ax, lowest)
    ax.set_xlabel("t (depth-time of eq. 5)")
    ax.set_ylabel("metric value (log scale, dimensionless)")
    ax.set_title(f"Consensus metrics{': ' + literal(title) if title else ''}", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
    if paths is not None:
        _sphere_panel(fig.add_subplot(1, 2, 2, projection="3d"), np.asarray(paths, dtype=float), t, paths_note)
    return fig


def _sphere_panel(ax: Any, paths: np.ndarray, t: np.ndarray, note: str) -> None:
    u, v = np.mgrid[0:2 * np.pi:30j, 0:np.pi:15j]
    ax.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color="0.88", linewidth=0.4)
    colors = [f"C{i % 10}" for i in range(paths.shape[1])]
    for i in range(paths.shape[1]):
        ax.plot(paths[:, i, 0], paths[:, i, 1], paths[:, i, 2], linewidth=1.0, color=colors[i])
    ax.scatter(paths[0, :, 0], paths[0, :, 1], paths[0, :, 2], marker="o", s=14, color="black", label="t = 0")
    ax.scatter(paths[-1, :, 0], paths[-1, :, 1], paths[-1, :, 2], marker="*", s=80, color="red",
               edgecolor="black", linewidths=0.4, label=f"t = {t[-1]:g}", depthshade=False)
    for set_ticks in (ax.set_xticks, ax.set_yticks, ax.set_zticks):
        set_ticks([-1, 0, 1])
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")
    ax.set_box_aspect((1, 1, 1))
    ax.set_title("token paths on S^2" + (f" ({note})" if note else ""), fontsize=10)
    ax.legend(fontsize=8, loc="upper left")


def trajectory_series(traj: Trajectory, variant: Variant = "cos", mask: str | None = None) -> dict[str, np.ndarray]:
    """``label -> (T, B)`` metric values: ``E_first`` (``|cos|`` when ``variant="abs"``), ``E_pair``,
    and ``V (Thm 4.2)`` when ``mask == "causal"`` (``None``: the mask is unknown, V is not drawn)."""
    if mask not in (None, "full", "causal"):
        raise InvalidInput("mask", "'full', 'causal' or None", mask)
    X = traj.states
    out = {"E_first" + (" (|cos|)" if variant == "abs" else ""): E_first(X, variant), "E_pair": E_pair(X)}
    if mask == "causal":
        out["V (Thm 4.2)"] = V_first(X)
    return out


def trajectory_figure(traj: Trajectory, *, variant: Variant = "cos", title: str = "", mask: str | None = None,
                      ax: Any = None) -> Any:
    """The Figure of ``traj`` (module docstring); ``mask`` is the run's (``system.mask``): V is drawn
    only for ``"causal"``; ``ax``: draw the metrics into this existing Axes (:func:`metrics_figure`)."""
    series = trajectory_series(traj, variant, mask)
    X = traj.states
    B = X.shape[1]
    paths = X[:, 0] if X.shape[-1] == 3 else None
    return metrics_figure(traj.times, series, title=title, paths=paths, paths_note=f"run 0 of {B}" if B > 1 else "", ax=ax)


def plot_trajectory(traj: Trajectory, *, variant: Variant = "cos", title: str = "", mask: str | None = None) -> bytes:
    """:func:`trajectory_figure` as PNG bytes."""
    return figure_png(trajectory_figure(traj, variant=variant, title=title, mask=mask))


__all__ = ["FLOOR", "QUANTILES", "ROUNDOFF", "band_label", "draw_band", "literal", "metrics_figure", "plot_trajectory",
           "quantile_band", "shade_roundoff", "trajectory_figure", "trajectory_series"]
