"""Symbolic steps of ``4.4-hemisphere``: the equation of ``b_i = <v, x_i>`` under eq. 5 and the polar
substitution around ``v``.  Checked in eigen-coordinates (``U = diag(l1, l2, l3)``, ``v = e_1``; an
orthogonal change of basis maps every symmetric ``U`` in ``R^3`` to this form), weights free symbols.
"""
from __future__ import annotations

import sympy

from theorems.verdict import Verdict

from .symbolic_causal import _result, _vec


def v_coordinate_equation() -> Verdict:
    """``db_i/dt = sum_j a_ij (lambda_1 b_j - <x_i, U x_j> b_i)`` (earlier tokens ``j = 1, 2`` and the self term),
    and at ``b_i = 0``: ``db_i/dt = lambda_1 sum_{j<i} a_ij b_j`` (the invariance of the v-hemisphere)."""
    x1, x2, xi = _vec("x1", 3), _vec("x2", 3), _vec("xi", 3)
    l1, l2, l3 = sympy.symbols("lambda_1:4", real=True)
    w1, w2, wi = sympy.symbols("w_i1 w_i2 w_ii", real=True)
    U = sympy.diag(l1, l2, l3)
    F = w1 * U * x1 + w2 * U * x2 + wi * U * xi
    dxi = F - xi * xi.dot(F)
    b = lambda x: x[0]  # noqa: E731  (v = e_1)
    expected = sum(w * (l1 * b(x) - xi.dot(U * x) * b(xi)) for w, x in ((w1, x1), (w2, x2), (wi, xi)))
    at_zero = (dxi[0] - l1 * (w1 * b(x1) + w2 * b(x2))).subs(xi[0], 0)
    return _result("v_coordinate_equation", "d<v,x_i>/dt = sum_j a_ij (lambda_1 <v,x_j> - <x_i,U x_j> <v,x_i>); "
                   "= lambda_1 sum_{j<i} a_ij <v,x_j> at <v,x_i> = 0",
                   {"equation": dxi[0] - expected, "at_b_i_zero": at_zero}, "SymPy expansion, eigen-coordinates in R^3")


def v_polar_substitution() -> Verdict:
    """``x_j = v + r u`` (``|v| = |u| = 1``, ``<v,u> = -r/2``): ``b_j = 1 - r^2/2`` and
    ``<x_i, U x_j> = lambda_1 b_i + r <U x_i, u>`` (``U`` symmetric, ``U v = lambda_1 v``), as ideal memberships."""
    xi, u = _vec("xi", 3), _vec("u", 3)
    r = sympy.Symbol("r", real=True)
    l1, l2, l3 = sympy.symbols("lambda_1:4", real=True)
    U = sympy.diag(l1, l2, l3)
    v = sympy.Matrix([1, 0, 0])
    xj = v + r * u
    t = v.dot(u) + r / 2
    residuals = {
        "b_j": v.dot(xj) - (1 - r ** 2 / 2) - r * t,
        "inner_U": xi.dot(U * xj) - (l1 * v.dot(xi) + r * (U * xi).dot(u)),
        "unit_x_j": xj.dot(xj) - 1 - (2 * r * t + r ** 2 * (u.dot(u) - 1)),
    }
    return _result("v_polar_substitution", "x_j = v + r u: <v,x_j> = 1 - r^2/2, <x_i,U x_j> = lambda_1 <v,x_i> + r <U x_i,u>",
                   residuals, "SymPy, ideal membership in eigen-coordinates of R^3")
