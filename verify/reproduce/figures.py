"""The report's own figures (PNG bytes; matplotlib's Agg canvas, no pyplot global state).

The per-case trajectory plots come from :func:`numerics.plotting.plot_trajectory`; here are the
two that summarise many cases: the simulation grid and the fitted rates with their bands.
"""
from __future__ import annotations

import io
from typing import Mapping

import numpy as np

from numerics.evidence import batch_statistics

from numerics.png import figure_png, new_figure

from .records import Measurement

_FLOOR = 1e-17
_COLORS = {"constant": "tab:blue", "periodic": "tab:orange", "piecewise": "tab:green", "random": "tab:red"}


def _png(fig) -> bytes:
    return figure_png(fig)


def grid_png(curves: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> bytes:
    """``curves[name] = (t, E)`` with ``E`` of shape ``(T, runs)``; names ``<P>-<U>-<mask>``."""
    panels = sorted({tuple(name.split("-")[1:]) for name in curves}, key=lambda um: (um[0] != "identity", um))
    fig = new_figure((11, 6.5), dpi=90)
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


def rates_png(early: Mapping[str, Measurement], late: Mapping[str, Measurement]) -> bytes:
    """Error bars: mean early-phase and late fitted rates with their bands, one point per
    ``<P>-<U>-<mask>`` name (two panels)."""

    fig = new_figure((10, 4), dpi=90)
    for k, (title, rows) in enumerate((("early-phase rate (E_pair > 1e-2)", early), ("late rate (not evidence: cannot depend on P)", late))):
        ax = fig.add_subplot(1, 2, k + 1)
        names = list(rows)
        for i, name in enumerate(names):
            m = rows[name]
            ax.errorbar([i], [m.mean], yerr=[[m.mean - m.low], [m.high - m.mean]], fmt="o", capsize=4, color=_COLORS.get(name.split("-")[0]))
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=25, fontsize=7)
        ax.set_ylabel("fitted rate of E_pair (1/t)")
        ax.set_title(title + ", mean and 95% band", fontsize=9)
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return _png(fig)


def curves_png(curves: Mapping[str, np.ndarray], title: str, block_size: int) -> bytes:
    """``curves[label]``: ``(prompts, layers)`` E_first; mean and 95% band against layer (log y),
    with a faint line at every pass boundary."""

    fig = new_figure((7, 4), dpi=90)
    ax = fig.add_subplot(1, 1, 1)
    depth = 1
    for label, E in curves.items():
        st = batch_statistics(np.asarray(E, dtype=float).T)
        layers = np.arange(1, E.shape[1] + 1)
        depth = max(depth, E.shape[1])
        line, = ax.plot(layers, np.maximum(st["mean"], 1e-12), label=label, lw=1.4)
        ax.fill_between(layers, np.maximum(st["low"], 1e-12), np.maximum(st["high"], 1e-12), color=line.get_color(), alpha=0.25, lw=0)
    for boundary in range(block_size, depth, block_size):
        ax.axvline(boundary + 0.5, color="0.85", lw=0.5, zorder=0)
    ax.set_yscale("log")
    ax.set_xlabel("layer (blocks across re-fed passes)")
    ax.set_ylabel("E_first (mean over prompts, 95% band)")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
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
