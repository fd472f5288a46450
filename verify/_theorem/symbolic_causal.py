"""Symbolic steps that close Theorem 4.2: the polar substitution behind the kappa = 1
ISS certificate, the tangent divergence on the sphere, the softmax gradient and sphere invariance.

Each check is exact (SymPy): an identity whose residual is exactly 0, or an explicit membership in
the ideal of the constraints (the residual minus a stated combination of the constraints is 0).
What each check covers is stated in its verdict; where a dimension is fixed it says which.
"""
from __future__ import annotations

import sympy

from theorems.verdict import Verdict, fails, holds


def _vec(name: str, d: int) -> sympy.Matrix:
    return sympy.Matrix(sympy.symbols(f"{name}_1:{d + 1}", real=True))


def _result(name: str, statement: str, residuals: dict[str, sympy.Expr], method: str) -> Verdict:
    res = {k: sympy.expand(v) for k, v in residuals.items()}
    witness = {"statement": statement, "residuals": {k: str(v) for k, v in res.items()}, "method": method}
    if all(v == 0 for v in res.values()):
        return holds(name, f"{statement}: every residual is exactly 0 ({method})", witness)
    return fails(name, f"{statement}: a residual does not vanish", witness)


def polar_substitution() -> Verdict:
    """``x_j = x_1 + r u`` with ``|x_1| = |x_i| = |u| = 1``: ``|x_j|^2 = 1`` iff ``<x_1,u> = -r/2``, and then
    ``a_j = 1 - r^2/2``, ``g = <x_i,x_j> = a_i + r s`` (``s = <x_i,u>``), ``|x_j - x_1| = r``.

    Dimension-free by bilinearity; checked as ideal memberships in ``R^4`` coordinates:
    ``a_j - (1 - r^2/2) = (|x_1|^2 - 1) + r (<x_1,u> + r/2)`` and
    ``|x_j|^2 - 1 = (|x_1|^2 - 1) + 2 r (<x_1,u> + r/2) + r^2 (|u|^2 - 1)``.
    """
    d = 4
    x1, xi, u = _vec("x1", d), _vec("xi", d), _vec("u", d)
    r = sympy.Symbol("r", real=True)
    xj = x1 + r * u
    t = x1.dot(u) + r / 2  # vanishes exactly when |x_j| = 1 (given |x_1| = |u| = 1)
    n1, nu = x1.dot(x1) - 1, u.dot(u) - 1
    residuals = {
        "unit_x_j": xj.dot(xj) - 1 - (n1 + 2 * r * t + r ** 2 * nu),
        "a_j": x1.dot(xj) - (1 - r ** 2 / 2) - (n1 + r * t),
        "g": xi.dot(xj) - (x1.dot(xi) + r * xi.dot(u)),
        "r_squared": (xj - x1).dot(xj - x1) - r ** 2 - r ** 2 * nu,
    }
    return _result("polar_substitution", "x_j = x_1 + r u: a_j = 1 - r^2/2, g = a_i + r s, |x_j - x_1| = r",
                   residuals, "SymPy, ideal membership in R^4 coordinates; dimension-free by bilinearity")


