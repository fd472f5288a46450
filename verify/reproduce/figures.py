"""The report's own figures (PNG bytes; matplotlib's Agg canvas, no pyplot global state).

The per-case trajectory plots come from :func:`numerics.plotting.plot_trajectory`; here are the
two that summarise many cases: the simulation grid and the fitted rates with their bands.
"""
from __future__ import annotations

import io
from typing import Mapping

import numpy as np

from numerics.evidence import batch_statistics

from .records import Measurement

_FLOOR = 1e-17
_COLORS = {"constant": "tab:blue", "periodic": "tab:orange", "piecewise": "tab:green"}


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def grid_png(curves: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> bytes:
    """``curves[name] = (t, E)`` with ``E`` of shape ``(T, runs)``; names ``<P>-<U>-<mask>``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels = sorted({tuple(name.split("-")[1:]) for name in curves}, key=lambda um: (um[0] != "identity", um))
    fig = Figure(figsize=(11, 6.5), dpi=90)
    FigureCanvasAgg(fig)
    for k, (u, mask) in enumerate(panels):
        ax = fig.add_subplot(2, (len(panels) + 1) // 2, k + 1)
        for name, (t, E) in curves.items():
            p, u2, m2 = name.split("-")
            if (u2, m2) != (u, mask):
                continue
            st = batch_statistics(E)
            ax.plot(t, np.maximum(st["mean"], _FLOOR), color=_COLORS.get(p), label=f"P {p}")
            ax.fill_between(t, np.maximum(st["low"], _FLOOR), np.maximum(st["high"], _FLOOR), color=_COLORS.get(p), alpha=0.2)
        ax.set_yscale("log")
        ax.set_title(f"U {u}, {mask} attention", fontsize=9)
        ax.set_xlabel("t")
        ax.set_ylabel("E_pair (mean, 95% band)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return _png(fig)


def rates_png(rows: Mapping[str, Measurement]) -> bytes:
    """Error bars: mean fitted rate with its band, one point per ``<P>-<U>-<mask>`` name."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4), dpi=90)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    names = list(rows)
    for i, name in enumerate(names):
        m = rows[name]
        p = name.split("-")[0]
        ax.errorbar([i], [m.mean], yerr=[[m.mean - m.low], [m.high - m.mean]], fmt="o", capsize=4, color=_COLORS.get(p))
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=20, fontsize=8)
    ax.set_ylabel("fitted rate of E_pair (1/t)")
    ax.set_title("Convergence rate by kind of P (mean, 95% band)", fontsize=10)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return _png(fig)


def compact_png(png: bytes, colors: int = 128) -> bytes:
    """The same picture as an optimised palette PNG (matplotlib's RGBA output is ~3x larger).

    Line plots use few colours, so quantising to ``colors`` is visually lossless; the input is
    returned unchanged when Pillow is missing or the result would not be smaller."""
    try:
        from PIL import Image
    except ImportError:
        return png
    with Image.open(io.BytesIO(png)) as img:
        small = img.convert("RGB").quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
        buf = io.BytesIO()
        small.save(buf, format="PNG", optimize=True)
    out = buf.getvalue()
    return out if len(out) < len(png) else png
