"""Exact PSD decision of a *singular* rational Gram block: its exact kernel plus a congruence witness.

A Gram block restricted by known zeros (:mod:`verify._sos.facial_zeros`) is singular by
construction, so neither witness of :mod:`verify._sos.psd_congruence` applies, and the reference
elimination costs about a minute at 330 rows.  This witness uses nothing from the search:

1. ``E``: a basis of the exact kernel of ``Q`` (python-flint ``fmpz_mat.nullspace`` of the integer
   matrix ``N = d Q``), brought to reduced row echelon form, so that its columns at the pivot set
   ``P`` form the identity; ``N E^T = 0`` is re-checked exactly.
2. ``Q_F``: the principal submatrix of ``Q`` on the rows ``F`` outside ``P``, decided positive
   definite by the congruence witness.

**Why this decides.**  ``T = [e_j (j in F) | E^T]`` is nonsingular (after permuting the rows of
``P`` last it is unit upper triangular), so every ``v`` is ``v = sum_j u_j e_j + E^T w`` and, as
``Q E^T = 0``, ``v^T Q v = u^T Q_F u``.  Hence ``Q`` is PSD iff ``Q_F`` is, and ``Q_F`` positive
definite proves it (rank ``|F|``).  When a step does not apply the caller falls back to the
reference elimination; this function never answers "not PSD".  It imports nothing from the
rest of the re-check: the congruence witness is passed in.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence


def kernel_witness(matrix: Sequence[Sequence[Fraction]], definite: Callable) -> str | None:
    """The reason why the symmetric rational ``matrix`` (singular) is PSD, or None (undecided).
    ``definite(sub)``: a decider that returns an object with ``ok`` and ``reason`` when it proves
    ``sub`` positive definite, else None (:func:`verify._sos.psd_congruence.congruence_definite`)."""
    import flint

    n = len(matrix)
    if n == 0:
        return None
    entries = []
    for row in matrix:
        for x in row:
            q = x if isinstance(x, Fraction) else Fraction(x)
            entries.append(flint.fmpq(q.numerator, q.denominator))
    N, _ = flint.fmpq_mat(n, n, entries).numer_denom()
    kernel, nullity = N.nullspace()
    nullity = int(nullity)
    if nullity == 0 or nullity >= n:
        return None
    basis = flint.fmpq_mat(nullity, n, [kernel[i, k] for k in range(nullity) for i in range(n)])
    echelon, rank = basis.rref()
    if int(rank) != nullity:
        return None
    pivots, col = [], 0
    for r in range(nullity):
        while echelon[r, col] == 0:
            col += 1
        pivots.append(col)
        col += 1
    for r, p in enumerate(pivots):  # the exact shape check: identity on the pivot columns
        if any(echelon[k, p] != (1 if k == r else 0) for k in range(nullity)):
            return None
    if any(x != 0 for x in (flint.fmpq_mat(N) * echelon.transpose()).entries()):
        return None
    free = [j for j in range(n) if j not in set(pivots)]
    sub = [[matrix[i][j] for j in free] for i in free]
    witness = definite(sub)
    if witness is None or not witness.ok:
        return None
    return (f"PSD of rank {len(free)}: exact kernel of dimension {nullity} (Q E^T = 0, E in echelon form) "
            f"and the complementary principal submatrix {witness.reason}")


__all__ = ["kernel_witness"]
