"""Layer x head heatmaps of an audit's deviations as a matplotlib Figure (and PNG bytes).

Three panels (:data:`numerics.support.plot_layers.AUDIT_PANELS`): the antisymmetric share of ``U``
(``||U - U^T||_F / (2 ||U||_F)``, 0 symmetric, about 0.707 unstructured), ``||U - I||_F / sqrt(D)``
and ``||P||_2`` on LN-normalized tokens (the colour bar also gives the unit-sphere value
``D ||P||_2``).  Axes: layer (rows) and head (columns).
"""
from __future__ import annotations

from typing import Any

from numerics.support.plot_layers import audit_heatmaps_figure
from numerics.support.png import figure_png

from .audit import AuditReport


def audit_figure(report: AuditReport) -> Any:
    return audit_heatmaps_figure(report.measurements.heads, int(report.layout["d_model"]),
                                 str(report.provenance.get("model")))


def audit_png(report: AuditReport) -> bytes:
    """:func:`audit_figure` as PNG bytes."""
    return figure_png(audit_figure(report), bbox_inches="tight")
