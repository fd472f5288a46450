"""Layer x head heatmaps of an audit's deviations as a matplotlib Figure (and PNG bytes).

Three panels (:data:`numerics.support.plot_layers.AUDIT_PANELS`): the antisymmetric share of ``U``
(``||U - U^T||_F / (2 ||U||_F)``, 0 symmetric, about 0.707 unstructured), ``||U - I||_F / sqrt(D)``
and ``||P||_2`` on LN-normalized tokens (the colour bar also gives the unit-sphere value
``D ||P||_2``); every colour bar includes its reference value 0.  Axes: layer (rows) and head (columns).
"""
from __future__ import annotations

from typing import Any

from numerics.support.png import figure_png

from .audit import AuditReport


def audit_figure(report: AuditReport) -> Any:
    """The Figure of ``report`` (:meth:`AuditReport.figure`)."""
    return report.figure()


def audit_png(report: AuditReport) -> bytes:
    """:func:`audit_figure` as PNG bytes."""
    return figure_png(audit_figure(report), bbox_inches="tight")
