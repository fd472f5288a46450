"""One Figure-to-PNG helper: matplotlib figures without pyplot (no global figure or backend state).

:func:`new_figure` makes a :class:`matplotlib.figure.Figure` with its own Agg canvas;
:func:`figure_png` renders it to PNG bytes (the callers write files through :mod:`verify.outputs`).
PNG output is deterministic: the Agg renderer and the PNG writer use no clock or random state, so
the same figure gives the same bytes.  matplotlib is imported inside the functions, so importing
this module costs nothing.
"""
from __future__ import annotations

import functools
import io
from typing import Any


def new_figure(figsize: tuple[float, float], dpi: int = 100, **options: Any) -> Any:
    """A Figure attached to an Agg canvas (rendering needs no display and no pyplot; shown as a PNG
    in Jupyter); ``options`` go to :class:`matplotlib.figure.Figure` (e.g. ``layout="constrained"``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi, **options)
    FigureCanvasAgg(fig)
    # Jupyter shows a Figure through a formatter that matplotlib's inline backend registers only
    # once pyplot is imported; without pyplot, the figure renders itself as the cell's PNG.
    fig._repr_png_ = functools.partial(figure_png, fig)
    return fig


def figure_png(fig: Any, **savefig: Any) -> bytes:
    """The figure as PNG bytes (``savefig`` options, e.g. ``bbox_inches="tight"``, passed through)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", **savefig)
    return buffer.getvalue()


__all__ = ["figure_png", "new_figure"]
