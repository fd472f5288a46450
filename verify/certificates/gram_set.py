"""Gram-feasibility constraints: the semialgebraic set on which the paper's inequalities are certified.

Three unit vectors ``u, v, w`` (in any dimension ``d``) have Gram matrix
``[[1, a, b], [a, 1, c], [b, c, 1]]`` with ``a = <u,v>``, ``b = <u,w>``, ``c = <v,w>``.  A symmetric
matrix with unit diagonal is a Gram matrix of unit vectors iff it is PSD iff all principal minors
are ``>= 0``: ``1 - a^2``, ``1 - b^2``, ``1 - c^2`` and
``det = 1 + 2abc - a^2 - b^2 - c^2``.  A certificate over these constraints therefore holds in
every dimension (docs/model.md §3).
"""
from __future__ import annotations

import sympy


def unit_gram_minors(a: sympy.Expr, b: sympy.Expr, c: sympy.Expr) -> list[sympy.Expr]:
    """``[1 - a^2, 1 - b^2, 1 - c^2, det]`` for the unit-diagonal Gram matrix with off-diagonals a, b, c."""
    det = sympy.expand(1 + 2 * a * b * c - a ** 2 - b ** 2 - c ** 2)
    return [1 - a ** 2, 1 - b ** 2, 1 - c ** 2, det]


def gram_coordinates(*names: str) -> tuple[sympy.Symbol, ...]:
    return tuple(sympy.Symbol(n, real=True) for n in names)
