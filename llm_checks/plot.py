"""PNG of the consensus metrics against depth (log axis) with the 95% band (matplotlib, Agg): layer on a log axis, and E too when every mean is positive."""
from __future__ import annotations

import numpy as np

from numerics.png import figure_png, new_figure

from .consensus import ConsensusResult
from .metrics import METRICS


def consensus_png(result: ConsensusResult, title: str | None = None) -> bytes:
    """The figure as PNG bytes: one line per metric, band shaded, layer index on a log axis."""
    fig = new_figure((7, 4.2), dpi=120)
    ax = fig.add_subplot(1, 1, 1)
    layers = np.arange(1, result.E["E_first"].shape[1] + 1)
    for name in METRICS:
        mean, lo, hi = result.band(name)
        line, = ax.plot(layers, mean, label=name, lw=1.4)
        if np.all(np.isfinite(lo)):
            ax.fill_between(layers, lo, hi, color=line.get_color(), alpha=0.25, lw=0)
    for boundary in range(result.n_blocks, layers[-1], result.n_blocks):
        ax.axvline(boundary + 0.5, color="0.8", lw=0.6, zorder=0)
    ax.set_xscale("log")
    positive = all(np.all(result.band(name)[0] > 0) for name in METRICS)
    if positive:  # consensus means E -> 0: a log axis shows the rate
        ax.set_yscale("log")
    ax.set_xlabel("layer (blocks across re-fed passes, log scale)")
    ax.set_ylabel("E (log scale)" if positive else "E")
    o = result.options
    ax.set_title(title or f"{result.provenance.get('model')}: {o.prompts} prompts x {o.tokens} tokens, {o.passes} passes, "
                 f"{'no FFN' if not o.ffn else 'FFN'}, {o.weights_mode}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    return figure_png(fig, bbox_inches="tight")
