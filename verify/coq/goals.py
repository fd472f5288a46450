"""The statements of the symbolic steps of the proofs, for Coq (docs/coq.md).

Each entry restates what a SymPy check of :mod:`verify._theorem.symbolic`, ``symbolic_causal``,
``symbolic_hemisphere44`` or ``symbolic_energy`` establishes, in the same coordinates, as
:class:`~verify.coq.identity.Identity` goals: unit vectors are hypotheses ``|x|^2 - 1 = 0``, denominators
are side conditions ``<> 0``, attention weights are free variables.  The SymPy code is not reused on
purpose: the Coq statement is written independently and the kernel decides it.
"""
from __future__ import annotations

from typing import Callable

import sympy

from .identity import Identity, identity

D = 3


def _vec(name: str, d: int = D) -> sympy.Matrix:
    return sympy.Matrix(sympy.symbols(f"{name}_1:{d + 1}", real=True))


def _unit(*vs: sympy.Matrix) -> list[sympy.Expr]:
    return [v.dot(v) - 1 for v in vs]


def _vars(*parts) -> list[sympy.Symbol]:
    out: list[sympy.Symbol] = []
    for p in parts:
        out += list(p) if isinstance(p, sympy.Matrix) else [p]
    return out


def _proj(x: sympy.Matrix, F: sympy.Matrix) -> sympy.Matrix:
    return F - x * x.dot(F)


def first_token_fixed() -> list[Identity]:
    x1 = _vec("x1")
    f = _proj(x1, x1)
    return [identity(_vars(x1), f[k], 0, _unit(x1)) for k in range(D)]


def token2_equation() -> list[Identity]:
    x1, x2 = _vec("x1"), _vec("x2")
    w21, w22 = sympy.symbols("w21 w22", real=True)
    lhs = x1.dot(_proj(x2, w21 * x1 + w22 * x2))
    return [identity(_vars(x1, x2, w21, w22), lhs, w21 * (1 - x1.dot(x2) ** 2), _unit(x1, x2))]


def token_i_equation() -> list[Identity]:
    x1, x2, xi = _vec("x1"), _vec("x2"), _vec("xi")
    w1, w2, wi = sympy.symbols("w_i1 w_i2 w_ii", real=True)
    lhs = x1.dot(_proj(xi, w1 * x1 + w2 * x2 + wi * xi))
    a_i, a_2, g = x1.dot(xi), x1.dot(x2), xi.dot(x2)
    rhs = w1 * (1 - a_i * a_i) + w2 * (a_2 - g * a_i)
    return [identity(_vars(x1, x2, xi, w1, w2, wi), lhs, rhs, _unit(x1, x2, xi))]


def hemisphere_derivative() -> list[Identity]:
    z, xi, xj, xk = _vec("z"), _vec("xi"), _vec("xj"), _vec("xk")
    wj, wk = sympy.symbols("w_ij w_ik", real=True)
    lhs = z.dot(_proj(xi, wj * xj + wk * xk))
    rhs = wj * (z.dot(xj) - xi.dot(xj) * z.dot(xi)) + wk * (z.dot(xk) - xi.dot(xk) * z.dot(xi))
    return [identity(_vars(z, xi, xj, xk, wj, wk), lhs, rhs, _unit(xi, xj, xk))]


def chart_identity() -> list[Identity]:
    """``d/dt (x_i/b_i) = w (b_j/b_i)(x_j/b_j - x_i/b_i)`` with ``dx_i/dt = w (x_j - g x_i)``, ``b = <z, x>``."""
    w, bi, bj, g = sympy.symbols("w b_i b_j g", real=True)
    out = [identity([w, bi, bj], w / bi, w * (bj / bi) / bj, nonzero=[bi, bj]),
           identity([w, bi, bj, g], -w * g / bi - (w * (bj - g * bi)) / bi ** 2, -w * (bj / bi) / bi, nonzero=[bi, bj])]
    z, xi, xj = _vec("z"), _vec("xi"), _vec("xj")
    bi_v, bj_v = z.dot(xi), z.dot(xj)
    dxi = w * (xj - xi.dot(xj) * xi)
    dyi = dxi / bi_v - xi * z.dot(dxi) / bi_v ** 2
    rhs = w * (bj_v / bi_v) * (xj / bj_v - xi / bi_v)
    out += [identity(_vars(z, xi, xj, w), dyi[k], rhs[k], nonzero=[bi_v, bj_v]) for k in range(D)]
    return out


def polar_substitution() -> list[Identity]:
    d = 4
    x1, xi, u = _vec("x1", d), _vec("xi", d), _vec("u", d)
    r = sympy.Symbol("r", real=True)
    xj = x1 + r * u
    hyps = _unit(x1, u) + [x1.dot(u) + r / 2]
    vs = _vars(x1, xi, u, r)
    return [identity(vs, xj.dot(xj), 1, hyps), identity(vs, x1.dot(xj), 1 - r ** 2 / 2, hyps),
            identity(vs, xi.dot(xj), x1.dot(xi) + r * xi.dot(u), hyps),
            identity(vs, (xj - x1).dot(xj - x1), r ** 2, hyps)]


def sphere_invariant() -> list[Identity]:
    x, F = _vec("x"), _vec("F")
    return [identity(_vars(x, F), x.dot(_proj(x, F)), 0, _unit(x))]


