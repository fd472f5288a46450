"""The LDL^T factors of a rational Gram matrix, as a *witness* for the Coq kernel.

``Q = L D L^T`` with ``L`` unit lower triangular and ``D`` diagonal, so ``m^T Q m = sum_k D_k (sum_j L_jk m_j)^2``.
Nothing here is trusted: the exported file states the polynomial identity with these factors (checked by
``field``) and ``0 <= D_k`` (checked by ``lra``), so a wrong factor, a negative pivot or a non-symmetric
matrix makes ``coqc`` reject the file.  When the elimination cannot continue (a zero pivot whose column is
not zero: the matrix is indefinite), :func:`ldl` says so and the exporter writes the raw quadratic form,
which the positivity tactic cannot prove, so the file is rejected as it must be.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final


@final
@dataclass(frozen=True)
class LDL:
    """``columns[k]``: the entries ``L_jk`` for ``j >= k`` (``L_kk = 1``); ``pivots[k] = D_k``.

    ``ok`` is False when the factorisation does not exist (non-symmetric, or a zero pivot with a nonzero
    column); ``reason`` says why.  A negative pivot is *not* a failure here: it is written as it is."""

    columns: tuple[tuple[Fraction, ...], ...]
    pivots: tuple[Fraction, ...]
    ok: bool
    reason: str


def ldl(matrix: Sequence[Sequence[Fraction]]) -> LDL:
    n = len(matrix)
    a = [[Fraction(x) for x in row] for row in matrix]
    if any(len(row) != n for row in a):
        return LDL((), (), False, "not square")
    for i in range(n):
        for j in range(i + 1, n):
            if a[i][j] != a[j][i]:
                return LDL((), (), False, f"not symmetric at ({i},{j})")
    columns: list[tuple[Fraction, ...]] = []
    pivots: list[Fraction] = []
    for k in range(n):
        d = a[k][k]
        if d == 0:
            if any(a[i][k] for i in range(k + 1, n)):
                return LDL((), (), False, f"zero pivot {k} with a nonzero column")
            columns.append((Fraction(1),) + (Fraction(0),) * (n - k - 1))
            pivots.append(Fraction(0))
            continue
        col = (Fraction(1),) + tuple(a[i][k] / d for i in range(k + 1, n))
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i][j] -= col[i - k] * d * col[j - k]
        columns.append(col)
        pivots.append(d)
    return LDL(tuple(columns), tuple(pivots), True, "factorised")
