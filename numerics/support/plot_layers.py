"""Figures of transformer measurements from plain arrays: metrics against depth, and layer x head heatmaps.

The records of :mod:`llm_checks` (consensus, audit), which ``verify``'s reports plot, draw through
these functions, so a figure looks the same whichever built it; nothing here imports
torch.  Figures are :class:`matplotlib.figure.Figure` objects on their own Agg canvas (no pyplot).

* :func:`depth_curves_figure`: ``curves[label]`` ``(prompts, layers)`` against the layer index,
  the median over prompts with the 10-90% quantile band (:func:`numerics.plotting.quantile_band`;
  never mean +- t, which a log axis cannot draw below zero), a faint line at every pass boundary.
  The y axis is logarithmic when the curves span more than a factor of 10, else linear.  Curves
  that coincide stay visible: each label may get its own style (``styles``), and curves equal at
  every layer are named under the title (where the note covers no data).
* :func:`consensus_curves_figure`: that figure for ``E_first``, ``E_first_abs``, ``E_pair`` of a
  consensus measurement (layer on a log axis), with :data:`CONSENSUS_STYLES`.
* :func:`heatmaps_figure`: one panel per ``(title, (L, H) array, colour-bar label)``; colour-bar
  ticks are plain numbers (no offset such as "+1" that hides the values).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from theorems.errors import InvalidInput

from ..plotting import FLOOR, band_label, draw_band, literal
from ..spread import METRIC_RANGES
from .png import new_figure

LOG_SPAN = 10.0
"""Curves spanning more than this factor (max / min over the band) get a log y axis."""


def _as_curves(curves: Mapping[str, Any]) -> dict[str, np.ndarray]:
    out = {}
    for label, values in curves.items():
        E = np.asarray(values, dtype=float)
        if E.ndim != 2 or E.shape[0] < 1 or E.shape[1] < 1:
            raise InvalidInput(f"curves[{label!r}]", "an array of shape (prompts, layers)", E.shape)
        out[label] = E
    if not out:
        raise InvalidInput("curves", "at least one curve", {})
    depth = {E.shape[1] for E in out.values()}
    if len(depth) != 1:
        raise InvalidInput("curves", "curves of the same number of layers", sorted(depth))
    return out


def coinciding(curves: Mapping[str, np.ndarray]) -> list[tuple[str, str]]:
    """Pairs of labels whose per-prompt values are equal at every layer (to 1e-12 relative)."""
    names = list(curves)
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
            if curves[a].shape == curves[b].shape and np.allclose(curves[a], curves[b], rtol=1e-12, atol=0.0)]


def depth_curves_figure(curves: Mapping[str, Any], *, title: str, block_size: int, metric: str = "E",
                        log_x: bool = False, styles: Mapping[str, Mapping[str, Any]] | None = None,
                        size: tuple[float, float] = (7.5, 4.6), ranges: Mapping[str, tuple[float, float]] | None = None,
                        ax: Any = None) -> Any:
    """The Figure (module docstring); ``block_size`` is the number of blocks of one pass; ``ranges``:
    each label's metric range, its values clipped to it first (:func:`numerics.spread.spread`: the
    figure shows the numbers of the text and JSON); ``ax``: draw into this Axes (its Figure returned)."""
    curves = _as_curves(curves)
    curves = {k: np.clip(E, *ranges[k]) if ranges and k in ranges else E for k, E in curves.items()}
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise InvalidInput("block_size", "a positive number of blocks per pass", block_size)
    depth = next(iter(curves.values())).shape[1]
    layers = np.arange(1, depth + 1)
    positive = [E[np.isfinite(E) & (E > 0)] for E in curves.values()]
    values = np.concatenate(positive) if positive else np.array([])
    log_y = values.size > 0 and all(p.size == E.size for p, E in zip(positive, curves.values())) \
        and float(values.max()) > LOG_SPAN * float(values.min())
    if ax is None:
        fig = new_figure(size, dpi=110, layout="constrained")
        ax = fig.add_subplot(1, 1, 1)
    else:
        fig = ax.figure
    for label, E in curves.items():
        style = dict(lw=1.5)
        style.update((styles or {}).get(label, {}))
        draw_band(ax, layers, E.T, label=label, log=log_y, of="prompts", band_label_too=False, **style)
    for k, boundary in enumerate(range(block_size, depth, block_size)):
        ax.axvline(boundary + 0.5, color="0.75", lw=0.6, ls=(0, (4, 3)), zorder=0,
                   label="pass boundary (output re-fed)" if k == 0 else None)
    same = coinciding(curves)
    if same:  # in the title, where it can cover no data
        title += "\n" + "; ".join(f"{a} = {b} at every layer" for a, b in same) + " (the lines coincide)"
    if log_y:
        ax.set_yscale("log")
    if log_x:
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("layer (blocks counted across re-fed passes" + (", log scale)" if log_x else ")"))
    ax.set_ylabel(f"{metric} (dimensionless" + (", log scale)" if log_y else ")"))
    ax.set_title(literal(title), fontsize=9)
    ax.grid(True, which="major", alpha=0.3)
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    if any(E.shape[0] > 1 for E in curves.values()):  # one entry for every band: the legend stays narrow
        handles.append(Patch(color="0.6", alpha=0.4, lw=0))
        labels.append(f"shaded: {band_label('prompts')} (median: the line)")
    ax.legend(handles, labels, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16),
              ncol=1 if max(len(lab) for lab in labels) > 40 else 2, frameon=False)
    if log_y:
        ax.set_ylim(bottom=max(FLOOR, float(values.min()) / 1.5))
    return fig


CONSENSUS_METRICS = ("E_first", "E_first_abs", "E_pair")
CONSENSUS_STYLES = {"E_first": {"color": "tab:blue", "lw": 2.8, "zorder": 3},
                    "E_first_abs": {"color": "tab:orange", "lw": 1.4, "ls": (0, (5, 3)), "zorder": 4},
                    "E_pair": {"color": "tab:green", "lw": 1.5, "zorder": 3}}
"""Distinct widths, dashes and z-order: a dashed E_first_abs on top of a wide E_first, so both
stay visible where they are equal (every cosine to the anchor >= 0)."""


def consensus_title(provenance: Mapping[str, Any], options: Mapping[str, Any]) -> str:
    """``model: prompts x tokens, passes, FFN, weights mode`` from a consensus record's (or payload's) options."""
    return (f"{provenance.get('model')}: {options.get('prompts')} prompts x {options.get('tokens')} tokens, "
            f"{options.get('passes')} passes, {'FFN' if options.get('ffn', True) else 'no FFN'}, {options.get('weights_mode')}")


def consensus_curves_figure(E: Mapping[str, Any], n_blocks: int, title: str, ax: Any = None) -> Any:
    """The consensus measurement across depth: ``E[name]`` ``(prompts, layers)`` for each of
    :data:`CONSENSUS_METRICS` clipped to their ranges (:data:`numerics.spread.METRIC_RANGES`), layer index on a log axis,
    :data:`CONSENSUS_STYLES`; ``ax``: an existing Axes."""
    missing = [name for name in CONSENSUS_METRICS if name not in E]
    if missing:
        raise InvalidInput("E", f"per-prompt values of {', '.join(CONSENSUS_METRICS)}", sorted(E),
                           hint=f"missing {', '.join(missing)}")
    return depth_curves_figure({name: E[name] for name in CONSENSUS_METRICS}, title=title, block_size=n_blocks,
                               metric="E", log_x=True, styles=CONSENSUS_STYLES, ranges=METRIC_RANGES, ax=ax)


def heatmaps_figure(panels: Sequence[tuple[str, Any, str]], *, title: str, xlabel: str = "head",
                    ylabel: str = "layer", references: Sequence[float | None] | None = None, ax: Any = None) -> Any:
    """One heatmap per ``(panel title, (rows, columns) array, colour-bar label)`` (module docstring);
    ``references``: per panel a value the colour scale must include (marked on its bar: the value
    the label names, such as 0 for "0 when U = I"); ``ax``: one existing Axes per panel."""
    if not panels:
        raise InvalidInput("panels", "at least one (title, array, colour-bar label) panel", [])
    from matplotlib.ticker import ScalarFormatter

    arrays = [np.asarray(a, dtype=float) for _, a, _ in panels]
    for (name, _, _), a in zip(panels, arrays):
        if a.ndim != 2 or a.size == 0:
            raise InvalidInput(f"panels[{name!r}]", "a non-empty (layers, heads) array", a.shape)
    axes = list(ax) if ax is not None and not hasattr(ax, "plot") else ([ax] if ax is not None else None)
    if axes is not None and (len(axes) != len(panels) or not all(callable(getattr(a, "imshow", None)) for a in axes)):
        raise InvalidInput("ax", f"{len(panels)} matplotlib Axes, one per panel (or None for a new Figure)",
                           f"{len(axes)} object(s)" if len(axes) != len(panels) else type(axes[0]).__name__)
    L, H = arrays[0].shape
    fig = new_figure((4.8 * len(panels), 1.9 + 0.22 * max(L, 6)), dpi=110, layout="constrained") if axes is None \
        else axes[0].figure
    for i, ((name, _, bar_label), a) in enumerate(zip(panels, arrays)):
        ref = None if references is None else references[i]
        lo, hi = float(np.nanmin(a)), float(np.nanmax(a))
        if ref is not None:
            lo, hi = min(lo, ref), max(hi, ref)
        axis = fig.add_subplot(1, len(panels), i + 1) if axes is None else axes[i]
        image = axis.imshow(a, aspect="auto", origin="upper", cmap="viridis", interpolation="nearest",
                            vmin=lo, vmax=hi if hi > lo else lo + 1.0)
        axis.set_xlabel(xlabel)
        axis.set_ylabel(ylabel)
        axis.set_title(name, fontsize=9)
        formatter = ScalarFormatter(useOffset=False)
        formatter.set_powerlimits((-3, 4))
        bar = fig.colorbar(image, ax=axis, format=formatter)
        bar.set_label(bar_label, fontsize=8)
        bar.ax.tick_params(labelsize=7)
        if ref is not None:
            bar.ax.axhline(ref, color="white", lw=1.2)
            bar.set_ticks(sorted({ref, *[t for t in bar.get_ticks() if lo <= t <= hi]}))
        axis.set_xticks(range(0, a.shape[1], max(1, a.shape[1] // 12)))
        axis.set_yticks(range(0, a.shape[0], max(1, a.shape[0] // 12)))
    fig.suptitle(literal(title), fontsize=10)
    return fig


AUDIT_PANELS = (("U_skew_share", "antisymmetric share of U: ||U - U^T||_F / (2 ||U||_F)", "0 symmetric, ~0.71 unstructured"),
                ("U_dist_identity", "||U - I||_F / sqrt(D)", "0 when U = I"),
                ("p", "||P||_2 on LayerNorm-scale tokens", "||P||_2"))
"""The audit's three heatmaps: ``(field of the heads table, panel title, colour-bar label)``."""


