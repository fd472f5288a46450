"""Exact positive (semi)definiteness of a rational symmetric matrix with python-flint.

The search side (rounding a float Gram matrix, :mod:`verify._sos.rounding`) and the predicates
(norm bounds, ``U_positive_definite``) decide PSD here; the certificate re-check keeps its own
standard-library LDL^T (:mod:`verify._sos.exact_psd`), so what produced a certificate and what
re-checks it are different code.

Method: a symmetric ``M`` has real eigenvalues, the roots of ``chi(t) = det(t I - M) = sum c_k t^k``.
All of them are ``>= 0`` iff the coefficients alternate weakly, ``(-1)^(n-k) c_k >= 0`` for every
``k`` (Descartes: then ``(-1)^n chi(-s)`` has nonnegative coefficients and no positive root ``s``;
conversely ``chi(t) = prod (t - lambda_i)`` with every ``lambda_i >= 0`` alternates).  The
multiplicity of the root 0 is the index of the lowest nonzero coefficient, so
``rank = n - that index`` and ``M`` is definite iff ``c_0 != 0``.  ``chi`` is computed exactly
by flint on the integer matrix ``D M`` (``D`` the common denominator, ``D > 0`` keeps every sign).
Not guaranteed: nothing about matrices that are not exactly symmetric (they are refused).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final

import flint

from .errors import InvalidInput


@final
@dataclass(frozen=True)
class PSDDecision:
    """``psd``: all eigenvalues ``>= 0``; ``definite``: all ``> 0``; ``rank``; a one-line reason."""

    psd: bool
    definite: bool
    rank: int
    reason: str


def to_fmpq_mat(matrix: Sequence[Sequence[Fraction | int]]) -> flint.fmpq_mat:
    """Exact flint copy of a rectangular matrix of rationals."""
    rows = len(matrix)
    cols = len(matrix[0]) if rows else 0
    if any(len(row) != cols for row in matrix):
        raise InvalidInput("matrix", f"rows of equal length {cols}", [len(row) for row in matrix])
    entries = []
    for row in matrix:
        for v in row:
            q = v if isinstance(v, Fraction) else Fraction(v)
            entries.append(flint.fmpq(q.numerator, q.denominator))
    return flint.fmpq_mat(rows, cols, entries)


def psd_decision(matrix: Sequence[Sequence[Fraction | int]] | flint.fmpq_mat) -> PSDDecision:
    """Decide exactly whether the symmetric rational ``matrix`` is PSD (and definite); see the module doc."""
    m = matrix if isinstance(matrix, flint.fmpq_mat) else to_fmpq_mat(matrix)
    n = m.nrows()
    if m.ncols() != n:
        raise InvalidInput("matrix", "a square matrix", f"{n} x {m.ncols()}")
    if n == 0:
        return PSDDecision(True, True, 0, "empty matrix")
    if m != m.transpose():
        i, j = next((i, j) for i in range(n) for j in range(i + 1, n) if m[i, j] != m[j, i])
        return PSDDecision(False, False, 0, f"not symmetric: entry ({i},{j}) = {m[i, j]} differs from ({j},{i})")
    integer, _ = m.numer_denom()
    coeffs = integer.charpoly().coeffs()  # c_0 .. c_n, c_n = 1
    for k, c in enumerate(coeffs):
        if c != 0 and (c > 0) != ((n - k) % 2 == 0):
            return PSDDecision(False, False, 0, f"not PSD: the characteristic polynomial does not alternate in sign "
                                                f"(coefficient of t^{k}), so an eigenvalue is negative (exact, flint)")
    zero_roots = next(k for k, c in enumerate(coeffs) if c != 0)
    rank = n - zero_roots
    return PSDDecision(True, rank == n, rank, f"PSD (exact characteristic polynomial, rank {rank} of {n})")


def is_positive_definite(matrix: Sequence[Sequence[Fraction | int]] | flint.fmpq_mat) -> bool:
    """Exactly: the symmetric rational ``matrix`` is positive definite."""
    return psd_decision(matrix).definite


__all__ = ["PSDDecision", "is_positive_definite", "psd_decision", "to_fmpq_mat"]
