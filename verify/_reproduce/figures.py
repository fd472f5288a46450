"""The report's own figures: matplotlib Figures (Agg canvas, no pyplot state) and their PNG bytes.

The per-case trajectory plots come from :func:`numerics.plotting.trajectory_figure`; here are the
ones that summarise many cases: the simulation grid, the fitted rates with their bands, and the
LLM curves across depth.  Curves on a log axis are the median over runs (or prompts) with a
quantile band (:func:`numerics.plotting.quantile_band`: 10-90%, as in the claim table), never mean +- t; the rate
panels are linear and show each :class:`~verify._reproduce.records.Measurement`'s median and its band.
Each ``*_png`` function is the PNG of the ``*_figure`` function of the same arguments.
"""
from __future__ import annotations

import io
from typing import Any, Mapping

import numpy as np

from numerics.support.plot_layers import depth_curves_figure
from numerics.plotting import band_label, draw_band, shade_roundoff
from numerics.support.png import figure_png, new_figure
from theorems.errors import InvalidInput

from .records import Measurement

_COLORS = {"constant": "tab:blue", "periodic": "tab:orange", "piecewise": "tab:green", "random": "tab:red"}
_U_ORDER = ("identity", "symmetric", "random")
_U_TITLE = {"identity": "U = I", "symmetric": "U symmetric", "random": "U random"}
_MASK_ORDER = ("full", "causal")


def _cell(name: str) -> tuple[str, str, str]:
    parts = name.split("-")
    if len(parts) != 3:
        raise InvalidInput("curves", "names '<P>-<U>-<mask>'", name)
    return parts[0], parts[1], parts[2]


def grid_figure(curves: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> Any:
    """``curves[name] = (t, E)`` with ``E`` of shape ``(T, runs)``; names ``<P>-<U>-<mask>``.  One
    panel per (U, mask): rows the masks, columns the kinds of U, a shared log y axis, one colour per P."""
    cells = {name: _cell(name) for name in curves}
    us = [u for u in _U_ORDER if any(c[1] == u for c in cells.values())] + \
        sorted({c[1] for c in cells.values()} - set(_U_ORDER))
    masks = [m for m in _MASK_ORDER if any(c[2] == m for c in cells.values())] + \
        sorted({c[2] for c in cells.values()} - set(_MASK_ORDER))
    fig = new_figure((4.2 * len(us), 3.4 * len(masks) + 0.9), dpi=90, layout="constrained")
    axes = fig.subplots(len(masks), len(us), sharex=True, sharey=True, squeeze=False)
    lowest, runs = np.inf, set()
    for i, mask in enumerate(masks):
        for j, u in enumerate(us):
            ax = axes[i][j]
            for name, (t, E) in curves.items():
                p, u2, m2 = cells[name]
                if (u2, m2) != (u, mask):
                    continue
                E = np.asarray(E, dtype=float)
                runs.add(E.shape[1] if E.ndim == 2 else 1)
                draw_band(ax, np.asarray(t, dtype=float), E, label=f"P {p}", color=_COLORS.get(p), lw=1.4, alpha=0.14)
                lowest = min(lowest, float(np.nanmin(E)))
            ax.set_yscale("log")
            ax.set_title(f"{_U_TITLE.get(u, 'U ' + u)}, {mask} attention", fontsize=9)
            ax.grid(True, which="major", alpha=0.3)
            if i == len(masks) - 1:
                ax.set_xlabel("t (depth-time of eq. 5)")
            if j == 0:
                ax.set_ylabel("E_pair (log scale)")
    for row in axes:
        for ax in row:
            shade_roundoff(ax, lowest)
    handles, labels = axes[0][0].get_legend_handles_labels()
    for row in axes:  # one legend for the figure, below the panels: it covers no data
        for ax in row:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8, frameon=False)
    n = "/".join(str(r) for r in sorted(runs))
    fig.suptitle(f"E_pair against t: median of {n} seeded runs per cell, shaded {band_label('runs')} "
                 "(the statistic of the claim table)", fontsize=10)
    return fig


def grid_png(curves: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> bytes:
    return figure_png(grid_figure(curves))


def rates_figure(early: Mapping[str, Measurement], late: Mapping[str, Measurement]) -> Any:
    """Error bars: the median early-phase and late fitted rates with their 10-90% bands (the claim
    table's numbers), one point per
    ``<P>-<U>-<mask>`` name (two panels, linear axes)."""
    fig = new_figure((10, 4.2), dpi=90, layout="constrained")
    for k, (title, rows) in enumerate((("early-phase rate (while E_pair > 1e-2)", early),
                                       ("late rate (not evidence: cannot depend on P)", late))):
        ax = fig.add_subplot(1, 2, k + 1)
        names = list(rows)
        for i, name in enumerate(names):
            m = rows[name]
            ax.errorbar([i], [m.value], yerr=[[m.value - m.low], [m.high - m.value]], fmt="o", capsize=4,
                        color=_COLORS.get(name.split("-")[0]))
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=25, ha="right", fontsize=7)
        ax.set_xlabel("cell <P>-<U>-<mask>", fontsize=8)
        ax.set_ylabel("fitted rate of E_pair (1/t)")
        ax.set_title(title + "\nmedian, 10-90% of runs", fontsize=9)
        ax.grid(True, alpha=0.3)
    return fig


def rates_png(early: Mapping[str, Measurement], late: Mapping[str, Measurement]) -> bytes:
    return figure_png(rates_figure(early, late))


def curves_figure(curves: Mapping[str, np.ndarray], title: str, block_size: int) -> Any:
    """``curves[label]``: ``(prompts, layers)`` E_first; the median and 10-90% band over prompts
    against layer, with a faint line at every pass boundary (:func:`numerics.support.plot_layers.depth_curves_figure`)."""
    return depth_curves_figure(curves, title=title, block_size=block_size, metric="E_first", size=(7.5, 4.8))


def curves_png(curves: Mapping[str, np.ndarray], title: str, block_size: int) -> bytes:
    return figure_png(curves_figure(curves, title, block_size))


def compact_png(png: bytes, colors: int = 256) -> bytes:
    """The same picture as an optimised palette PNG (matplotlib's RGBA output is ~3x larger).

    Line plots use few colours, so quantising to ``colors`` is visually lossless: a maximum-coverage
    palette refined by two k-means passes (measured on a trajectory figure: every pixel within 19/255
    of the original, mean 0.5; median cut merged the few pixels of a marker into a frequent colour,
    off by up to 126, and a plain maximum-coverage palette tinted the greys); the input is
    returned unchanged when Pillow is missing or the result would not be smaller."""
    try:
        from PIL import Image
    except ImportError:
        return png
    with Image.open(io.BytesIO(png)) as img:
        small = img.convert("RGB").quantize(colors=colors, method=Image.Quantize.MAXCOVERAGE, kmeans=2)
        buf = io.BytesIO()
        small.save(buf, format="PNG", optimize=True)
    out = buf.getvalue()
    return out if len(out) < len(png) else png
