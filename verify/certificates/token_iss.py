"""Theorem 4.2 / ``iss-causal``, token ``i >= 3``: the termwise ISS inequality in Gram coordinates.

Coordinates: ``a_i = <x_1, x_i>``, ``a_j = <x_1, x_j>``, ``g = <x_i, x_j>`` and ``r_j = |x_j - x_1|``
(so ``r_j >= 0`` and ``r_j^2 = 2 (1 - a_j)``); ``(a_i, a_j, g)`` range over unit-diagonal PSD Gram
matrices of ``(x_1, x_i, x_j)`` (:mod:`verify.certificates.gram_set`).  Certified claim:

    a_j - g a_i  -  ( kappa (1 - a_i^2) - r_j - r_j^2 / 2 )  >=  0          (default kappa = 1/2)

**Deviation from docs/model.md §3 (as read by this project).**  The model states the inequality with
``kappa = 1``.  That inequality is *true* (it reduces to ``r_j + a_i (a_i - g) >= 0`` and
``|a_i - g| = |<x_i, x_1 - x_j>| <= r_j``), but it has **no** Putinar/Schmuedgen certificate in
these coordinates at any degree: along the feasible curves ``x_j = cos(t) x_1 + sin(t) e``
(``e`` a unit vector orthogonal to ``x_1``) the left side is ``t (1 - a_i <x_i, e>) + O(t^2)``, whose
first-order coefficient depends on ``e``, while every term ``sigma_S g_S`` of a certificate has a
first-order coefficient that depends only on the common limit point (``r_j`` is the only
constraint vanishing to first order there).  With ``kappa < 1`` the left side stays positive on
that face and the obstruction disappears; ``kappa = 1/2`` is certified at degree 2 and the SDP is
infeasible at degree 2 for ``kappa = 3/4`` (so 1/2 is what this builder proves by default).

Consequence for the ISS inequality: ``dV_i/dt <= -kappa c_i V_i (2 - V_i) + k sum_{j<i} (r_j + r_j^2/2)``
(the ``j = 1`` term equals ``1 - a_i^2`` exactly; weights bounded as in ``weights``).

**kappa = 1 is certified elsewhere**: :mod:`verify.certificates.token_iss_polar` adds the
coordinate ``s = <x_i, u>`` of ``x_j = x_1 + r u``, which removes the obstruction above; the theorem
plans (``4.2``, ``iss-causal``) use that certificate and state kappa = 1.  This module stays as the
Gram-coordinate version (golden ``tests/golden/sos_4_2_token_iss.json``) and as the documented
obstruction.
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from theorems.errors import InvalidInput
from verify._sos.prove import prove_nonnegative
from verify._sos.result import SOSResult

from .gram_set import gram_coordinates, unit_gram_minors

DEFAULT_KAPPA = Fraction(1, 2)


def certify_token_iss(kappa: Fraction | int | str = DEFAULT_KAPPA, degree: int = 2,
                      solver: str = "CLARABEL") -> SOSResult:
    """Exact certificate of ``a_j - g a_i >= kappa (1 - a_i^2) - r_j - r_j^2/2`` on the Gram set.

    ``kappa``: rational in ``(0, 1]``; ``kappa = 1`` is the form of docs/model.md §3 and comes back ``unknown``.
    """
    if isinstance(kappa, (float, bool)):
        raise InvalidInput("kappa", "an exact rational", kappa)
    try:
        k = Fraction(kappa)
    except (TypeError, ValueError, ZeroDivisionError):
        raise InvalidInput("kappa", "an exact rational", kappa) from None
    if not 0 < k <= 1:
        raise InvalidInput("kappa", "a rational in (0, 1]", str(k))
    a_i, a_j, g, r_j = gram_coordinates("a_i", "a_j", "g", "r_j")
    kq = sympy.Rational(k.numerator, k.denominator)
    target = a_j - g * a_i - (kq * (1 - a_i ** 2) - r_j - r_j ** 2 / 2)
    ineqs = unit_gram_minors(a_i, a_j, g) + [r_j]
    eqs = [r_j ** 2 - 2 * (1 - a_j)]
    return prove_nonnegative(target, (a_i, a_j, g, r_j), ineqs, eqs, degree=degree, products=2, solver=solver,
                             label=f"4.2/iss-causal token i>=3: a_j - g*a_i >= {k}*(1 - a_i^2) - r_j - r_j^2/2")
