"""Plots of a trajectory as PNG bytes (matplotlib's Agg canvas; no pyplot global state, no files).

Left: ``E_first``, ``E_pair`` and ``V`` against ``t`` on a log axis (for a batch: the mean with
its 95% confidence band).  Right, when ``d = 3``: the token paths on ``S^2`` (first instance).
"""
from __future__ import annotations

import numpy as np

from .evidence import batch_statistics
from .metrics import E_first, E_pair, V_first, Variant
from .png import figure_png, new_figure
from .trajectory import Trajectory

_FLOOR = 1e-17
"""Values are clipped here for the log axis (float64 metrics of converged states are ~1e-16)."""


def plot_trajectory(traj: Trajectory, *, variant: Variant = "cos", title: str = "") -> bytes:
    X = traj.states
    t = traj.times
    d = X.shape[-1]
    fig = new_figure((12 if d == 3 else 7, 5), dpi=110)
    ax = fig.add_subplot(1, 2 if d == 3 else 1, 1)
    series = (("E_first" + (" (|cos|)" if variant == "abs" else ""), E_first(X, variant), "tab:blue"),
              ("E_pair", E_pair(X), "tab:orange"), ("V (Thm 4.2)", V_first(X), "tab:green"))
    B = X.shape[1]
    for label, values, color in series:
        if B == 1:
            ax.plot(t, np.maximum(values[:, 0], _FLOOR), label=label, color=color)
        else:
            st = batch_statistics(values)
            ax.plot(t, np.maximum(st["mean"], _FLOOR), label=f"{label}: mean of {B}", color=color)
            # A log axis cannot show a band reaching 0 or below: there the lower edge is drawn at the
            # smallest sample (the mean of nonnegative values cannot be smaller), and the legend says so.
            low = np.where(st["low"] > 0, st["low"], values.min(axis=1))
            clipped = bool(np.any(st["low"] <= 0))
            ax.fill_between(t, np.maximum(low, _FLOOR), np.maximum(st["high"], _FLOOR), color=color, alpha=0.25,
                            label=f"{label}: 95% band of the mean" + (" (lower edge clipped at the smallest sample)" if clipped else ""))
    ax.set_yscale("log")
    ax.set_xlabel("t (depth-time)")
    ax.set_ylabel("metric value (log scale)")
    ax.set_title(f"Consensus metrics{': ' + title if title else ''}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    if d == 3:
        ax3 = fig.add_subplot(1, 2, 2, projection="3d")
        u, v = np.mgrid[0:2 * np.pi:30j, 0:np.pi:15j]
        ax3.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color="0.85", linewidth=0.4)
        paths = X[:, 0]
        for i in range(paths.shape[1]):
            ax3.plot(paths[:, i, 0], paths[:, i, 1], paths[:, i, 2], linewidth=1.0)
        ax3.scatter(paths[0, :, 0], paths[0, :, 1], paths[0, :, 2], marker="o", s=12, color="black", label="t = 0")
        ax3.scatter(paths[-1, :, 0], paths[-1, :, 1], paths[-1, :, 2], marker="*", s=60, color="red", label=f"t = {t[-1]:g}")
        ax3.set_xlabel("x")
        ax3.set_ylabel("y")
        ax3.set_zlabel("z")
        ax3.set_title("tokens on S^2")
        ax3.legend(fontsize=8)
    fig.tight_layout()
    return figure_png(fig)
