"""Theorem 4.2 / ``iss-causal``, token ``i >= 3``, with the constant ``kappa = 1`` of docs/model.md §3.

Polar coordinates around ``x_1``: write ``x_j = x_1 + r u`` with ``r = r_j = |x_j - x_1| >= 0`` and
``|u| = 1`` (any unit ``u`` when ``r = 0``), and let ``s = <x_i, u>``, ``a_i = <x_1, x_i>``.  Since
``|x_j| = 1``: ``<x_1, u> = -r/2``, hence (symbolic step ``polar_substitution``)

    a_j = <x_1, x_j> = 1 - r^2/2,        g = <x_i, x_j> = a_i + r s.

The termwise inequality of docs/model.md §3, ``a_j - g a_i >= (1 - a_i^2) - r_j - r_j^2/2`` becomes, after the
substitution, the polynomial claim

    (1 - r^2/2) - (a_i + r s) a_i - ((1 - a_i^2) - r - r^2/2)  =  r (1 - a_i s)  >=  0
    on  {r >= 0, 1 - a_i^2 >= 0, 1 - s^2 >= 0}

(``|a_i|, |s| <= 1`` as inner products of unit vectors), which has the degree-3 certificate
``r ((1 - a_i^2) + (1 - s^2) + (a_i - s)^2) / 2``.  The obstruction of
:mod:`verify.certificates.token_iss` (kappa = 1 has no certificate in ``(a_i, a_j, g, r_j)``) came
from ``s`` not being a coordinate there: the first-order term ``r (1 - a_i s)`` depends on the
direction ``u``.  Not covered here: the substitution itself (a SymPy identity, see
:func:`verify._theorem.symbolic_extra.polar_substitution`).
"""
from __future__ import annotations

import sympy

from verify._sos.prove import prove_nonnegative
from verify._sos.result import SOSResult

from .gram_set import gram_coordinates

KAPPA = 1
LABEL = "4.2/iss-causal token i>=3 (kappa = 1, x_j = x_1 + r u, s = <x_i,u>): a_j - g*a_i >= (1 - a_i^2) - r - r^2/2"


def polar_target() -> tuple[sympy.Expr, tuple[sympy.Symbol, ...]]:
    """``a_j - g a_i - ((1 - a_i^2) - r - r^2/2)`` with ``a_j = 1 - r^2/2``, ``g = a_i + r s`` substituted."""
    a_i, s, r = gram_coordinates("a_i", "s", "r")
    a_j, g = 1 - r ** 2 / 2, a_i + r * s
    return sympy.expand(a_j - g * a_i - ((1 - a_i ** 2) - r - r ** 2 / 2)), (a_i, s, r)


def certify_token_iss_polar(solver: str = "CLARABEL") -> SOSResult:
    """Exact certificate of the kappa = 1 inequality in polar coordinates (no parameters)."""
    target, (a_i, s, r) = polar_target()
    ineqs = [r, 1 - a_i ** 2, 1 - s ** 2]
    return prove_nonnegative(target, (a_i, s, r), ineqs, degree=3, products=2, solver=solver, label=LABEL)