def tangent_divergence_identity() -> Verdict:
    """For ``G(x) = F(x) - <x, F(x)> x`` (the projected field, tangent on the sphere) and unit ``x``:
    ``div_S G = sum_k <e_k, DG e_k> = tr(Proj DF) - (d - 1) <x, F>`` over an orthonormal tangent basis.

    Pointwise in ``F(x) = f`` and ``DF(x) = J`` (free symbols), so checked for generic ``f, J``; the
    trace over tangent directions is ``tr(Proj M) = tr(M) - x^T M x``.  Dimensions ``d = 2, 3, 4``
    (general d: ``tr(Proj (x (f + J^T x)^T)) = 0`` since ``Proj x = 0``, and ``tr(Proj) = d - 1``).
    """
    residuals = {}
    for d in (2, 3, 4):
        x, f = _vec("x", d), _vec("f", d)
        J = sympy.Matrix(d, d, lambda a, b: sympy.Symbol(f"J_{a}{b}", real=True))
        DG = J - x * (f + J.T * x).T - (x.dot(f)) * sympy.eye(d)
        proj = sympy.eye(d) - x * x.T
        lhs = (proj * DG).trace()
        rhs = (proj * J).trace() - (d - 1) * x.dot(f)
        # off the sphere the two sides differ by an explicit multiple of |x|^2 - 1
        q = 2 * x.dot(f) + (x.T * J * x)[0]
        residuals[f"d={d}"] = lhs - rhs - q * (x.dot(x) - 1)
    return _result("tangent_divergence_identity", "div_S(Proj_x F) = tr(Proj_x DF) - (d - 1) <x, F> on the unit sphere",
                   residuals, "SymPy with generic f = F(x), J = DF(x) for d = 2, 3, 4; general d by the trace argument")


def softmax_gradient() -> Verdict:
    """``a_j = exp(s_j) / sum_l exp(s_l)``: ``d a_j = a_j (d s_j - sum_l a_l d s_l)`` (checked with three
    scores; further scores add identical terms).  Hence ``|grad a_j| <= a_j (|grad s_j| + max_l |grad s_l|)``."""
    s = sympy.symbols("s1:4", real=True)
    Z = sum(sympy.exp(v) for v in s)
    a = [sympy.exp(v) / Z for v in s]
    residuals = {}
    for j in range(3):
        for k in range(3):
            expected = a[j] * ((1 if j == k else 0) - a[k])
            # both sides are rational in exp(s_l): clear the denominator Z^2 and expand
            residuals[f"da{j + 1}/ds{k + 1}"] = sympy.expand((sympy.diff(a[j], s[k]) - expected) * Z ** 2)
    return _result("softmax_gradient", "d a_j / d s_k = a_j (delta_jk - a_k) for the softmax weights", residuals,
                   "SymPy differentiation, residual times Z^2 expanded, three scores")


def sphere_invariant() -> Verdict:
    """``d|x_i|^2/dt = 2 <x_i, Proj_{x_i} F> = 2 (1 - |x_i|^2) <x_i, F>``, which is 0 on the sphere (any ``F``,
    any mask, heads and value maps): the state space ``(S^{d-1})^N`` is compact and invariant (d = 3)."""
    x, F = _vec("x", 3), _vec("F", 3)
    proj_f = F - x * x.dot(F)
    return _result("sphere_invariant", "<x, Proj_x F> = (1 - |x|^2) <x, F>, zero on the unit sphere",
                   {"residual": x.dot(proj_f) - (1 - x.dot(x)) * x.dot(F)}, "SymPy expansion (d = 3; linear in each coordinate)")


def antipodal_equilibrium() -> Verdict:
    """Causal, ``U = I``: if every earlier token is ``+-x_1`` and ``x_i = -x_1``, token ``i``'s field
    ``Proj_{x_i}(sum_j a_ij x_j)`` vanishes (``F`` is a multiple of ``x_1``): such a token never moves,
    so these starts are genuine exceptions to '``x_i -> x_1(0)``' (checked in d = 3, weights free)."""
    x1 = _vec("x1", 3)
    w1, w2, w3 = sympy.symbols("w1:4", real=True)
    xi = -x1
    field = (w1 * x1 + w2 * (-x1) + w3 * xi) - xi * xi.dot(w1 * x1 + w2 * (-x1) + w3 * xi)
    n1 = x1.dot(x1) - 1
    residuals = {f"component_{k + 1}": sympy.expand(field[k] - (-(w1 - w2 - w3)) * x1[k] * n1) for k in range(3)}
    return _result("antipodal_equilibrium", "x_j in {x_1, -x_1} (j < i) and x_i = -x_1: dx_i/dt = 0", residuals,
                   "SymPy: the field is (w_1 - w_2 - w_3)(1 - |x_1|^2) x_1, zero on the sphere")
