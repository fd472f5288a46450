"""The consensus measurement across depth as a matplotlib Figure (and PNG bytes).

One curve per metric (``E_first``, ``E_first_abs``, ``E_pair``) against the layer index on a log
axis: the median over prompts with the 10-90% quantile band, the statistic the text and JSON
summary give (:mod:`numerics.spread`; drawn by :meth:`ConsensusResult.figure`).  ``E_first`` is
drawn solid and wide under a dashed ``E_first_abs``, so the two stay visible where they are equal
(every cosine to the anchor >= 0), and a line under the title says when they coincide at every layer.
"""
from __future__ import annotations

from typing import Any

from numerics.support.png import figure_png

from .consensus import ConsensusResult


def consensus_figure(result: ConsensusResult, title: str | None = None) -> Any:
    """The Figure of ``result`` (module docstring)."""
    return result.figure(title=title)


def consensus_png(result: ConsensusResult, title: str | None = None) -> bytes:
    """:func:`consensus_figure` as PNG bytes."""
    return figure_png(consensus_figure(result, title), bbox_inches="tight")
