"""Symbolic steps of the proofs: reductions of the vector field (eq. 5) to the Gram-coordinate
equations that the SOS certificates are about, and the chart identity of Theorem 3.2.

Each identity is checked with SymPy as a polynomial identity on a product of unit spheres in
``R^3`` (reduction modulo ``|x_k|^2 - 1``, whose generators lie in disjoint variables and so form
a Groebner basis) and, where it is stated dimension-free, as an identity between coefficients of
the vectors involved.  The attention weights are free symbols: the identities hold for every
value of them, so for every ``P``, ``beta`` and number of heads (heads add termwise).
"""
from __future__ import annotations

import sympy

from theorems.verdict import Verdict, fails, holds

_D = 3


def _vec(name: str) -> sympy.Matrix:
    return sympy.Matrix(sympy.symbols(f"{name}_1:{_D + 1}", real=True))


def _proj(x: sympy.Matrix, F: sympy.Matrix) -> sympy.Matrix:
    return F - x * x.dot(F)


def _reduce_on_spheres(expr: sympy.Expr, vectors: list[sympy.Matrix]) -> sympy.Expr:
    gens = [c for v in vectors for c in v]
    ideal = [v.dot(v) - 1 for v in vectors]
    num, den = sympy.fraction(sympy.together(sympy.expand(expr)))
    _, remainder = sympy.reduced(sympy.expand(num), ideal, *gens, order="lex")
    return sympy.expand(remainder)


def _verdict(name: str, statement: str, residuals: dict[str, sympy.Expr]) -> Verdict:
    witness = {"statement": statement, "residuals": {k: str(v) for k, v in residuals.items()},
               "method": "SymPy: polynomial reduction modulo |x_k|^2 - 1 (d = 3) and coefficient comparison"}
    if all(v == 0 for v in residuals.values()):
        return holds(name, f"{statement}: every residual reduces to exactly 0", witness)
    return fails(name, f"{statement}: a residual does not vanish", witness)


def first_token_fixed() -> Verdict:
    """Causal mask, ``U^h = I``: ``a^h_11 = 1`` so ``dx_1/dt = sum_h Proj_{x_1}(x_1) = 0``."""
    x1 = _vec("x1")
    field = _proj(x1, x1)
    return _verdict("first_token_fixed", "dx_1/dt = Proj_{x_1} x_1 = 0 on the sphere",
                    {f"component_{k + 1}": _reduce_on_spheres(field[k], [x1]) for k in range(_D)})


def token_two_gram_equation() -> Verdict:
    """Causal, ``U = I``: with ``w = sum_h a^h_21``, ``a = <x_1, x_2>``: ``da/dt = w (1 - a^2)``."""
    x1, x2 = _vec("x1"), _vec("x2")
    w21, w22 = sympy.symbols("w21 w22", real=True)  # summed over heads; rows sum to H
    dx2 = _proj(x2, w21 * x1 + w22 * x2)
    a = x1.dot(x2)
    residual = x1.dot(dx2) - w21 * (1 - a ** 2)  # dx_1/dt = 0 (first_token_fixed)
    return _verdict("token2_gram_equation", "d<x_1,x_2>/dt = w (1 - <x_1,x_2>^2)",
                    {"residual": _reduce_on_spheres(residual, [x1, x2])})


def token_i_gram_equation() -> Verdict:
    """Causal, ``U = I``: ``d<x_1, x_i>/dt = sum_j a_ij (<x_1,x_j> - <x_i,x_j> <x_1,x_i>)``.

    Checked with two earlier tokens ``j in {1, 2}`` and the self term ``j = i`` (which
    contributes zero); further ``j`` add identical terms.
    """
    x1, x2, xi = _vec("x1"), _vec("x2"), _vec("xi")
    w1, w2, wi = sympy.symbols("w_i1 w_i2 w_ii", real=True)
    dxi = _proj(xi, w1 * x1 + w2 * x2 + wi * xi)
    a_i, a_2, g = x1.dot(xi), x1.dot(x2), xi.dot(x2)
    expected = w1 * (1 - a_i * a_i) + w2 * (a_2 - g * a_i)
    return _verdict("token_i_gram_equation", "d<x_1,x_i>/dt = sum_j a_ij (a_j - g_ij a_i)",
                    {"residual": _reduce_on_spheres(x1.dot(dxi) - expected, [x1, x2, xi])})


def hemisphere_derivative() -> Verdict:
    """Full, ``U = I``: ``d<z, x_i>/dt = sum_j a_ij (<z, x_j> - <x_i, x_j> <z, x_i>)`` (any fixed z)."""
    z, xi, xj, xk = _vec("z"), _vec("xi"), _vec("xj"), _vec("xk")
    wj, wk = sympy.symbols("w_ij w_ik", real=True)
    dxi = _proj(xi, wj * xj + wk * xk)
    expected = wj * (z.dot(xj) - xi.dot(xj) * z.dot(xi)) + wk * (z.dot(xk) - xi.dot(xk) * z.dot(xi))
    return _verdict("hemisphere_derivative", "d<z,x_i>/dt = sum_j a_ij (<z,x_j> - <x_i,x_j><z,x_i>)",
                    {"residual": _reduce_on_spheres(z.dot(dxi) - expected, [xi, xj, xk])})