def antipodal_equilibrium() -> list[Identity]:
    x1 = _vec("x1")
    w1, w2, w3 = sympy.symbols("w1:4", real=True)
    xi = -x1
    F = w1 * x1 + w2 * (-x1) + w3 * xi
    field = _proj(xi, F)
    return [identity(_vars(x1, w1, w2, w3), field[k], 0, _unit(x1)) for k in range(D)]


def tangent_divergence_identity() -> list[Identity]:
    out = []
    for d in (2, 3, 4):
        x, f = _vec("x", d), _vec("f", d)
        J = sympy.Matrix(d, d, lambda a, b: sympy.Symbol(f"J_{a}{b}", real=True))
        DG = J - x * (f + J.T * x).T - (x.dot(f)) * sympy.eye(d)
        proj = sympy.eye(d) - x * x.T
        out.append(identity(_vars(x, f) + list(J), (proj * DG).trace(), (proj * J).trace() - (d - 1) * x.dot(f),
                            _unit(x)))
    return out


def first_eigen_coordinate() -> list[Identity]:
    x1 = _vec("x1")
    l1, l2, l3 = sympy.symbols("lambda_1:4", real=True)
    U = sympy.diag(l1, l2, l3)
    dx1 = _proj(x1, U * x1)
    return [identity(_vars(x1, l1, l2, l3), dx1[0], (l1 - (x1.T * U * x1)[0]) * x1[0])]


def v_coordinate_equation() -> list[Identity]:
    x1, x2, xi = _vec("x1"), _vec("x2"), _vec("xi")
    l1, l2, l3 = sympy.symbols("lambda_1:4", real=True)
    w1, w2, wi = sympy.symbols("w_i1 w_i2 w_ii", real=True)
    U = sympy.diag(l1, l2, l3)
    dxi = _proj(xi, w1 * U * x1 + w2 * U * x2 + wi * U * xi)
    expected = sum(w * (l1 * x[0] - xi.dot(U * x) * xi[0]) for w, x in ((w1, x1), (w2, x2), (wi, xi)))
    vs = _vars(x1, x2, xi, l1, l2, l3, w1, w2, wi)
    return [identity(vs, dxi[0], expected),
            identity(vs, dxi[0].subs(xi[0], 0), l1 * (w1 * x1[0] + w2 * x2[0]))]


def v_polar_substitution() -> list[Identity]:
    xi, u = _vec("xi"), _vec("u")
    r = sympy.Symbol("r", real=True)
    l1, l2, l3 = sympy.symbols("lambda_1:4", real=True)
    U = sympy.diag(l1, l2, l3)
    v = sympy.Matrix([1, 0, 0])
    xj = v + r * u
    hyps = _unit(u) + [v.dot(u) + r / 2]
    vs = _vars(xi, u, r, l1, l2, l3)
    return [identity(vs, v.dot(xj), 1 - r ** 2 / 2, hyps),
            identity(vs, xi.dot(U * xj), l1 * v.dot(xi) + r * (U * xi).dot(u), hyps),
            identity(vs, xj.dot(xj), 1, hyps)]


def _B(a: str, b: str) -> sympy.Symbol:
    lo, hi = sorted((a, b))
    return sympy.Symbol(f"B_{lo}_{hi}", real=True)


def _e(i: int, j: int) -> sympy.Symbol:
    lo, hi = sorted((i, j))
    return sympy.Symbol(f"e_{lo}{hi}", real=True)


def energy_identity_general() -> list[Identity]:
    """``sum_ij beta e_ij (B(v_i,x_j) + B(x_i,v_j)) = 2 beta sum_ij e_ij B(v_i,x_j)`` for N = 2..5 (symmetric
    ``B`` and ``e``: one symbol per unordered pair), and ``<Proj F, F> = |Proj F|^2`` on ``|x| = 1``."""
    beta = sympy.Symbol("beta", real=True)
    out = []
    for N in range(2, 6):
        pairs = [(i, j) for i in range(N) for j in range(N)]
        lhs = sum(beta * _e(i, j) * (_B(f"v{i}", f"x{j}") + _B(f"x{i}", f"v{j}")) for i, j in pairs)
        rhs = 2 * beta * sum(_e(i, j) * _B(f"v{i}", f"x{j}") for i, j in pairs)
        out.append(identity([beta], lhs, rhs))
    FF, xF, xx = sympy.symbols("FF xF xx", real=True)
    out.append(identity([FF, xF, xx], FF - xF * xF, FF - 2 * xF * xF + xF * xF * xx, [xx - 1]))
    return out


GOALS: dict[str, Callable[[], list[Identity]]] = {
    "first_token_fixed": first_token_fixed,
    "token2_equation": token2_equation,
    "token_i_equation": token_i_equation,
    "hemisphere_derivative": hemisphere_derivative,
    "chart_identity": chart_identity,
    "polar_substitution": polar_substitution,
    "sphere_invariant": sphere_invariant,
    "antipodal_equilibrium": antipodal_equilibrium,
    "tangent_divergence_identity": tangent_divergence_identity,
    "first_eigen_coordinate": first_eigen_coordinate,
    "v_coordinate_equation": v_coordinate_equation,
    "v_polar_substitution": v_polar_substitution,
    "energy_identity_general": energy_identity_general,
}
"""Symbolic step id -> its Coq goals.  Steps with data (``antipode_divergence``) or derivatives
(``softmax_gradient``) are in :mod:`verify.coq.special`."""
