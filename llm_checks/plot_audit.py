"""Layer x head heatmaps of an audit's deviations (matplotlib, Agg; returns PNG bytes).

Three panels: the antisymmetric share of ``U`` (``||U - U^T||_F / (2 ||U||_F)``, 0 symmetric, about
0.707 unstructured), ``||U - I||_F / sqrt(D)`` and ``||P||_2`` on LN-normalized tokens (the colour
bar also gives the unit-sphere value ``D ||P||_2``).  Axes: layer (rows) and head (columns).
"""
from __future__ import annotations

from numerics.png import figure_png, new_figure

from .audit import AuditReport

PANELS = (("U_skew_share", "antisymmetric share of U"), ("U_dist_identity", "||U - I||_F / sqrt(D)"),
          ("p", "||P||_2 (LN scale)"))


def audit_png(report: AuditReport) -> bytes:
    heads = report.measurements.heads
    L, H = heads["p"].shape
    D = report.layout["d_model"]
    fig = new_figure((4.6 * len(PANELS), 1.6 + 0.22 * max(L, 6)), dpi=110, layout="constrained")
    for i, (name, title) in enumerate(PANELS):
        ax = fig.add_subplot(1, len(PANELS), i + 1)
        image = ax.imshow(heads[name], aspect="auto", origin="upper", cmap="viridis", interpolation="nearest")
        ax.set_xlabel("head")
        ax.set_ylabel("layer")
        ax.set_title(title, fontsize=9)
        bar = fig.colorbar(image, ax=ax, fraction=0.05, pad=0.03)
        if name == "p":
            top = float(heads["p"].max())
            bar.set_label(f"unit sphere: x D = {D} (max {top * D:.4g})", fontsize=8)
        bar.ax.tick_params(labelsize=7)
        step = max(1, H // 12)
        ax.set_xticks(range(0, H, step))
        ax.set_yticks(range(0, L, max(1, L // 12)))
    fig.suptitle(f"audit of {report.provenance.get('model')}: {L} layers x {H} heads", fontsize=10)
    return figure_png(fig, bbox_inches="tight")
