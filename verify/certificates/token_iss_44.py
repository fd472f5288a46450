"""``4.4-hemisphere``, tokens ``i >= 2``: the termwise ISS inequality inside the v-hemisphere.

One head, ``U`` symmetric constant, ``U v = lambda_1 v`` with ``|v| = 1``; ``b_i = <v, x_i>``.  Eq. 5 gives
(symbolic step) ``db_i/dt = sum_{j<=i} a_ij (lambda_1 b_j - <x_i, U x_j> b_i)``.  Polar coordinates around
``v``: ``x_j = v + r u`` with ``r = r_j = |x_j - v|``, ``|u| = 1``, so ``b_j = 1 - r^2/2`` and
``<x_i, U x_j> = lambda_1 b_i + r m`` with ``m = <U x_i, u>``, ``|m| <= L`` for any ``L >= ||U||_2``.
Writing ``m = L s`` (``|s| <= 1``), the termwise claim

    lambda_1 b_j - <x_i, U x_j> b_i  >=  lambda_1 (1 - b_i^2) - L r_j - lambda_1 r_j^2 / 2

becomes ``L r (1 - b_i s) >= 0`` on ``{r >= 0, 1 - b_i^2 >= 0, 1 - s^2 >= 0}`` (``lambda_1`` cancels), certified
here exactly.  Summed with the weights (the self term ``a_ii (lambda_1 - x_i^T U x_i) b_i`` is ``>= 0`` in the
hemisphere by the first-token certificate) it gives, with ``V_i = 1 - b_i in [0, 1)``:

    dV_i/dt <= -c_i V_i + k sum_{j<i} (L r_j + lambda_1 r_j^2/2),   c_i = lambda_1 (i-1) exp(-2 beta p)/i,

an ISS inequality whose decay does not vanish on the hemisphere (unlike 4.2's at ``x_i = -x_1``).
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from theorems.errors import InvalidInput
from verify._sos.prove import prove_nonnegative
from verify._sos.result import SOSResult

from .gram_set import gram_coordinates


def infinity_norm_upper(U: list[list[Fraction]]) -> Fraction:
    """``||U||_2 <= ||U||_inf`` (max absolute row sum) for symmetric ``U``: an exact rational ``L``."""
    return max(sum((abs(v) for v in row), Fraction(0)) for row in U)


def hemisphere_iss_target(L: Fraction) -> tuple[sympy.Expr, tuple[sympy.Symbol, ...]]:
    b, s, r = gram_coordinates("b_i", "s", "r")
    lam = sympy.Symbol("lambda_1", real=True)
    Lq = sympy.Rational(L.numerator, L.denominator)
    b_j, g_u = 1 - r ** 2 / 2, lam * b + r * Lq * s
    target = sympy.expand(lam * b_j - g_u * b - (lam * (1 - b ** 2) - Lq * r - lam * r ** 2 / 2))
    if target.has(lam):  # lambda_1 must cancel: the claim holds for every lambda_1
        raise AssertionError("lambda_1 did not cancel")
    return target, (b, s, r)


def certify_hemisphere_iss(L: Fraction | int | str = 1, solver: str = "CLARABEL") -> SOSResult:
    """Exact certificate of ``L r (1 - b_i s) >= 0`` (the termwise claim above, for this ``L > 0``)."""
    if isinstance(L, (float, bool)):
        raise InvalidInput("L", "an exact positive rational", L)
    Lf = Fraction(L)
    if Lf <= 0:
        raise InvalidInput("L", "a positive rational upper bound on ||U||_2", str(Lf))
    target, (b, s, r) = hemisphere_iss_target(Lf)
    return prove_nonnegative(target, (b, s, r), [r, 1 - b ** 2, 1 - s ** 2], degree=3, products=2, solver=solver,
                             label=f"4.4-hemisphere token i>=2 (x_j = v + r u, <U x_i,u> = {Lf} s): lambda_1 b_j - "
                                   f"<x_i,U x_j> b_i >= lambda_1 (1 - b_i^2) - {Lf} r - lambda_1 r^2/2")
