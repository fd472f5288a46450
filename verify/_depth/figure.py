"""Figures of ``verify depth``: the certified bound against the simulated consensus metric.

:func:`depth_figure` takes :class:`~verify._depth.certify.DepthReport` records (with their
simulation, ``simulate=True``) and draws, one panel per model (eq. 5 ODE against ``t``, eq. 4
layer map against ``k``): the simulated metric (solid; float64 evidence, not proof), the certified
envelope (dashed: ``Q exp(-rate (t - L0))``, or ``1 - tanh(c t + artanh m0)`` for 4.2 on the ODE),
the certified ``T(eps)`` / ``L(eps)`` (dotted) and ``eps`` (black).  The x axis is linear up to 10
and logarithmic beyond.  A report's own figure is :meth:`DepthReport.figure
<verify._depth.certify.DepthReport.figure>` (one entry; ``ax`` draws into an existing Axes).

Figures are :class:`matplotlib.figure.Figure` objects on their own Agg canvas (no pyplot).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from numerics.plotting import literal
from numerics.support.png import new_figure
from theorems.errors import InvalidInput

METRIC = {"3.2": "max_ij (1 - <x_i, x_j>)", "4.2": "max_i (1 - <x_1, x_i>)"}
AXIS = {"ode": ("eq. 5 (ODE): metric against time", "t (depth-time)"),
        "layers": ("eq. 4 (layer map): metric against layers", "layer k")}
LINEAR_UP_TO = 10
CAP = 2.0
"""Both metrics are at most 2: the envelope is drawn capped there."""


def envelope(report: Any, points: int = 400) -> tuple[np.ndarray, np.ndarray] | None:
    """``(x, bound on the metric)`` of the certified envelope from ``L0`` (0 unless a late entry)
    to the certified bound, or None when nothing is certified."""
    cert = getattr(report, "certificate", None)
    if cert is None:
        return None
    d = cert.derived
    start, stop = float(d.get("L0", 0)), float(Fraction(str(d["bound"])))
    x = np.linspace(start, max(stop, start), points)
    if report.model == "ode" and report.theorem == "4.2":
        c, m0 = float(Fraction(str(d["rate"]))) / 2, float(Fraction(str(d["m0"])))
        y = 1 - np.tanh(c * x + math.atanh(m0))
    else:
        Q, rate = float(Fraction(str(d["chart"]["Q"]))), float(Fraction(str(d["rate"])))
        y = Q * np.exp(-rate * (x - start))
    return x, np.minimum(y, CAP)


def _draw(ax: Any, report: Any, label: str, color: str) -> None:
    ev = report.evidence or {}
    bound = report.bound
    head = f"{literal(label)}: " if label else ""
    if "times" in ev:
        observed = ev.get("observed")
        ax.plot(ev["times"], np.maximum(np.asarray(ev["values"], dtype=float), 1e-16), color=color, lw=1.6,
                label=f"{head}simulated (observed {'none' if observed is None else f'{observed:.3g}'})")
    curve = envelope(report)
    if curve is not None:
        ax.plot(*curve, ls="--", color=color, lw=1.0, label=f"{head}certified envelope, bound {float(Fraction(str(bound))):.4g}")
        ax.axvline(float(Fraction(str(bound))), color=color, ls=":", lw=1.0)


def depth_figure(entries: Sequence[tuple[Any, str]], *, title: str = "", ax: Any = None) -> Any:
    """One panel per model among ``entries`` (``(DepthReport, label)``); see the module docstring.
    ``ax``: draw into this existing matplotlib Axes (the entries must then share one model)."""
    if not entries:
        raise InvalidInput("entries", "at least one (DepthReport, label) pair", [])
    models = [m for m in AXIS if any(r.model == m for r, _ in entries)]
    if ax is not None and len(models) > 1:
        raise InvalidInput("ax", "None: entries of both models need two panels", "an Axes")
    fig = new_figure((6.4 * len(models), 5.6), dpi=110, layout="constrained") if ax is None else ax.figure
    for j, model in enumerate(models):
        ax = fig.add_subplot(1, len(models), j + 1) if ax is None else ax
        rows = [(r, lab) for r, lab in entries if r.model == model]
        for k, (report, label) in enumerate(rows):
            _draw(ax, report, label, f"C{k % 10}")
        eps = {r.eps for r, _ in rows}
        for e in eps:
            ax.axhline(float(e), color="k", lw=0.8, label=f"eps = {e}")
        theorems = sorted({r.theorem for r, _ in rows})
        panel, xlabel = AXIS[model]
        ax.set_title(panel, fontsize=10)
        ax.set_xscale("symlog", linthresh=LINEAR_UP_TO)
        ax.set_xlim(left=0)
        ax.set_yscale("log")
        ax.set_ylim(1e-6, 3)
        ax.set_xlabel(f"{xlabel} (linear up to {LINEAR_UP_TO}, logarithmic beyond)")
        ax.set_ylabel("metric (log scale)\n" + "; ".join(f"{t}: {METRIC[t]}" for t in theorems), fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    if title or len(fig.axes) == len(models):  # an Axes of the caller's own figure gets no figure title by default
        fig.suptitle(literal(title) if title else "solid: simulated (evidence); dashed: certified envelope; dotted: "
                     "certified T / L", fontsize=9)
    return fig


__all__ = ["depth_figure", "envelope"]
