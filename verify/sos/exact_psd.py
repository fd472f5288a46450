"""Exact positive-semidefiniteness of a rational symmetric matrix by LDL^T elimination.

Symmetric Gaussian elimination with diagonal pivots decides PSD exactly: at step ``k`` the pivot
``d_k`` (a Schur-complement diagonal entry) must be ``>= 0``; when it is zero the rest of its
column must be zero too (a PSD matrix with a zero diagonal entry has a zero row), otherwise the
matrix is indefinite.  All arithmetic is :class:`fractions.Fraction`, so the answer is a proof,
not a floating-point estimate.  Used by :meth:`verify.sos.certificate.Certificate.recheck`.
"""
from __future__ import annotations

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


def check_psd(matrix: Sequence[Sequence[Fraction]]) -> PSDCheck:
    """Decide exactly whether the symmetric rational ``matrix`` is positive semidefinite."""
    ok, why = is_symmetric(matrix)
    if not ok:
        return PSDCheck(False, f"not symmetric: {why}", (), 0)
    size = len(matrix)
    work = [[Fraction(x) for x in row] for row in matrix]
    pivots: list[Fraction] = []
    for k in range(size):
        d = work[k][k]
        if d < 0:
            return PSDCheck(False, f"negative pivot d_{k} = {d} in LDL^T elimination", tuple(pivots + [d]), 0)
        if d == 0:
            for i in range(k + 1, size):
                if work[i][k] != 0:
                    return PSDCheck(False, f"zero pivot d_{k} with nonzero entry ({i},{k}) = {work[i][k]} "
                                           f"in its Schur complement", tuple(pivots + [d]), 0)
            pivots.append(d)
            continue
        pivots.append(d)
        row_k = work[k]
        for i in range(k + 1, size):
            factor = work[i][k]
            if not factor:
                continue
            factor = factor / d
            row_i = work[i]
            for j in range(k + 1, size):
                if row_k[j]:
                    row_i[j] -= factor * row_k[j]
    rank = sum(1 for p in pivots if p > 0)
    return PSDCheck(True, f"PSD (exact LDL^T, rank {rank} of {size})", tuple(pivots), rank)
