"""Exact positive-semidefiniteness of a rational symmetric matrix by LDL^T elimination.

Symmetric Gaussian elimination with diagonal pivots decides PSD exactly: at step ``k`` the pivot
``d_k`` (a Schur-complement diagonal entry) must be ``>= 0``; when it is zero the rest of its
column must be zero too (a PSD matrix with a zero diagonal entry has a zero row), otherwise the
matrix is indefinite.  The arithmetic is exact and uses only the standard library, so the answer
is a proof, not a floating-point estimate.  Used by :meth:`verify._sos.certificate.Certificate.recheck`.

The elimination runs fraction-free (Bareiss) on the integer matrix ``N = L M`` (``L`` the least
common denominator, ``L > 0`` keeps every sign) over Python integers, upper triangle only.  After
eliminating the positive pivots so far, the working entry ``(i, j)`` equals ``p * L * S_ij``
where ``S`` is the Schur complement of ``M`` and ``p`` the last positive working pivot (the
leading principal minor of ``N`` on the eliminated rows, ``> 0``); every Bareiss division is exact
(Sylvester's identity).  A zero pivot with a zero row is skipped (its row takes no part in the
rest), exactly as in the rational elimination.  So ``d_k = W_kk / (p L)``: the pivots, the verdict
and the reason are those of the plain :class:`fractions.Fraction` elimination, without a gcd per
operation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final


@final
@dataclass(frozen=True)
class PSDCheck:
    """Outcome of :func:`check_psd`: ``ok``, and when not, the step and a one-line reason.

    ``pivots`` are the LDL^T pivots ``d_k`` found (all ``>= 0`` when ``ok``); ``rank`` counts the
    positive ones.
    """

    ok: bool
    reason: str
    pivots: tuple[Fraction, ...]
    rank: int


def is_symmetric(matrix: Sequence[Sequence[Fraction]]) -> tuple[bool, str]:
    size = len(matrix)
    for i, row in enumerate(matrix):
        if len(row) != size:
            return False, f"row {i} has {len(row)} entries, expected {size}"
    for i in range(size):
        for j in range(i + 1, size):
            if matrix[i][j] != matrix[j][i]:
                return False, f"entry ({i},{j}) = {matrix[i][j]} differs from ({j},{i}) = {matrix[j][i]}"
    return True, "symmetric"


def _integer_upper(matrix: Sequence[Sequence[Fraction]]) -> tuple[list[list[int]], int]:
    """``(rows, L)``: ``rows[i][j - i] = L * matrix[i][j]`` for ``j >= i``, ``L`` the lcm of the denominators."""
    upper = [[x if isinstance(x, Fraction) else Fraction(x) for x in row[i:]] for i, row in enumerate(matrix)]
    scale = math.lcm(*(x.denominator for row in upper for x in row)) if upper else 1
    return [[x.numerator * (scale // x.denominator) for x in row] for row in upper], scale


def check_psd(matrix: Sequence[Sequence[Fraction]]) -> PSDCheck:
    """Decide exactly whether the symmetric rational ``matrix`` is positive semidefinite."""
    ok, why = is_symmetric(matrix)
    if not ok:
        return PSDCheck(False, f"not symmetric: {why}", (), 0)
    size = len(matrix)
    work, scale = _integer_upper(matrix)
    previous = 1  # the last positive working pivot: the eliminated leading minor of L * M
    pivots: list[Fraction] = []
    for k in range(size):
        row_k = work[k]
        pivot = row_k[0]
        if pivot < 0:
            d = Fraction(pivot, previous * scale)
            return PSDCheck(False, f"negative pivot d_{k} = {d} in LDL^T elimination", tuple(pivots + [d]), 0)
        if pivot == 0:
            for i in range(k + 1, size):
                if row_k[i - k]:
                    entry = Fraction(row_k[i - k], previous * scale)
                    return PSDCheck(False, f"zero pivot d_{k} with nonzero entry ({i},{k}) = {entry} "
                                           f"in its Schur complement", tuple(pivots + [Fraction(0)]), 0)
            pivots.append(Fraction(0))
            continue
        pivots.append(Fraction(pivot, previous * scale))
        for i in range(k + 1, size):
            factor = row_k[i - k]
            if factor:
                work[i] = [(pivot * a - factor * b) // previous for a, b in zip(work[i], row_k[i - k:])]
            elif pivot != previous:
                work[i] = [pivot * a // previous for a in work[i]]
        previous = pivot
    rank = sum(1 for p in pivots if p > 0)
    return PSDCheck(True, f"PSD (exact LDL^T, rank {rank} of {size})", tuple(pivots), rank)
