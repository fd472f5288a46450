"""From floating-point Gram matrices to exact rational ones (Peyrl–Parrilo rounding and projection).

Given a float solution ``z_f`` of ``A z = b, X_b >= 0`` (ideally an interior point, see
:mod:`verify._sos.solve`):

1. round every entry to the nearest multiple of ``1/D`` -> ``z~`` (exact rationals);
2. project ``z~`` exactly onto the affine space ``{A z = b}`` in the Frobenius metric:
   ``z = z~ - W^{-1} A^T (A W^{-1} A^T)^{-1} (A z~ - b)`` restricted to a maximal set of independent
   rows (found by an exact RREF with python-flint).  The identity now holds *exactly*;
3. check every Gram block PSD exactly with python-flint (:func:`theorems.psd_flint.psd_decision`;
   the certificate's re-check then uses the independent standard-library
   :func:`verify._sos.exact_psd.check_psd`).

If the float point had PSD margin ``t`` and the rounding plus projection moves each block by less
than ``t`` (in spectral norm), step 3 succeeds; that is why the margin solve comes first.  Several
denominators ``D`` are tried, smallest first.  Everything here is exact except reading ``z_f``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final

import flint
import numpy as np

from theorems.psd_flint import psd_decision

from .program import GramProgram, LinearSystem

DEFAULT_DENOMINATORS = (2 ** 8, 2 ** 12, 2 ** 16, 2 ** 20, 2 ** 26, 2 ** 32)


@final
@dataclass(frozen=True)
class ExactPoint:
    """An exact solution of ``A z = b`` whose Gram blocks passed the exact PSD check."""

    grams: tuple[tuple[tuple[Fraction, ...], ...], ...]
    params: tuple[Fraction, ...]
    denominator: int


@final
@dataclass(frozen=True)
class RoundingOutcome:
    point: ExactPoint | None
    reason: str
    attempts: int


def _row_components(system: LinearSystem) -> list[list[int]]:
    """Rows linked through a shared column, in increasing order: ``A W^{-1} A^T`` is block diagonal
    over these sets (for one Gram block of weight 1 every set is one row: the matrix is diagonal)."""
    parent = list(range(len(system.rhs)))

    def find(r: int) -> int:
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    for col in system.columns:
        if len(col) > 1:
            root = find(col[0][0])
            for r, _ in col[1:]:
                other = find(r)
                if other != root:
                    parent[other] = root
    groups: dict[int, list[int]] = {}
    for r in range(len(parent)):
        groups.setdefault(find(r), []).append(r)
    return list(groups.values())


def _fmpq(value: Fraction) -> flint.fmpq:
    return flint.fmpq(value.numerator, value.denominator)


@final
class Projector:
    """Exact orthogonal projection onto ``{A z = b}``; the Gram-type matrix ``G = A W^{-1} A^T`` is
    factored once, one independent block of rows at a time (see :func:`_row_components`).

    In each block a maximal set of independent rows (the pivots of an exact RREF of that block of
    ``G``, the same rows an RREF of the whole ``G`` picks) carries the projection; a 1 x 1 block is a
    plain division.  ``pivots`` lists those rows in increasing order.
    """

    def __init__(self, system: LinearSystem) -> None:
        self.system = system
        gram: dict[tuple[int, int], Fraction] = {}
        for col, weight in zip(system.columns, system.weights):
            inv = Fraction(1, weight)
            for r1, v1 in col:
                for r2, v2 in col:
                    gram[(r1, r2)] = gram.get((r1, r2), Fraction(0)) + v1 * v2 * inv
        blocks: list[tuple[tuple[int, ...], Fraction | flint.fmpq_mat]] = []
        for rows in _row_components(system):
            if len(rows) == 1:
                value = gram.get((rows[0], rows[0]))
                if value:
                    blocks.append(((rows[0],), value))
                continue
            dense = flint.fmpq_mat(len(rows), len(rows))
            for a, ra in enumerate(rows):
                for b, rb in enumerate(rows):
                    value = gram.get((ra, rb))
                    if value:
                        dense[a, b] = _fmpq(value)
            reduced, rank = dense.rref()
            local, col = [], 0
            for r in range(rank):
                while reduced[r, col] == 0:
                    col += 1
                local.append(col)
                col += 1
            if not local:
                continue
            sub = flint.fmpq_mat(len(local), len(local))
            for a, la in enumerate(local):
                for b, lb in enumerate(local):
                    sub[a, b] = dense[la, lb]
            blocks.append((tuple(rows[a] for a in local), sub))
        self.blocks = tuple(blocks)
        self.pivots = sorted(r for rows, _ in blocks for r in rows)

    def _multipliers(self, residual: Sequence[Fraction]) -> dict[int, Fraction]:
        """``y`` with ``G_PP y = residual_P`` on the pivot rows ``P``, block by block."""
        y_by_row: dict[int, Fraction] = {}
        for rows, factor in self.blocks:
            if isinstance(factor, Fraction):
                value = residual[rows[0]]
                if value:
                    y_by_row[rows[0]] = value / factor
                continue
            if not any(residual[r] for r in rows):
                continue
            vec = flint.fmpq_mat(len(rows), 1, [_fmpq(residual[r]) for r in rows])
            y = factor.solve(vec)
            for a, r in enumerate(rows):
                q = y[a, 0]
                if q != 0:
                    y_by_row[r] = Fraction(int(q.p), int(q.q))
        return y_by_row

    def project(self, z: Sequence[Fraction]) -> tuple[list[Fraction], str]:
        """Project; returns ``(z_exact, "")`` or ``([], reason)`` when the system is inconsistent."""
        system = self.system
        residual = [-v for v in system.rhs]
        for value, col in zip(z, system.columns):
            if value:
                for r, a in col:
                    residual[r] += a * value
        y_by_row = self._multipliers(residual)
        out = list(z)
        if y_by_row:
            for c, (col, weight) in enumerate(zip(system.columns, system.weights)):
                shift = sum((a * y_by_row[r] for r, a in col if r in y_by_row), Fraction(0))
                if shift:
                    out[c] = out[c] - shift / weight
        check = [-v for v in system.rhs]
        for value, col in zip(out, system.columns):
            if value:
                for r, a in col:
                    check[r] += a * value
        bad = [r for r, v in enumerate(check) if v]
        if bad:
            return [], f"coefficient-matching system is inconsistent ({len(bad)} rows cannot be met exactly)"
        return out, ""


def float_vector(program: GramProgram, grams: Sequence[np.ndarray], params: np.ndarray) -> list[float]:
    values: list[float] = []
    for block, X in zip(program.blocks, grams):
        size = len(block.basis)
        for i in range(size):
            for j in range(i, size):
                values.append(float(X[i, j]))
    values.extend(float(v) for v in params)
    return values


def split(program: GramProgram, z: Sequence[Fraction]) -> tuple[list[list[list[Fraction]]], list[Fraction]]:
    grams, position = [], 0
    for block in program.blocks:
        size = len(block.basis)
        matrix = [[Fraction(0)] * size for _ in range(size)]
        for i in range(size):
            for j in range(i, size):
                matrix[i][j] = matrix[j][i] = z[position]
                position += 1
        grams.append(matrix)
    return grams, list(z[position:])


def rationalize(program: GramProgram, projector: Projector, grams: Sequence[np.ndarray], params: np.ndarray,
                denominators: Sequence[int] = DEFAULT_DENOMINATORS) -> RoundingOutcome:
    """Round, project exactly and check PSD exactly for each denominator until one works."""
    z_float = float_vector(program, grams, params)
    if not all(np.isfinite(z_float)):
        return RoundingOutcome(None, "the float solution contains non-finite values", 0)
    last = "no denominator tried"
    for attempt, D in enumerate(denominators, start=1):
        z_round = [Fraction(round(v * D), D) for v in z_float]
        z_exact, why = projector.project(z_round)
        if why:
            return RoundingOutcome(None, why, attempt)
        exact_grams, exact_params = split(program, z_exact)
        failed = None
        for k, matrix in enumerate(exact_grams):
            check = psd_decision(matrix)
            if not check.psd:
                failed = f"with denominator {D}, Gram block {k} (size {len(matrix)}) is not PSD after exact projection: {check.reason}"
                break
        if failed is None:
            point = ExactPoint(tuple(tuple(tuple(row) for row in m) for m in exact_grams), tuple(exact_params), D)
            return RoundingOutcome(point, f"rounded with denominator {D}", attempt)
        last = failed
    return RoundingOutcome(None, last, len(denominators))
