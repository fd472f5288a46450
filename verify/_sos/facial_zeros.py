"""Facial reduction by known zeros: restrict every Gram block to the face that the zeros of ``p`` force.

If ``x*`` lies in ``K = {g_k >= 0, h_l = 0}`` and ``p(x*) = 0``, every term of a certificate
``p = sum_S g_S m_S^T Q_S m_S + sum_l lambda_l h_l`` vanishes at ``x*`` (each is ``>= 0`` there and
they add up to 0).  For a block with ``g_S(x*) > 0`` this means ``m(x*)^T Q m(x*) = 0``, hence
``Q m(x*) = 0`` (``Q`` PSD).  So every feasible Gram matrix is singular, the margin solve finds no
interior point, and rounding fails.  With the vectors ``m(x*)`` of all such zeros as the rows of
``M``, an exact RREF of ``M`` (columns in the basis order) splits the basis into pivot monomials
``P`` and the others; each other monomial ``m_a`` gives the polynomial

    q_a = m_a - sum_{p in P, p < a} c_pa m_p,        q_a(x*) = 0 at every zero,

and the ``q_a`` are a basis of ``{c : c . m(x*) = 0}`` (distinct leading monomials).  The program is
then posed over ``Q'`` with ``Q = B Q' B^T`` (``B`` the coefficient matrix of the ``q_a``): the
same identities, unknowns ``Q'``, on which the margin solve can be interior.  The exact point found
for ``Q'`` is mapped back to ``Q = B Q' B^T`` on the original monomials (exact), and the certificate
is re-checked as always (the singular blocks by :mod:`verify._sos.psd_kernel`).

**Soundness does not depend on the zeros.**  Any ``B`` only restricts the search: the certificate
is the final rational identity with PSD blocks, checked exactly.  A point that is not a zero makes
the restricted program infeasible (verdict "unknown"), never a false "holds"; points are
nevertheless checked exactly (:func:`feasible_zeros`) and only exact feasible zeros are used.
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final

from . import poly
from .certificate import FrozenPoly, thaw
from .program import GramBlock, GramProgram, LinearSystem, finish_system
from .rounding import ExactPoint

Point = tuple[Fraction, ...]
GRID_VALUES = (Fraction(-1), Fraction(0), Fraction(1))
GRID_MAX_POINTS = 6561
"""``zeros="auto"`` scans ``GRID_VALUES^n`` (exactly) while it has at most this many points (n <= 8)."""


def feasible_zeros(p: poly.Poly, ineqs: Sequence[poly.Poly], eqs: Sequence[poly.Poly],
                   points: Sequence[Sequence[Fraction]]) -> list[Point]:
    """The points (distinct, in order) at which, exactly, ``p = 0``, every ``g >= 0`` and every ``h = 0``."""
    out: list[Point] = []
    for raw in points:
        x = tuple(Fraction(v) for v in raw)
        if x in out or poly.evaluate(p, x) != 0:
            continue
        if all(poly.evaluate(g, x) >= 0 for g in ineqs) and all(poly.evaluate(h, x) == 0 for h in eqs):
            out.append(x)
    return out


def grid_zeros(p: poly.Poly, n: int, ineqs: Sequence[poly.Poly], eqs: Sequence[poly.Poly]) -> list[Point]:
    """Exact feasible zeros of ``p`` on the grid ``{-1, 0, 1}^n`` (empty when the grid is too large)."""
    if len(GRID_VALUES) ** n > GRID_MAX_POINTS:
        return []
    return feasible_zeros(p, ineqs, eqs, itertools.product(GRID_VALUES, repeat=n))


def _vanishing_basis(basis: Sequence[poly.Monomial], points: Sequence[Point]) -> dict[poly.Monomial, poly.Poly]:
    """``{m_a: q_a}`` for the non-pivot monomials (see the module doc); ``{m: m}`` for all when no point."""
    if not points:
        return {m: {m: Fraction(1)} for m in basis}
    import flint

    values = [[poly.evaluate({m: Fraction(1)}, x) for m in basis] for x in points]
    M = flint.fmpq_mat(len(points), len(basis), [flint.fmpq(v.numerator, v.denominator) for row in values for v in row])
    R, rank = M.rref()
    pivots, col = [], 0
    for r in range(int(rank)):
        while R[r, col] == 0:
            col += 1
        pivots.append(col)
        col += 1
    pivot_set = set(pivots)
    out: dict[poly.Monomial, poly.Poly] = {}
    for a, mono in enumerate(basis):
        if a in pivot_set:
            continue
        q: poly.Poly = {mono: Fraction(1)}
        for r, p_col in enumerate(pivots):
            c = R[r, a]
            if c != 0:
                q[basis[p_col]] = -Fraction(int(c.p), int(c.q))
        out[mono] = q
    return out


@final
@dataclass(frozen=True)
class ReducedProgram:
    """A :class:`GramProgram` over ``Q'``: block ``b``'s basis names its kept monomials, and
    ``polys[b][m]`` is the polynomial ``q_m`` that basis entry stands for.  Same interface as
    :class:`GramProgram` for the search (:mod:`verify._sos.engine`), which only ever sees sizes and
    the linear system.  ``polys`` is keyed by ``(identity, multiplier)`` and then by monomial, so
    that dropping basis entries or whole blocks (the engine's own facial reduction) keeps it valid."""

    n_vars: int
    targets: tuple[FrozenPoly, ...]
    blocks: tuple[GramBlock, ...]
    params: tuple
    polys: dict

    def _plain(self) -> GramProgram:
        return GramProgram(self.n_vars, self.targets, self.blocks, self.params)

    def block_offsets(self) -> list[int]:
        return self._plain().block_offsets()

    @property
    def n_columns(self) -> int:
        return self._plain().n_columns

    def unmatched_rows(self, system: LinearSystem):
        return self._plain().unmatched_rows(system)

    def sizes(self) -> dict[str, object]:
        return self._plain().sizes()

    def system(self) -> LinearSystem:
        """The coefficient-matching system with columns ``weight * q_i * q_j`` (times 2 off the diagonal)."""
        rows: dict[tuple[int, poly.Monomial], int] = {}
        columns, weights = [], []
        for block in self.blocks:
            q = self.polys[(block.identity, block.multiplier)]
            weight = thaw(block.weight)
            basis = block.basis
            for i in range(len(basis)):
                for j in range(i, len(basis)):
                    factor = 1 if i == j else 2
                    product = poly.mul(weight, poly.mul(q[basis[i]], q[basis[j]]))
                    entries: dict[int, Fraction] = {}
                    for m, c in product.items():
                        r = rows.setdefault((block.identity, m), len(rows))
                        entries[r] = entries.get(r, Fraction(0)) + c * factor
                    columns.append(tuple(sorted((r, c) for r, c in entries.items() if c)))
                    weights.append(factor)
        return finish_system(rows, columns, weights, self.params, self.targets)


def reduce_program(program: GramProgram, points: Sequence[Point]) -> ReducedProgram | None:
    """The program restricted by the zeros ``points`` (None when no block changes).  A block's zeros
    are the points where its weight (the constraint product) is nonzero."""
    blocks, polys, changed = [], {}, False
    for block in program.blocks:
        weight = thaw(block.weight)
        active = [x for x in points if poly.evaluate(weight, x) != 0]
        q = _vanishing_basis(block.basis, active)
        changed = changed or len(q) != len(block.basis)
        if q:
            blocks.append(dataclasses.replace(block, basis=tuple(q)))
            polys.setdefault((block.identity, block.multiplier), {}).update(q)
        else:
            changed = True
    if not changed:
        return None
    return ReducedProgram(program.n_vars, program.targets, tuple(blocks), program.params, polys)


def expand(reduced: ReducedProgram, point: ExactPoint) -> tuple[GramProgram, ExactPoint]:
    """``Q = B Q' B^T`` on the monomials the ``q`` use: a plain program and exact point (same identity)."""
    import flint

    blocks, grams = [], []
    for block, gram in zip(reduced.blocks, point.grams):
        q = reduced.polys[(block.identity, block.multiplier)]
        kept = [q[m] for m in block.basis]
        monos = sorted({m for qa in kept for m in qa}, key=lambda m: (sum(m), m))
        index = {m: i for i, m in enumerate(monos)}
        B = flint.fmpq_mat(len(monos), len(kept))
        for a, qa in enumerate(kept):
            for m, c in qa.items():
                B[index[m], a] = flint.fmpq(c.numerator, c.denominator)
        G = flint.fmpq_mat(len(kept), len(kept), [flint.fmpq(x.numerator, x.denominator) for row in gram for x in row])
        Q = B * G * B.transpose()
        size = len(monos)
        grams.append(tuple(tuple(Fraction(int(Q[i, j].p), int(Q[i, j].q)) for j in range(size))
                           for i in range(size)))
        blocks.append(dataclasses.replace(block, basis=tuple(monos)))
    program = GramProgram(reduced.n_vars, reduced.targets, tuple(blocks), reduced.params)
    return program, ExactPoint(tuple(grams), point.params, point.denominator)





def reduced_search(program: GramProgram, points: Sequence[Point], denominators: Sequence[int], first_order: bool):
    """:func:`verify._sos.engine.search` on the program restricted by ``points``; the outcome's point
    and program are expanded back to plain monomial Gram blocks.  None when no block changes."""
    from .engine import SearchOutcome, search

    reduced = reduce_program(program, points)
    if reduced is None:
        return None
    # SCS: the restricted system has linearly dependent rows (the zeros tie coefficients of p
    # together), on which Clarabel's factorisation fails; SCS does not mind them.
    outcome = search(reduced, "SCS", denominators, first_order)  # type: ignore[arg-type]
    if outcome.point is None:
        return SearchOutcome(None, program, f"with the Gram blocks restricted by {len(points)} exact zeros of p: "
                             f"{outcome.reason}", outcome.stats)
    plain, point = expand(outcome.program, outcome.point)  # type: ignore[arg-type]
    return SearchOutcome(point, plain, outcome.reason, outcome.stats)


def search_with_zeros(build, p: poly.Poly, n: int, ineqs, eqs, options):
    """The search, with the facial reduction of this module when ``options.zeros`` asks for it (given
    zeros first; ``"auto"``: grid zeros after a failed plain search), in coordinates adapted to the
    zeros when they span a proper subspace (:mod:`verify._sos.facial_coords`), else in ``x``;
    returns the outcome and the number of zeros its point was restricted by (0: none).  ``build(p,
    ineqs, eqs)``: the caller's Gram program of a claim (degree, products, term sparsity)."""
    from .engine import search
    from .facial_coords import adapted_search

    program = build(p, ineqs, eqs)

    def restricted(points):
        if not points:
            return None
        adapted = adapted_search(build, p, n, ineqs, eqs, points, options, reduced_search)
        if adapted is not None and adapted.point is not None:
            return adapted
        return reduced_search(program, points, options.denominators, options.first_order)

    if options.zeros is not None and options.zeros != "auto":
        if any(len(x) != n for x in options.zeros):
            from theorems.errors import InvalidInput

            raise InvalidInput("zeros", f"points with {n} coordinates (one per variable)",
                               [[str(v) for v in x] for x in options.zeros])
        points = feasible_zeros(p, ineqs, eqs, options.zeros)
        reduced = restricted(points)
        if reduced is not None and reduced.point is not None:
            return reduced, len(points)
    outcome = search(program, options.solver, options.denominators, options.first_order)
    if outcome.point is None and options.zeros == "auto":
        points = grid_zeros(p, n, ineqs, eqs)
        reduced = restricted(points)
        if reduced is not None:
            return reduced, (len(points) if reduced.point is not None else 0)
    return outcome, 0


__all__ = ["GRID_MAX_POINTS", "ReducedProgram", "expand", "feasible_zeros", "grid_zeros", "reduce_program",
           "reduced_search", "search_with_zeros"]
