"""Exact PSD decisions for large Gram blocks by a rounded LDL^T (a congruence), on flint integer matrices.

The reference :func:`verify._sos.exact_psd.check_psd` eliminates exactly; its working entries are
minors of up to ``n`` times the bit length of the input, so its cost grows like ``n^4`` (a 330 x 330
block: about a minute).  A positive *definite* block has a much cheaper exact witness:

**Definite.**  Let ``Q = N / d`` (``N`` an integer matrix, ``d > 0``) and ``P`` an integer lower
triangular matrix with positive diagonal, hence invertible.  If ``S = P N P^T``, computed exactly,
is strictly diagonally dominant with a positive diagonal, then every eigenvalue of ``S`` lies in a
Gershgorin disc ``[S_ii - R_i, S_ii + R_i]`` with ``S_ii - R_i > 0``: ``S`` is positive definite,
so is its congruent ``N = P^-1 S P^-T``, and so is ``Q``.  ``P`` is a rounded inverse Cholesky
factor, ``P ~ 2^s D^-1/2 L^-1`` for ``Q ~ L D L^T`` (a floating-point LDL^T: the *hint*), which
makes ``S`` close to ``2^2s I``.  Nothing about how ``P`` was found matters: only its shape (lower
triangular, positive integer diagonal) and the exact product are checked.

**Not PSD.**  An integer vector ``v`` with ``v^T N v < 0`` exactly (``v`` a rounded eigenvector of
the most negative float eigenvalue) proves that ``Q`` has a negative eigenvalue.

Either witness decides the block exactly; a singular PSD block is then tried with its exact kernel
(:mod:`verify._sos.psd_kernel`), and when nothing applies (a block too ill-conditioned for the
float hint) :func:`decide_psd` runs the reference elimination.  Blocks
below :data:`CONGRUENCE_FROM` always go to the reference (so small certificates, including every
golden one, are re-checked exactly as before).  This module is part of the re-check's trust base:
exact integer arithmetic in python-flint (``fmpz_mat`` products), the standard library, and NumPy
only to propose ``P`` and ``v`` (a wrong proposal makes the witness fail, never succeed).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final

from .exact_psd import check_psd, is_symmetric

CONGRUENCE_FROM = 32
"""Blocks of at least this size try the congruence witnesses first; smaller ones use only the
reference elimination (fast there: a 32 x 32 block takes milliseconds)."""

HINT_BITS = 50
"""Bits of the largest entry of ``P``: the rounding of ``P`` perturbs ``S / 2^2s`` by about
``n 2^-HINT_BITS cond(Q)``, far below the diagonal dominance margin of any block a margin solve
produces."""


@final
@dataclass(frozen=True)
class PSDWitness:
    """The outcome of one exact decision: ``ok`` (PSD), the ``method`` that decided it
    (``"congruence"``, ``"negative vector"`` or ``"LDL^T"``) and a one-line ``reason``."""

    ok: bool
    method: str
    reason: str


def _integer_matrix(matrix: Sequence[Sequence[Fraction]]):
    import flint

    n = len(matrix)
    entries = []
    for row in matrix:
        for x in row:
            q = x if isinstance(x, Fraction) else Fraction(x)
            entries.append(flint.fmpq(q.numerator, q.denominator))
    N, d = flint.fmpq_mat(n, n, entries).numer_denom()
    return N, int(d)


def congruence_definite(matrix: Sequence[Sequence[Fraction]]) -> PSDWitness | None:
    """A proof that the rational ``matrix`` is symmetric positive definite, or None (undecided)."""
    return _definite(matrix, None) if is_symmetric(matrix)[0] else None


def negative_direction(matrix: Sequence[Sequence[Fraction]]) -> PSDWitness | None:
    """A proof that the symmetric rational ``matrix`` is not PSD (an integer ``v`` with
    ``v^T Q v < 0`` exactly), or None."""
    return _negative(matrix, None) if is_symmetric(matrix)[0] else None


def _definite(matrix: Sequence[Sequence[Fraction]], floats) -> PSDWitness | None:
    """:func:`congruence_definite` on a matrix known to be symmetric; ``floats``: its float copy
    if the caller has one (a hint only).  Strict diagonal dominance of ``S`` alone already makes
    ``S``, hence ``P``, nonsingular; the shape check on ``P`` is a second guard."""
    import flint
    import numpy as np

    n = len(matrix)
    Qf = np.array([[float(x) for x in row] for row in matrix]) if floats is None else np.asarray(floats, float)
    diag = np.diag(Qf).copy()
    if n == 0 or not np.all(np.isfinite(Qf)) or np.any(diag <= 0):
        return None
    scale = 1.0 / np.sqrt(diag)
    try:
        C = np.linalg.cholesky(Qf * scale[:, None] * scale[None, :])
    except np.linalg.LinAlgError:
        return None
    H = np.linalg.solve(C, np.diag(scale))  # C^-1 D^-1/2, lower triangular
    H = np.tril(H)
    top = float(np.max(np.abs(H)))
    if not math.isfinite(top) or top == 0.0:
        return None
    shift = HINT_BITS - math.frexp(top)[1]
    Pi = np.rint(np.ldexp(H, shift))
    P = flint.fmpz_mat(n, n, [int(v) for v in Pi.ravel()])
    for i in range(n):  # the exact shape check: lower triangular with positive diagonal
        if P[i, i] <= 0:
            return None
    N, d = _integer_matrix(matrix)
    if d <= 0:
        return None
    S = (P * N * P.transpose()).tolist()
    margin = None
    for i, row in enumerate(S):
        off = sum(abs(v) for v in row) - abs(row[i])
        if not row[i] > off:
            return None
        gap = Fraction(int(row[i] - off), int(row[i]))
        margin = gap if margin is None else min(margin, gap)
    return PSDWitness(True, "congruence", f"positive definite: P Q P^T is strictly diagonally dominant "
                                          f"(exact, P lower triangular with {HINT_BITS}-bit entries; "
                                          f"smallest relative dominance gap {float(margin):.3g})")


def _negative(matrix: Sequence[Sequence[Fraction]], floats) -> PSDWitness | None:
    import flint
    import numpy as np

    n = len(matrix)
    Qf = np.array([[float(x) for x in row] for row in matrix]) if floats is None else np.asarray(floats, float)
    if n == 0 or not np.all(np.isfinite(Qf)):
        return None
    values, vectors = np.linalg.eigh(Qf)
    if not values[0] < 0:
        return None
    v = vectors[:, 0]
    shift = HINT_BITS - math.frexp(float(np.max(np.abs(v))))[1]
    w = flint.fmpz_mat(n, 1, [int(x) for x in np.rint(np.ldexp(v, shift))])
    N, d = _integer_matrix(matrix)
    value = (w.transpose() * N * w)[0, 0]
    if d > 0 and value < 0:
        return PSDWitness(False, "negative vector", f"not PSD: v^T Q v = {Fraction(int(value), d)} < 0 for an "
                                                    f"integer vector v (exact)")
    return None


def decide_psd(matrix: Sequence[Sequence[Fraction]]) -> PSDWitness:
    """Decide exactly whether the symmetric rational ``matrix`` is PSD: congruence witnesses for
    blocks of at least :data:`CONGRUENCE_FROM` rows, the reference LDL^T otherwise or when they
    do not apply."""
    ok, why = is_symmetric(matrix)
    if not ok:
        return PSDWitness(False, "LDL^T", f"not symmetric: {why}")
    if len(matrix) >= CONGRUENCE_FROM:
        try:
            import flint  # noqa: F401
            import numpy as np
        except ImportError:  # without them the reference decides, more slowly
            pass
        else:
            from .threads import one_blas_thread  # speed only (shared machines)

            floats = np.array([[float(x) for x in row] for row in matrix])
            with one_blas_thread():
                witness = _definite(matrix, floats) or _negative(matrix, floats)
            if witness is None:
                from .psd_kernel import kernel_witness  # a singular PSD block: exact kernel + congruence

                reason = kernel_witness(matrix, congruence_definite)
                witness = PSDWitness(True, "kernel congruence", reason) if reason is not None else None
            if witness is not None:
                return witness
    check = check_psd(matrix)
    return PSDWitness(check.ok, "LDL^T", check.reason)


__all__ = ["CONGRUENCE_FROM", "HINT_BITS", "PSDWitness", "congruence_definite", "decide_psd", "negative_direction"]
