"""PNG of the consensus metrics against depth (log axis) with the 95% band (matplotlib, Agg)."""
from __future__ import annotations

import io

import numpy as np

from .consensus import ConsensusResult
from .metrics import METRICS


def consensus_png(result: ConsensusResult, title: str | None = None) -> bytes:
    """The figure as PNG bytes: one line per metric, band shaded, layer index on a log axis."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure  # no pyplot: no global figure state

    fig = Figure(figsize=(7, 4.2), dpi=120)
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
    ax.set_xlabel("layer (blocks across re-fed passes)")
    ax.set_ylabel("E")
    o = result.options
    ax.set_title(title or f"{result.provenance.get('model')}: {o.prompts} prompts x {o.tokens} tokens, {o.passes} passes, "
                 f"{'no FFN' if not o.ffn else 'FFN'}, {o.weights_mode}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()
