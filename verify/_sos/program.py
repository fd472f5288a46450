"""The Gram program in exact form: blocks, free parameters and coefficient-matching rows.

A :class:`GramProgram` describes one or more polynomial identities that must hold at once,

    sum_{blocks b of identity i} w_b(x) m_b(x)^T X_b m_b(x)  +  sum_j c_j q_{j,i}(x)  =  t_i(x),

with unknown symmetric PSD matrices ``X_b`` and unknown free scalars ``c_j`` (multiplier
coefficients, Lyapunov coefficients).  Matching coefficients monomial by monomial gives the affine
system ``A z = b`` over ``z = (upper triangles of the X_b, c)``; :meth:`GramProgram.system` returns
it with exact rational entries so that the solver side (floats) and the rounding side (exact
projection) read the same data.  Solver-free.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import final

from . import poly
from .certificate import FrozenPoly, thaw


@final
@dataclass(frozen=True)
class GramBlock:
    """``weight * m^T X m`` in identity ``identity``; ``multiplier`` names the constraint product."""

    identity: int
    multiplier: tuple[int, ...]
    weight: FrozenPoly
    basis: tuple[poly.Monomial, ...]


@final
@dataclass(frozen=True)
class FreeParam:
    """A free scalar ``c`` that adds ``c * poly`` to each listed identity; ``tag`` says what it is."""

    tag: tuple
    contributions: tuple[tuple[int, FrozenPoly], ...]


@final
@dataclass(frozen=True)
class LinearSystem:
    """``A z = b`` exactly.  ``columns[c]`` lists ``(row, value)``; ``row_keys[r] = (identity, monomial)``.

    ``weights[c]`` is the Frobenius weight of column ``c`` (2 for an off-diagonal Gram entry, which
    appears twice in the matrix, else 1) used by the orthogonal projection.
    """

    row_keys: tuple[tuple[int, poly.Monomial], ...]
    columns: tuple[tuple[tuple[int, Fraction], ...], ...]
    rhs: tuple[Fraction, ...]
    weights: tuple[int, ...]


def finish_system(rows: dict, columns: list, weights: list, params, targets) -> LinearSystem:
    """The linear system from the Gram columns already built into ``rows``/``columns``/``weights``:
    one column per free parameter, a row for every target monomial, the right-hand side and the row
    keys in row order.  Shared by :meth:`GramProgram.system` and the facially reduced program."""
    for param in params:
        entries: dict[int, Fraction] = {}
        for identity, contribution in param.contributions:
            for m, c in contribution:
                r = rows.setdefault((identity, m), len(rows))
                entries[r] = entries.get(r, Fraction(0)) + c
        columns.append(tuple(sorted((r, c) for r, c in entries.items() if c)))
        weights.append(1)
    for identity, target in enumerate(targets):
        for m, _ in target:
            rows.setdefault((identity, m), len(rows))
    rhs = [Fraction(0)] * len(rows)
    for identity, target in enumerate(targets):
        for m, c in target:
            rhs[rows[(identity, m)]] = c
    keys = [None] * len(rows)
    for key, r in rows.items():
        keys[r] = key
    return LinearSystem(tuple(keys), tuple(columns), tuple(rhs), tuple(weights))


@final
@dataclass(frozen=True)
class GramProgram:
    n_vars: int
    targets: tuple[FrozenPoly, ...]
    blocks: tuple[GramBlock, ...]
    params: tuple[FreeParam, ...]

    def block_offsets(self) -> list[int]:
        """Column index of each block's first upper-triangle entry, then of the first parameter."""
        offsets, position = [], 0
        for block in self.blocks:
            offsets.append(position)
            size = len(block.basis)
            position += size * (size + 1) // 2
        offsets.append(position)
        return offsets

    @property
    def n_columns(self) -> int:
        return self.block_offsets()[-1] + len(self.params)

    def system(self) -> LinearSystem:
        rows: dict[tuple[int, poly.Monomial], int] = {}

        def row(identity: int, mono: poly.Monomial) -> int:
            key = (identity, mono)
            if key not in rows:
                rows[key] = len(rows)
            return rows[key]

        columns: list[tuple[tuple[int, Fraction], ...]] = []
        weights: list[int] = []
        for block in self.blocks:
            weight = thaw(block.weight)
            basis = block.basis
            for i in range(len(basis)):
                for j in range(i, len(basis)):
                    factor = 1 if i == j else 2
                    base = poly.mono_mul(basis[i], basis[j])
                    entries = tuple((row(block.identity, poly.mono_mul(base, m)), c * factor) for m, c in sorted(weight.items()))
                    columns.append(entries)
                    weights.append(factor)
        return finish_system(rows, columns, weights, self.params, self.targets)

    def unmatched_rows(self, system: LinearSystem) -> list[tuple[int, poly.Monomial]]:
        """Rows with a nonzero right-hand side that no unknown can reach (the program is infeasible)."""
        reached = {r for col in system.columns for r, c in col if c}
        return [system.row_keys[r] for r, value in enumerate(system.rhs) if value and r not in reached]

    def sizes(self) -> dict[str, object]:
        return {
            "gram_blocks": [len(b.basis) for b in self.blocks],
            "free_parameters": len(self.params),
            "unknowns": self.n_columns,
        }