def chart_identity() -> Verdict:
    """Theorem 3.2's chart: ``y_i = x_i/<z, x_i>`` turns eq. 5 (``U = I``) into the linear consensus
    protocol ``dy_i/dt = sum_j a_ij (<z,x_j>/<z,x_i>) (y_j - y_i)``.

    Dimension-free: both sides are combinations of ``x_i`` and ``x_j``; their coefficients are
    compared with ``b_i = <z,x_i>``, ``b_j = <z,x_j>``, ``g = <x_i,x_j>`` and ``db_i/dt`` from
    :func:`hemisphere_derivative` (one neighbour ``j``; neighbours add termwise).
    """
    w, bi, bj, g = sympy.symbols("w b_i b_j g", real=True)
    # dx_i/dt = w (x_j - g x_i); db_i/dt = w (b_j - g b_i); dy_i/dt = dx_i/b_i - x_i db_i / b_i^2
    lhs_xj = w / bi
    lhs_xi = -w * g / bi - (w * (bj - g * bi)) / bi ** 2
    # rhs: w (b_j/b_i) (x_j/b_j - x_i/b_i)
    rhs_xj = w * (bj / bi) / bj
    rhs_xi = -w * (bj / bi) / bi
    residuals = {"coefficient_of_x_j": sympy.simplify(lhs_xj - rhs_xj),
                 "coefficient_of_x_i": sympy.simplify(lhs_xi - rhs_xi)}
    # componentwise cross-check in R^3 with explicit vectors
    z, xi, xj = _vec("z"), _vec("xi"), _vec("xj")
    bi_v, bj_v = z.dot(xi), z.dot(xj)
    dxi = w * (xj - xi.dot(xj) * xi)
    dbi = z.dot(dxi)
    dyi = dxi / bi_v - xi * dbi / bi_v ** 2
    rhs = w * (bj_v / bi_v) * (xj / bj_v - xi / bi_v)
    for k in range(_D):
        residuals[f"component_{k + 1}"] = sympy.simplify(sympy.together(dyi[k] - rhs[k]))
    return _verdict("chart_identity", "d/dt (x_i/<z,x_i>) = sum_j a_ij (<z,x_j>/<z,x_i>)(y_j - y_i)", residuals)


def first_eigen_coordinate() -> Verdict:
    """One head, ``U`` symmetric constant, ``v`` a unit eigenvector with ``U v = lambda_1 v``:
    ``d<v, x_1>/dt = (lambda_1 - x_1^T U x_1) <v, x_1>`` (causal, so token 1 attends only to itself).
    Checked in eigen-coordinates (``U = diag(l1, l2, l3)``, ``v = e_1``)."""
    x1 = _vec("x1")
    l1, l2, l3 = sympy.symbols("lambda_1:4", real=True)
    U = sympy.diag(l1, l2, l3)
    dx1 = _proj(x1, U * x1)
    b = x1[0]
    residual = dx1[0] - (l1 - (x1.T * U * x1)[0]) * b
    return _verdict("first_eigen_coordinate", "d<v,x_1>/dt = (lambda_1 - x_1^T U x_1) <v,x_1>",
                    {"residual": sympy.expand(residual)})


def energy_derivative() -> Verdict:
    """Proposition ``grad-energy``: full mask, one head, ``P`` symmetric constant, ``U = P``.
    ``E = sum_ij exp(beta <x_i, P x_j>)`` satisfies ``dE/dt = 2 beta sum_i Z_i |Proj_{x_i} F_i|^2 >= 0``
    with ``Z_i = sum_j exp(beta <x_i, P x_j>)`` and ``F_i = sum_j a_ij P x_j``.

    Dimension-free: swapping ``i, j`` (``P`` symmetric) gives ``dE/dt = 2 beta sum_i Z_i <dx_i/dt, F_i>``
    and ``<Proj F, F> = |Proj F|^2``.  Checked exactly for ``N = 2`` tokens on the circle with a
    generic symmetric ``P`` in angle coordinates.
    """
    th1, th2, beta = sympy.symbols("theta1 theta2 beta", real=True)
    p11, p12, p22 = sympy.symbols("p11 p12 p22", real=True)
    P = sympy.Matrix([[p11, p12], [p12, p22]])
    angles = [th1, th2]
    xs = [sympy.Matrix([sympy.cos(a), sympy.sin(a)]) for a in angles]
    e = [[sympy.exp(beta * (xs[i].T * P * xs[j])[0]) for j in range(2)] for i in range(2)]
    E = sum(e[i][j] for i in range(2) for j in range(2))
    dE, rhs = sympy.Integer(0), sympy.Integer(0)
    for i in range(2):
        Z = e[i][0] + e[i][1]
        F = (e[i][0] * P * xs[0] + e[i][1] * P * xs[1]) / Z
        perp = sympy.Matrix([-sympy.sin(angles[i]), sympy.cos(angles[i])])
        theta_dot = perp.dot(F)  # dx_i/dt = Proj_{x_i} F = theta_dot * perp
        dE += sympy.diff(E, angles[i]) * theta_dot
        rhs += 2 * beta * Z * theta_dot ** 2
    return _verdict("energy_derivative", "dE/dt = 2 beta sum_i Z_i |Proj_{x_i} F_i|^2",
                    {"residual": sympy.simplify(dE - rhs)})
