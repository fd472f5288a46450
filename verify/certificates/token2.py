"""Theorem 4.2, token 2 (docs/model.md §3): ``V = 1 - a`` decreases, with rate ``w_lo V (2 - V)``.

Gram coordinates: ``a = <x_1, x_2>`` and the total attention weight ``w = sum_h a^h_21`` of token 2
on token 1, a bounded parameter ``w in [w_lo, w_hi]`` with ``w_lo > 0`` (``weights`` lemma:
``w >= H exp(-2 beta p)/2``; see :func:`verify.certificates.weights.attention_weight_bounds`).

Dynamics (causal attention, ``U^h = I``, ``x_1`` fixed): ``da/dt = w (1 - a^2)``, so with
``V = 1 - a``: ``dV/dt = -w (1 - a^2) = -w V (2 - V)``.  Certified claim (polynomial in ``a, w``):

    -dV/dt - w_lo * V (2 - V)  >=  0     on  {1 - a^2 >= 0, w - w_lo >= 0, w_hi - w >= 0}

i.e. ``dV/dt <= -w_lo V (2 - V) <= 0``: strictly negative for ``a in (-1, 1)``, zero only at
``a = 1`` (consensus) and ``a = -1`` (the bad start).  The certificate needs a product of two
constraints (``(w - w_lo)(1 - a^2)``), so products are enabled.  Not covered here: the derivation
of ``da/dt`` from eq. 5 (a SymPy identity the theorem record cites).
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from theorems.errors import InvalidInput
from verify._sos.prove import prove_nonnegative
from verify._sos.result import SOSResult

from .gram_set import gram_coordinates

DEFAULT_W_LO = Fraction(1, 20)
"""Default lower bound: ``H = 1, beta = 1, p = 1``: ``exp(-2)/2 = 0.0677 > 1/20``."""
DEFAULT_W_HI = Fraction(4)
"""Default upper bound: ``exp(2)/2 = 3.69 < 4``."""


def token2_target(w_lo: Fraction) -> tuple[sympy.Expr, tuple[sympy.Symbol, ...]]:
    a, w = gram_coordinates("a", "w")
    V = 1 - a
    da_dt = w * (1 - a ** 2)
    dV_dt = -da_dt
    return sympy.expand(-dV_dt - sympy.Rational(w_lo.numerator, w_lo.denominator) * V * (2 - V)), (a, w)


def certify_token2_decrease(w_lo: Fraction | int | str = DEFAULT_W_LO, w_hi: Fraction | int | str = DEFAULT_W_HI,
                            solver: str = "CLARABEL") -> SOSResult:
    """Exact certificate of ``dV/dt <= -w_lo V(2-V)`` for token 2 (Theorem 4.2); ``w_lo, w_hi`` rational."""
    lo, hi = _rational(w_lo, "w_lo"), _rational(w_hi, "w_hi")
    if not 0 < lo <= hi:
        raise InvalidInput("w_lo, w_hi", "0 < w_lo <= w_hi", (str(lo), str(hi)))
    target, (a, w) = token2_target(lo)
    q = lambda v: sympy.Rational(v.numerator, v.denominator)  # noqa: E731
    ineqs = [1 - a ** 2, w - q(lo), q(hi) - w]
    return prove_nonnegative(target, (a, w), ineqs, degree=3, products=2, solver=solver,
                             label=f"4.2 token 2: -dV/dt - {lo}*V*(2-V) >= 0, V = 1 - a, w in [{lo}, {hi}]")


def _rational(value, field: str) -> Fraction:
    if isinstance(value, (float, bool)):
        raise InvalidInput(field, "an exact rational (int, Fraction or 'p/q')", value)
    try:
        return Fraction(value)
    except (TypeError, ValueError, ZeroDivisionError):
        raise InvalidInput(field, "an exact rational", value) from None
