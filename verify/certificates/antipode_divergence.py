"""Theorem 4.2, tokens ``i >= 2`` near the antipode ``-x_1``: the tangent divergence of token i's field is
bounded below by ``delta > 0`` (the ISS decay term vanishes at ``-x_1``, so the plain ISS cascade does not
give 4.2).

Token ``i``'s field (causal, ``U = I``) is ``G(x) = Proj_x F(x)`` with ``F = sum_h sum_{j<=i} a^h_ij(x) x_j``
(``x = x_i``; the weights depend on ``x`` through the scores ``s_j = beta <x, P^h x_j>`` and
``s_i = beta <x, P^h x>``).  With the tangent divergence identity and the softmax gradient
(symbolic steps) and ``Proj_x x = 0``:

    div_S G = sum_h [ -(d-1) sum_{j<i} a^h_ij <x, x_j>  +  sum_{j<i} <Proj_x x_j, grad a^h_ij> ].

Polar coordinates ``x_j = x_1 + r u`` (``r = r_j``), ``e = |x + x_1|``, ``s = <x, u>``: ``<x, x_1> = e^2/2 - 1``
and ``g = <x, x_j> = e^2/2 - 1 + r s``.  Certified (exact SOS in ``(e2, r, s)``, ``e2 = e^2``, every dimension):

    (i)   -g >= 1 - e^2/2 - r                      (ii)   1 - g^2 <= e^2 + 2 r

so on the region ``e^2 <= E``, ``r_j <= R`` (``E = q^2/2``, ``R = q^2/4``): ``-<x, x_j> >= 1 - q^2/2`` and
``|Proj_x x_j| = sqrt(1 - g^2) <= q``.  With ``|grad a_j| <= a_j (|grad s_j| + max_l |grad s_l|) <= 3 beta p a_j``
(``|P y| <= p``; the self score has gradient ``beta (P + P^T) x``), each head contributes at least
``(sum_{j<i} a^h_ij) [(d-1)(1 - q^2/2) - 4 B q]`` with ``B >= beta p``, and ``sum_{j<i} a^h_ij >= (i-1) lo / i >= lo/2``
(weights lemma, ``lo <= exp(-2 beta p)``).  :func:`divergence_margin` picks ``q`` and checks the
bracket exactly in rationals.  Not covered: the Liouville / measure-zero argument that uses the bound
(a cited step with its obligations).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import sympy

from theorems.errors import InvalidInput
from verify._sos.prove import prove_nonnegative
from verify._sos.result import SOSResult

from .gram_set import gram_coordinates


def _polar() -> tuple[sympy.Symbol, sympy.Symbol, sympy.Symbol, sympy.Expr, list[sympy.Expr]]:
    """Coordinates ``e2 = e^2 = |x_i + x_1|^2 >= 0``, ``r >= 0``, ``s in [-1, 1]``; ``g = e2/2 - 1 + r s in [-1, 1]``."""
    e2, r, s = gram_coordinates("e2", "r", "s")
    g = e2 / 2 - 1 + r * s
    ineqs = [e2, r, 1 - s, 1 + s, 1 + g, 1 - g]
    return e2, r, s, g, ineqs


def certify_antipode_inner(solver: str = "CLARABEL") -> SOSResult:
    """(i): ``-g - (1 - e^2/2 - r) >= 0`` with ``g = e^2/2 - 1 + r s`` (``= r (1 - s)``)."""
    e2, r, s, g, ineqs = _polar()
    return prove_nonnegative(sympy.expand(-g - (1 - e2 / 2 - r)), (e2, r, s), ineqs, degree=2, products=2,
                             solver=solver, label="4.2 antipode divergence (i): -<x_i,x_j> >= 1 - e2/2 - r_j, "
                                                  "e2 = |x_i + x_1|^2, x_j = x_1 + r u, s = <x_i,u>")


def certify_antipode_tangent(solver: str = "CLARABEL") -> SOSResult:
    """(ii): ``e^2 + 2 r - (1 - g^2) >= 0`` (``= (1 + g)^2 + 2 r (1 - s) - 2 (1 + g - e2/2 - r s)``), degree 2 in
    ``(e2, r, s, g)`` with the equation ``g = e2/2 - 1 + r s``."""
    e2, r, s, g_poly, ineqs = _polar()
    g = sympy.Symbol("g", real=True)  # <x_i, x_j> as a coordinate tied to (e2, r, s) by an equation: degree 2
    ineqs = ineqs[:4] + [1 + g, 1 - g]
    return prove_nonnegative(e2 + 2 * r - (1 - g ** 2), (e2, r, s, g), ineqs, [g - g_poly], degree=2, products=2,
                             solver=solver, label="4.2 antipode divergence (ii): |Proj_{x_i} x_j|^2 = 1 - <x_i,x_j>^2 "
                                                  "<= e2 + 2 r_j, e2 = |x_i + x_1|^2, x_j = x_1 + r u, s = <x_i,u>")


@dataclass(frozen=True)
class DivergenceMargin:
    """The region ``{|x_i + x_1|^2 <= E, r_j <= R for j < i}`` and the exact lower bound ``delta`` on it."""

    B: Fraction
    q: Fraction
    E: Fraction
    R: Fraction
    bracket: Fraction
    delta: Fraction

    def to_json(self) -> dict[str, str]:
        return {"B used (rounded up)": str(self.B), "q": str(self.q), "E (|x_i + x_1|^2 <=)": str(self.E), "R (r_j <=)": str(self.R),
                "bracket (d-1)(1 - q^2/2) - 4 B q": str(self.bracket), "delta": str(self.delta)}


def divergence_margin(d: int, H: int, beta_p_upper: Fraction, lo: Fraction) -> DivergenceMargin:
    """``q = 1/n <= min(1/2, (d-1)/(8 B))``: then the bracket is ``>= 3 (d-1)/8`` and ``delta = H (lo/2) bracket``
    (``B`` and ``lo`` are first rounded outward to short rationals).

    ``beta_p_upper``: a rational ``B >= beta p``; ``lo``: a rational ``0 < lo <= exp(-2 beta p)``.
    Everything is exact (``Fraction``); raises :class:`InvalidInput` for ``d < 2`` (S^0 has no volume
    argument) or non-positive data.
    """
    if d < 2:
        raise InvalidInput("d", "a dimension d >= 2 (the divergence argument needs a sphere of positive dimension)", d)
    if beta_p_upper < 0 or lo <= 0 or H < 1:
        raise InvalidInput("beta_p_upper, lo, H", "B >= 0, lo > 0, H >= 1", (str(beta_p_upper), str(lo), H))
    B = Fraction(math.ceil(beta_p_upper * 16), 16)  # a rounder B >= beta p keeps the printed figures short
    q = Fraction(1, max(2, math.ceil(8 * B / (d - 1))))  # q <= min(1/2, (d-1)/(8B))
    bracket = (d - 1) * (1 - q * q / 2) - 4 * B * q
    lo_short = Fraction(math.floor(lo * 10 ** 6), 10 ** 6) or lo  # any smaller positive lower bound is valid
    delta = H * (lo_short / 2) * bracket
    return DivergenceMargin(B, q, q * q / 2, q * q / 4, bracket, delta)
