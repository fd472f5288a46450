"""The exact input of a fate certificate: one constant instance of eq. 5 and its initial tokens.

A :class:`FateProblem` holds ``beta``, the mask and every head's ``(P^h, U^h)`` as exact rationals,
and the tokens as exact rational vectors (``normalize=True``: token ``i`` is ``c_i / |c_i|``, which
enters the enclosure as an arb ball).  :func:`problem_from_system` reads an
:class:`~theorems.system.AttentionSystem` (a JSON instance) into one; a float entry stands for the
binary rational it holds (docs/model.md §8).  Anything that is not a constant rational instance is
refused with :class:`~theorems.errors.InvalidInput` naming the field.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import final

import numpy as np

from theorems.errors import InvalidInput
from verify.validated import Field, Tokens

Matrix = tuple[tuple[Fraction, ...], ...]
LIMITS = {"N": 16, "d": 6, "heads": 4}
"""Largest instance :func:`~verify._fate.driver.certify_fate` accepts (the enclosure is O((N d)^3) per step)."""


@final
@dataclass(frozen=True)
class FateProblem:
    beta: Fraction
    mask: str
    heads: tuple[tuple[Matrix, Matrix], ...]
    tokens: Matrix
    normalize: bool
    name: str = "instance"

    def __post_init__(self) -> None:
        if not isinstance(self.beta, Fraction) or self.beta <= 0:
            raise InvalidInput("beta", "a rational > 0", self.beta)
        if self.mask not in ("full", "causal"):
            raise InvalidInput("mask", "'full' or 'causal'", self.mask)
        if not self.heads or len(self.heads) > LIMITS["heads"]:
            raise InvalidInput("heads", f"1 to {LIMITS['heads']} heads", len(self.heads))
        d = len(self.tokens[0]) if self.tokens else 0
        if not 2 <= d <= LIMITS["d"] or not 1 <= len(self.tokens) <= LIMITS["N"]:
            raise InvalidInput("tokens", f"N in 1..{LIMITS['N']} vectors of dimension d in 2..{LIMITS['d']}",
                               f"N = {len(self.tokens)}, d = {d}")
        for h, (P, U) in enumerate(self.heads):
            for name, M in (("P", P), ("U", U)):
                if len(M) != d or any(len(row) != d for row in M):
                    raise InvalidInput(f"heads[{h}].{name}", f"a {d}x{d} matrix", f"{len(M)} rows")
                if not all(isinstance(v, Fraction) for row in M for v in row):
                    raise InvalidInput(f"heads[{h}].{name}", "exact rationals (Fraction)", "another type")
        for i, row in enumerate(self.tokens):
            if len(row) != d or not all(isinstance(v, Fraction) for v in row):
                raise InvalidInput(f"tokens[{i}]", f"{d} exact rationals", row)
            norm2 = sum(v * v for v in row)
            if norm2 == 0:
                raise InvalidInput(f"tokens[{i}]", "a nonzero vector", row)
            if not self.normalize and norm2 != 1:
                raise InvalidInput(f"tokens[{i}]", "an exact unit vector (or normalize=True)", f"|x|^2 = {norm2}")

    @property
    def N(self) -> int:
        return len(self.tokens)

    @property
    def d(self) -> int:
        return len(self.tokens[0])

    @property
    def field(self) -> Field:
        return Field(self.beta, tuple(P for P, _ in self.heads), tuple(U for _, U in self.heads), self.mask)

    @property
    def initial(self) -> Tokens:
        return Tokens(self.tokens, Fraction(0), normalize=self.normalize)

    def identity_values(self) -> bool:
        """Every ``U^h = I`` exactly (the setting of Theorems 3.2 and 4.2)."""
        d = self.d
        return all(U[a][b] == (a == b) for _, U in self.heads for a in range(d) for b in range(d))

    def U_sum(self) -> Matrix:
        """``sum_h U^h``: at a consensus configuration every head's weights are uniform, so the
        field there is ``Proj_x(sum_h U^h x)`` (the consensus points are its eigenvectors)."""
        d = self.d
        return tuple(tuple(sum((U[a][b] for _, U in self.heads), Fraction(0)) for b in range(d)) for a in range(d))

    def float_tokens(self) -> np.ndarray:
        X = np.array([[float(v) for v in row] for row in self.tokens])
        return X / np.linalg.norm(X, axis=1, keepdims=True)

    def float_heads(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return [(np.array(P, dtype=float), np.array(U, dtype=float)) for P, U in self.heads]


def _fraction(value, where: str) -> Fraction:
    import sympy

    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise InvalidInput(where, "a finite number", value)
        return Fraction(float(value))
    if isinstance(value, sympy.Rational):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, sympy.Float):
        return Fraction(float(value))
    raise InvalidInput(where, "a rational number (constant instance)", str(value))


def _exact_row(row, i: int) -> tuple[Fraction, ...]:
    """Rationals, or a rational direction ``c`` of a row ``c / |c|`` (``"normalize_tokens": true``): the
    ratios to the first nonzero entry are rational exactly when the direction is (SymPy decides, exactly)."""
    import sympy

    if all(isinstance(v, (sympy.Rational, int)) for v in row):
        return tuple(_fraction(v, f"tokens[{i}][{j}]") for j, v in enumerate(row))
    k = next((j for j, v in enumerate(row) if v != 0), None)
    if k is not None and (row[k] > 0) in (True, False):
        ratios = [sympy.simplify(v / row[k]) for v in row]
        if all(isinstance(r, sympy.Rational) for r in ratios):
            sign = 1 if bool(row[k] > 0) else -1
            return tuple(sign * _fraction(r, f"tokens[{i}][{j}]") for j, r in enumerate(ratios))
    return tuple(_fraction(v, f"tokens[{i}][{j}]") for j, v in enumerate(row))


def problem_from_system(system) -> FateProblem:
    """The exact constant data of an :class:`~theorems.system.AttentionSystem`, or ``InvalidInput``."""
    from verify.equilibrium.search import exact_data

    data = exact_data(system)
    if isinstance(data, str):
        raise InvalidInput("instance", "constant rational P^h, U^h and beta (a fate is certified for constant instances)",
                           data)
    beta, heads = data
    if system.tokens_exact is not None:
        M = system.tokens_exact
        tokens = tuple(_exact_row([M[i, j] for j in range(M.cols)], i) for i in range(M.rows))
    else:
        tokens = tuple(tuple(_fraction(v, f"tokens[{i}][{j}]") for j, v in enumerate(row))
                       for i, row in enumerate(system.tokens))
    unit = all(sum(v * v for v in row) == 1 for row in tokens)
    return FateProblem(beta, system.mask, heads, tokens, not unit, system.name)


__all__ = ["FateProblem", "LIMITS", "problem_from_system"]
