"""The exact input of a validated run read off an :class:`~theorems.system.AttentionSystem`.

Only constant ``P^h`` and a rational ``beta`` are taken, with ``U^h = I`` (the callers prove the
hypothesis ``U_identity`` first) (float data stand for the
binary rationals they hold); anything else is refused with the reason, which the callers report.
The tokens are rational directions: a token that is not an exact unit vector enters as ``c / |c|``
(``Tokens(normalize=True)``), so the run starts from the instance's tokens exactly.
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from theorems.system import AttentionSystem

from .problem import Field, Tokens

MAX_STATES = 96
"""Largest ``N d`` enclosed (N = 8, d = 8 takes about 30 s to t = 10 on 2 cores)."""


def exact_data(system: AttentionSystem) -> tuple[Fraction, list[tuple[tuple[Fraction, ...], ...]]] | str:
    """``(beta, [P^h])`` as exact rationals, or the reason the run cannot take them."""
    from theorems.matrices import ConstantMatrix
    from theorems.predicates._rational import rational_matrix

    if not all(isinstance(h.P, ConstantMatrix) for h in system.heads):
        return "P^h is not constant (the enclosure takes constant rational P^h)"
    P = [rational_matrix(h.P) for h in system.heads]
    beta = system.beta
    if beta.has(sympy.Float):  # float data: the binary rational it holds
        beta = sympy.Rational(beta)
    if any(m is None for m in P) or not beta.is_Rational:
        return "irrational P^h or beta (the enclosure takes rational data)"
    return Fraction(int(beta.p), int(beta.q)), [tuple(tuple(r) for r in m) for m in P]


def token_directions(system: AttentionSystem) -> list[list[Fraction]] | None:
    """Rational directions of the tokens (the run normalises them exactly): exact rational data as
    they are, float data as the binary rationals they hold, an irrational exact token as a rational
    direction it is a positive multiple of; None when some token has none."""
    if system.tokens_exact is None:
        return [[Fraction(float(v)) for v in row] for row in system.tokens]
    from theorems.predicates._rational import rational_direction

    out = []
    for i in range(system.N):
        q = rational_direction(system.tokens_exact.row(i))
        if q is None:
            return None
        out.append(list(q))
    return out


def validated_problem(system: AttentionSystem, mask: str, tokens: list[list[Fraction]],
                      max_states: int = MAX_STATES) -> tuple[Field, Tokens] | str:
    """``(Field, Tokens)`` of the validated run of ``system`` under ``mask`` from the rational
    directions ``tokens``, or the reason there is none (size, non-constant or irrational data)."""
    if system.N * system.d > max_states:
        return f"N d = {system.N * system.d} > {max_states}: not enclosed"
    data = exact_data(system)
    if isinstance(data, str):
        return data
    beta, P = data
    field = Field(beta, tuple(P), None, mask)
    unit = all(sum(v * v for v in row) == 1 for row in tokens)
    return field, Tokens(tuple(tuple(r) for r in tokens), Fraction(0), normalize=not unit)


__all__ = ["MAX_STATES", "exact_data", "token_directions", "validated_problem"]
