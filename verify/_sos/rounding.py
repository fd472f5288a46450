"""From floating-point Gram matrices to exact rational ones (Peyrl–Parrilo rounding and projection).

Given a float solution ``z_f`` of ``A z = b, X_b >= 0`` (ideally an interior point, see
:mod:`verify._sos.solve`):

1. round every entry to the nearest multiple of ``1/D`` -> ``z~`` (exact rationals);
2. project ``z~`` exactly onto the affine space ``{A z = b}`` in the Frobenius metric:
   ``z = z~ - W^{-1} A^T (A W^{-1} A^T)^{-1} (A z~ - b)`` restricted to a maximal set of independent
   rows (found by an exact RREF with python-flint).  The identity now holds *exactly*;
3. check every Gram block PSD exactly with python-flint (:func:`theorems.psd_flint.psd_decision`;
   the certificate's re-check then uses the independent code of :mod:`verify._sos.exact_psd` and
   :mod:`verify._sos.psd_congruence`).  Blocks larger than :data:`CHARPOLY_UP_TO` (whose exact
   characteristic polynomial costs seconds to minutes) are only *screened* here, by the smallest
   float eigenvalue of the exact matrix; the exact PSD decision for them is the re-check's, and a
   block that passes the screen but not the re-check makes the search's verdict "unknown".

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
from .threads import one_blas_thread

DEFAULT_DENOMINATORS = (2 ** 8, 2 ** 12, 2 ** 16, 2 ** 20, 2 ** 26, 2 ** 32)
CHARPOLY_UP_TO = 100
"""Largest block decided exactly during rounding (flint characteristic polynomial: 0.15 s at 120,
about 20 s at 330); larger blocks are screened in floating point (see the module doc)."""
SCREEN_MARGIN = 1e-9
"""A screened block passes when its smallest float eigenvalue exceeds ``SCREEN_MARGIN * n * ||Q||``
(well above the ``n eps ||Q||`` backward error of the eigenvalue solver)."""


@final
@dataclass(frozen=True)
class ExactPoint:
    """An exact solution of ``A z = b`` whose Gram blocks passed the PSD check of rounding (exact up to
    :data:`CHARPOLY_UP_TO` rows, a float screen above: the certificate's re-check decides)."""

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
        # python-flint rationals throughout (about ten times faster than Fraction here); the
        # result is handed back as Fractions.
        self._columns = [tuple((r, _fmpq(v)) for r, v in col) for col in system.columns]
        self._rhs = [_fmpq(v) for v in system.rhs]
        gram: dict[tuple[int, int], flint.fmpq] = {}
        for col, weight in zip(self._columns, system.weights):
            for r1, v1 in col:
                for r2, v2 in col:
                    term = v1 * v2 / weight
                    key = (r1, r2)
                    gram[key] = gram[key] + term if key in gram else term
        blocks: list[tuple[tuple[int, ...], flint.fmpq | flint.fmpq_mat]] = []
        for rows in _row_components(system):
            if len(rows) == 1:
                value = gram.get((rows[0], rows[0]))
                if value is not None and value != 0:
                    blocks.append(((rows[0],), value))
                continue
            dense = flint.fmpq_mat(len(rows), len(rows))
            for a, ra in enumerate(rows):
                for b, rb in enumerate(rows):
                    value = gram.get((ra, rb))
                    if value is not None:
                        dense[a, b] = value
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

    def _residual(self, z: Sequence[flint.fmpq]) -> list[flint.fmpq]:
        residual = [-v for v in self._rhs]
        for value, col in zip(z, self._columns):
            if value != 0:
                for r, a in col:
                    residual[r] += a * value
        return residual

    def _multipliers(self, residual: Sequence[flint.fmpq]) -> dict[int, flint.fmpq]:
        """``y`` with ``G_PP y = residual_P`` on the pivot rows ``P``, block by block."""
        y_by_row: dict[int, flint.fmpq] = {}
        for rows, factor in self.blocks:
            if isinstance(factor, flint.fmpq):
                value = residual[rows[0]]
                if value != 0:
                    y_by_row[rows[0]] = value / factor
                continue
            if not any(residual[r] != 0 for r in rows):
                continue
            vec = flint.fmpq_mat(len(rows), 1, [residual[r] for r in rows])
            y = factor.solve(vec)
            for a, r in enumerate(rows):
                q = y[a, 0]
                if q != 0:
                    y_by_row[r] = q
        return y_by_row

    def project(self, z: Sequence[Fraction | flint.fmpq]) -> tuple[list[Fraction], str]:
        """Project; returns ``(z_exact, "")`` or ``([], reason)`` when the system is inconsistent."""
        out = [v if isinstance(v, flint.fmpq) else _fmpq(Fraction(v)) for v in z]
        y_by_row = self._multipliers(self._residual(out))
        if y_by_row:
            for c, (col, weight) in enumerate(zip(self._columns, self.system.weights)):
                shift = None
                for r, a in col:
                    y = y_by_row.get(r)
                    if y is not None:
                        shift = a * y if shift is None else shift + a * y
                if shift is not None and shift != 0:
                    out[c] = out[c] - shift / weight
        bad = [r for r, v in enumerate(self._residual(out)) if v != 0]
        if bad:
            return [], f"coefficient-matching system is inconsistent ({len(bad)} rows cannot be met exactly)"
        return [Fraction(int(q.p), int(q.q)) for q in out], ""


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


def _block_psd(matrix: list[list[Fraction]]) -> tuple[bool, str]:
    """Exact (flint) up to :data:`CHARPOLY_UP_TO` rows, a float screen above (the re-check decides)."""
    if len(matrix) <= CHARPOLY_UP_TO:
        check = psd_decision(matrix)
        return check.psd, check.reason
    with one_blas_thread():
        values = np.linalg.eigvalsh(np.array([[float(x) for x in row] for row in matrix]))
    bound = SCREEN_MARGIN * len(matrix) * max(1.0, float(np.max(np.abs(values))))
    if values[0] > bound:
        return True, f"screened: smallest float eigenvalue {values[0]:.3g} (the exact decision is the re-check's)"
    return False, f"screened: smallest float eigenvalue {values[0]:.3g} <= {bound:.3g}"


def rationalize(program: GramProgram, projector: Projector, grams: Sequence[np.ndarray], params: np.ndarray,
                denominators: Sequence[int] = DEFAULT_DENOMINATORS) -> RoundingOutcome:
    """Round, project exactly and check PSD exactly for each denominator until one works."""
    z_float = float_vector(program, grams, params)
    if not all(np.isfinite(z_float)):
        return RoundingOutcome(None, "the float solution contains non-finite values", 0)
    last = "no denominator tried"
    for attempt, D in enumerate(denominators, start=1):
        z_round = [flint.fmpq(round(v * D), D) for v in z_float]
        z_exact, why = projector.project(z_round)
        if why:
            return RoundingOutcome(None, why, attempt)
        exact_grams, exact_params = split(program, z_exact)
        failed = None
        for k, matrix in enumerate(exact_grams):
            psd, reason = _block_psd(matrix)
            if not psd:
                failed = f"with denominator {D}, Gram block {k} (size {len(matrix)}) is not PSD after exact projection: {reason}"
                break
        if failed is None:
            point = ExactPoint(tuple(tuple(tuple(row) for row in m) for m in exact_grams), tuple(exact_params), D)
            return RoundingOutcome(point, f"rounded with denominator {D}", attempt)
        last = failed
    return RoundingOutcome(None, last, len(denominators))
