"""Consensus metrics (docs/model.md §4, docs/depth.md) enclosed on an enclosure of the tokens.

For an enclosure ``X`` (``N`` rows of ``d`` arb balls; every true token lies in its row's box)
each function returns one arb ball containing the metric of every configuration in the boxes:

* ``E_pair(X) = 1 - (1/N^2) sum_{i,j} cos(x_i, x_j)`` (anchor-free, docs/model.md §4);
* ``E_first(X) = 1 - (1/N) sum_j cos(x_1, x_j)`` (the authors' metric, signed cosine);
* ``cap_first(X) = max_{i >= 2} (1 - cos(x_1, x_i))``: the cap around ``x_1`` (causal attention,
  the ``4.2`` metric of ``verify depth``);
* ``diameter(X) = 1 - min_{i, j} cos(x_i, x_j)``: the chart quantity of full attention
  (the ``3.2`` metric of ``verify depth``).

``cos(x, y) = <x, y> / (|x| |y|)``; on the sphere it is ``<x, y>``, so ``1 - cos`` is the metric of
docs/depth.md, and off the sphere (boxes around unit vectors) it stays the angle's cosine.  Every
``1 - cos(x_i, x_j)`` is evaluated as ``|u_i - u_j|^2 / 2`` with ``u = x / |x|`` (an identity for
unit vectors): in ball arithmetic its width is about ``2 |u_i - u_j| w`` for box widths ``w``,
instead of ``4 w`` for ``1 - <u_i, u_j>``, which matters near consensus.  The norms must be
provably positive, otherwise the ball is not finite (and proves nothing).  ``max`` and ``min`` of
balls contain the max and min of the values (arb's ``max``/``min``).

Not guaranteed: tightness (each box is treated as independent of the others).
"""
from __future__ import annotations

from typing import Callable, Sequence

from flint import arb

Rows = Sequence[Sequence[arb]]


def unit_rows(X: Rows) -> list[list[arb]]:
    out = []
    for row in X:
        norm = sum((c * c for c in row), arb(0)).sqrt()
        out.append([c / norm for c in row])
    return out


def gaps(X: Rows) -> list[list[arb]]:
    """``1 - cos(x_i, x_j) = |u_i - u_j|^2 / 2`` for all pairs (exactly 0 on the diagonal)."""
    U = unit_rows(X)
    N = len(U)
    D = [[arb(0)] * N for _ in range(N)]
    for i in range(N):
        for j in range(i + 1, N):
            D[i][j] = D[j][i] = sum(((a - b) * (a - b) for a, b in zip(U[i], U[j])), arb(0)) / 2
    return D


def e_pair(X: Rows) -> arb:
    D = gaps(X)
    N = len(D)
    return sum((g for row in D for g in row), arb(0)) / (N * N)


def e_first(X: Rows) -> arb:
    D = gaps(X)
    return sum(D[0], arb(0)) / len(D)


def cap_first(X: Rows) -> arb:
    D = gaps(X)
    out = arb(0)
    for g in D[0][1:]:
        out = out.max(g)
    return out


def diameter(X: Rows) -> arb:
    D = gaps(X)
    out = arb(0)
    for i in range(len(D)):
        for j in range(i + 1, len(D)):
            out = out.max(D[i][j])
    return out


METRICS: dict[str, Callable[[Rows], arb]] = {
    "E_pair": e_pair, "E_first": e_first, "cap_first": cap_first, "diameter": diameter}
"""The metrics by name (the names used in reports and by :func:`~.window.depth_window`)."""


__all__ = ["METRICS", "cap_first", "diameter", "e_first", "e_pair", "gaps", "unit_rows"]
