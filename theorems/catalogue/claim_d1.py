"""Claim D1 (paper eq. 4 -> eq. 5): for |x| = 1, d/dtau pi(x + tau F) at tau = 0 is Proj_x F.

Proved symbolically in a dimension-free way: ``pi(x + tau F)`` is the linear combination
``c_x(tau) x + c_F(tau) F`` with ``c_x = 1/sqrt(n2 + 2 tau s + tau^2 f2)``, ``c_F = tau c_x``
(``n2 = |x|^2``, ``s = <x, F>``, ``f2 = |F|^2``), and ``Proj_x F = F - s x``.  Because ``x`` and
``F`` are arbitrary vectors, comparing the two coefficients proves the identity in every
dimension.  A componentwise check in ``d = 3`` is added as a second, independent witness.
"""
from __future__ import annotations

import sympy

from ..verdict import Verdict, fails, holds


def prove_d1() -> Verdict:
    tau, s, f2 = sympy.symbols("tau s f2", real=True)
    n2 = sympy.Integer(1)  # |x| = 1
    root = sympy.sqrt(n2 + 2 * tau * s + tau ** 2 * f2)
    c_x, c_F = 1 / root, tau / root
    diff_x = sympy.simplify(sympy.diff(c_x, tau).subs(tau, 0) - (-s))
    diff_F = sympy.simplify(sympy.diff(c_F, tau).subs(tau, 0) - 1)

    x = sympy.Matrix(sympy.symbols("x1:4", real=True))
    F = sympy.Matrix(sympy.symbols("F1:4", real=True))
    y = x + tau * F
    pi = y / sympy.sqrt(y.dot(y))
    deriv = pi.diff(tau).subs(tau, 0)
    proj = F - x * x.dot(F)
    on_sphere = {x[2] ** 2: 1 - x[0] ** 2 - x[1] ** 2}
    comp = [sympy.simplify((deriv[i] - proj[i]).subs(x.dot(x), 1).subs(on_sphere)) for i in range(3)]
    witness = {
        "coefficient_of_x": str(diff_x), "coefficient_of_F": str(diff_F),
        "componentwise_d3": [str(c) for c in comp],
        "method": "sympy.simplify of derivative minus Proj_x F, coefficients in the basis {x, F}",
    }
    if diff_x == 0 and diff_F == 0 and all(c == 0 for c in comp):
        return holds("D1", "d/dtau pi(x + tau F)|_0 - Proj_x F simplifies to exactly 0 (every dimension)", witness)
    return fails("D1", "the symbolic difference did not simplify to 0", witness)
