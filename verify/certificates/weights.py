"""Exact rational bounds for attention weights (SPEC §2, ``weights`` lemma).

``exp(-2 beta p)/n <= a_ij <= exp(2 beta p)/n`` with ``n = |M(i)|``; summed over ``H`` heads the
total weight on one key lies in ``[H exp(-2 beta p)/n, H exp(2 beta p)/n]``.  ``exp`` of a rational is
irrational, so certificates take rational bounds: :func:`exp_bounds` gives ``lo <= exp(y) <= hi``
from Taylor partial sums with an explicit remainder bound, all in exact arithmetic.
"""
from __future__ import annotations

from fractions import Fraction
from math import factorial

from theorems.errors import InvalidInput


def exp_bounds(y: Fraction, terms: int = 30) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= exp(y) <= hi`` (exact), for rational ``y`` with ``|y| < terms``."""
    y = Fraction(y)
    x = abs(y)
    if x + 2 >= terms:
        raise InvalidInput("y", f"|y| < {terms - 2} for the Taylor bound", y)
    partial = sum((x ** k / factorial(k) for k in range(terms + 1)), Fraction(0))
    tail = x ** (terms + 1) / factorial(terms + 1) / (1 - x / (terms + 2))
    lo, hi = partial, partial + tail  # exp(x) for x >= 0: lo = partial sum, hi adds a geometric tail bound
    lo, hi = _simplify_down(lo), _simplify_up(hi)
    return (lo, hi) if y >= 0 else (1 / hi, 1 / lo)


def _simplify_down(q: Fraction, den: int = 10 ** 12) -> Fraction:
    return Fraction((q.numerator * den) // q.denominator, den)


def _simplify_up(q: Fraction, den: int = 10 ** 12) -> Fraction:
    return Fraction(-((-q.numerator * den) // q.denominator), den)


def attention_weight_bounds(heads: int, beta: Fraction, p: Fraction, n_keys: int) -> tuple[Fraction, Fraction]:
    """Rational ``(w_lo, w_hi)`` with ``w_lo <= sum_h a^h_ij <= w_hi`` when ``||P^h|| <= p``, ``|M(i)| = n_keys``."""
    for name, value in (("heads", heads), ("n_keys", n_keys)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInput(name, "a positive integer", value)
    beta, p = Fraction(beta), Fraction(p)
    if beta < 0 or p < 0:
        raise InvalidInput("beta, p", "nonnegative rationals", (beta, p))
    lo, _ = exp_bounds(-2 * beta * p)
    _, hi = exp_bounds(2 * beta * p)
    return Fraction(heads) * lo / n_keys, Fraction(heads) * hi / n_keys