def audit_heatmaps_figure(heads: Mapping[str, Any], d_model: int, model: str, ax: Any = None,
                          title: str | None = None) -> Any:
    """The audit heatmaps from its ``heads`` tables (``(L, H)`` arrays); each colour bar includes 0,
    the reference value its label names; ``ax``: three existing Axes."""
    missing = [name for name, _, _ in AUDIT_PANELS if name not in heads]
    if missing:
        raise InvalidInput("heads", f"the audit tables {', '.join(n for n, _, _ in AUDIT_PANELS)}",
                           sorted(heads), hint=f"missing {', '.join(missing)} (an audit run without --no-tables)")
    panels = []
    for name, panel_title, bar_label in AUDIT_PANELS:
        a = np.asarray(heads[name], dtype=float)
        if name == "p":
            bar_label = f"||P||_2 (x D = {d_model} on the unit sphere: max {float(a.max()) * d_model:.4g})"
        panels.append((panel_title, a, bar_label))
    L, H = panels[0][1].shape
    return heatmaps_figure(panels, title=title or f"audit of {model}: {L} layers x {H} heads (D = {d_model})",
                           references=[0.0] * len(panels), ax=ax)


__all__ = ["AUDIT_PANELS", "CONSENSUS_METRICS", "CONSENSUS_STYLES", "audit_heatmaps_figure", "coinciding",
           "consensus_curves_figure", "consensus_title", "depth_curves_figure", "heatmaps_figure"]
