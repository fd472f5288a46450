"""Exact reduction of one real head's dynamics to ``V = span(x_i(0)) + range(U^h)``.

Column convention (docs/model.md §1): ``U = O^T V^T`` (``D x D``, rank ``<= d_head``) for the
row-vector factors ``V`` (``D x d_head``) and ``O`` (``d_head x D``) of :mod:`llm_checks.head_factors`.

**Invariance (exact).**  The field of eq. 5 is ``F_i = U s_i - x_i <x_i, U s_i>`` with
``s_i = sum_j a_ij x_j``.  If every ``x_j`` lies in ``V`` then ``U s_i`` lies in ``range(U)``, a
subspace of ``V``, and ``x_i`` lies in ``V``, so ``F_i`` lies in ``V``: the field maps ``V^N`` into
itself, and by uniqueness of solutions the trajectory from ``x_i(0) in V`` stays in ``V`` for all
``t``.  This holds for every ``P``, ``beta`` and mask.  ``range(U)`` is contained in the span of
the columns of ``O^T``, so ``V`` is spanned by the tokens and those columns.

**Basis (exact).**  Every float64 entry is a binary rational; each generator column (a token, a
column of ``O^T``) is multiplied by a power of two to integers (a positive multiple spans the same
line).  Fraction-free row reduction (FLINT ``fmpz_mat.rref``) picks a maximal independent set of
generators: the basis ``B`` (``D x m``, integers, tokens first).  Because every ``U`` column lies
in ``span(B)``, ``U B = B U_red`` has exactly one solution, ``U_red = (B^T B)^{-1} B^T U B``,
computed over ``Q`` (FLINT ``fmpq_mat``); no Gram matrix enters the dynamics used later (the
certificate of :mod:`.contraction` uses only ``U_red`` and the tokens' coordinates), and ``U`` is
computed from the integer matrices ``2^sO O`` and ``2^sV V`` and divided by ``2^(sO + sV)`` exactly.  :func:`reduce_head` with ``check=True`` re-multiplies ``B U_red``
and compares it with ``U B`` exactly.  Finally each basis column is divided by a power of two
(``B -> B D^{-1}``, ``U_red -> D U_red D^{-1}``, coordinates ``-> D c``, all exact) so that the
float proposals of :mod:`.contraction` see a balanced matrix.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import final

import flint
import numpy as np

from theorems.errors import InvalidInput


def integer_column(values: np.ndarray, where: str) -> list[int]:
    """The integers ``2^s * values`` for the least ``s >= 0`` making every entry an integer
    (``values``: finite float64, read as the binary rationals they hold)."""
    v = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(v)):
        raise InvalidInput(where, "finite numbers", "a NaN or infinity")
    ratios = [Fraction(float(x)) for x in v]
    s = max((r.denominator.bit_length() - 1 for r in ratios), default=0)
    return [int(r * (1 << s)) for r in ratios]


def integer_matrix(values: np.ndarray, where: str) -> tuple[flint.fmpz_mat, int]:
    """``(M, s)`` with ``M = 2^s * values`` an integer matrix (one power of two for all entries)."""
    v = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(v)):
        raise InvalidInput(where, "finite numbers", "a NaN or infinity")
    nz = [Fraction(float(x)) for x in v.ravel() if x != 0]
    s = max((r.denominator.bit_length() - 1 for r in nz), default=0)
    rows, cols = v.shape
    return flint.fmpz_mat(rows, cols, [int(Fraction(float(x)) * (1 << s)) for x in v.ravel()]), s


@final
@dataclass(frozen=True)
class ReducedHead:
    """One head restricted to ``V``: ``U_red`` (``m x m``, exact) with ``U B = B U_red``, the
    tokens' coordinates ``coords`` (``m x N``, exact, ``x_i(0)`` a positive multiple of ``B c_i``),
    which generators form ``B`` (``("token", i)`` or ``("O", r)``), and ``D``."""

    U_red: flint.fmpq_mat
    coords: flint.fmpq_mat
    generators: tuple[tuple[str, int], ...]
    D: int
    basis: flint.fmpq_mat | None = None
    """The balanced basis ``B`` (``D x m``, exact): ``x_i(0)`` is a positive multiple of ``B c_i``."""

    @property
    def m(self) -> int:
        return self.U_red.nrows()

    @property
    def N(self) -> int:
        return self.coords.ncols()


def _pivots(R: flint.fmpz_mat, rank: int) -> list[int]:
    piv = []
    for r in range(rank):
        for c in range(R.ncols()):
            if R[r, c] != 0:
                piv.append(c)
                break
    return piv


def reduce_head(V: np.ndarray, O: np.ndarray, tokens: np.ndarray, *, check: bool = False) -> ReducedHead:
    """:class:`ReducedHead` of the head ``U = O^T V^T`` (column convention) for ``tokens`` (``N x D``,
    any positive lengths).  ``check``: verify ``B U_red = U B`` exactly (costly for large ``m``)."""
    V, O, X = (np.asarray(a, dtype=np.float64) for a in (V, O, tokens))
    D = X.shape[1]
    if V.shape[0] != D or O.shape != (V.shape[1], D):
        raise InvalidInput("head", f"V of shape (D, d_head) and O of shape (d_head, D) with D = {D}",
                           f"V {V.shape}, O {O.shape}")
    cols = [integer_column(t, f"tokens[{i}]") for i, t in enumerate(X)]
    cols += [integer_column(O[r], f"O[{r}]") for r in range(O.shape[0])]
    names = [("token", i) for i in range(len(X))] + [("O", r) for r in range(O.shape[0])]
    if any(not any(c) for c in cols[:len(X)]):
        raise InvalidInput("tokens", "nonzero vectors", "a zero token")
    gen = flint.fmpz_mat(D, len(cols), [cols[c][r] for r in range(D) for c in range(len(cols))])
    R, _, rank = gen.rref()
    piv = _pivots(R, rank)
    B = flint.fmpz_mat(D, len(piv), [cols[c][r] for r in range(D) for c in piv])
    Vi, sV = integer_matrix(V, "V")
    Oi, sO = integer_matrix(O, "O")
    UB = Oi.transpose() * (Vi.transpose() * B)
    Bt = B.transpose()
    G = flint.fmpq_mat(Bt * B)
    U_red = G.solve(flint.fmpq_mat(Bt * UB)) * flint.fmpq(1, 2 ** (sV + sO))  # Oi^T Vi^T = 2^(sV+sO) U
    coords = flint.fmpq_mat(len(piv), len(X))
    pos = {c: k for k, c in enumerate(piv)}
    rhs_cols = [i for i in range(len(X)) if i not in pos]
    for i in range(len(X)):
        if i in pos:
            coords[pos[i], i] = 1
    if rhs_cols:
        T = flint.fmpz_mat(D, len(rhs_cols), [cols[i][r] for r in range(D) for i in rhs_cols])
        sol = G.solve(flint.fmpq_mat(Bt * T))
        if flint.fmpq_mat(B) * sol != flint.fmpq_mat(T):
            raise InvalidInput("tokens", "tokens in the span of the basis", "a token outside it (internal error)")
        for k, i in enumerate(rhs_cols):
            for r in range(len(piv)):
                coords[r, i] = sol[r, k]
    if check and flint.fmpq_mat(B) * U_red * (2 ** (sV + sO)) != flint.fmpq_mat(UB):
        raise InvalidInput("head", "U B = B U_red exactly", "a mismatch (range(U) outside span(B))")
    # balance: basis column j divided by 2^e_j (largest entry in [1/2, 1)); U_red -> D U_red D^-1 exactly
    e = [max(abs(int(cols[c][r])) for r in range(D)).bit_length() for c in piv]
    n = len(piv)
    U_bal = flint.fmpq_mat(n, n, [U_red[i, j] * flint.fmpq(2) ** (e[i] - e[j]) for i in range(n) for j in range(n)])
    c_bal = flint.fmpq_mat(n, len(X), [coords[i, j] * flint.fmpq(2) ** e[i] for i in range(n) for j in range(len(X))])
    B_bal = flint.fmpq_mat(D, n, [flint.fmpq(int(B[r, j]), 2 ** e[j]) for r in range(D) for j in range(n)])
    return ReducedHead(U_bal, c_bal, tuple(names[c] for c in piv), D, B_bal)


__all__ = ["ReducedHead", "integer_column", "integer_matrix", "reduce_head"]
