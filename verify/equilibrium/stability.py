"""Asymptotic stability of the enclosed equilibrium: exact Lyapunov equations checked over the box.

For each diagonal block ``D`` of the Jacobian enclosure ``J(X)`` (one block per token under the
causal mask, where ``J`` is block lower triangular; one block for the full mask) the certificate
stores rationals ``A`` and ``S`` with

    A^T S + S A = -I   exactly,      S positive definite exactly (LDL^T over Fractions),

and the check bounds ``e >= ||D - A||_F`` for every ``D`` in the block enclosure (arb).  Then for
every such ``D``: ``D^T S + S D = -I + E`` with ``||E||_2 <= 2 ||S||_F e``, so ``2 ||S||_F e < 1``
gives ``D^T S + S D`` negative definite, hence (Lyapunov) every eigenvalue of ``D`` has
``Re lambda <= -(1 - 2 ||S||_F e) / (2 s)`` (from ``2 Re lambda v*Sv = v*(D^T S + S D)v``; ``s`` is
the smaller of ``tr S`` and the largest absolute row sum, both ``>= lambda_max(S)``).  The eigenvalues of a block lower triangular matrix are those of its
diagonal blocks, and the Jacobian at the equilibrium lies in ``J(X)``: the equilibrium is
asymptotically stable (linearisation; Khalil, *Nonlinear Systems*, Thm 4.7).

``A`` must also be within :data:`TAU` of every block of the enclosure: it is the recorded
Jacobian block at the equilibrium, so a certificate whose ``A`` does not describe its own system is
rejected even when the inequality would survive.

Not guaranteed: stability says nothing about the size of the basin beyond "an open set".
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final

from flint import arb, fmpq, fmpq_mat

from verify._sos.exact_psd import check_psd

from .krawczyk import rational_ball, upper_fraction

TAU = Fraction(1, 10**6)
"""Largest allowed ``||D - A||_F`` over the box: ``A`` is the Jacobian block to this accuracy."""

Matrix = Sequence[Sequence[Fraction]]


def token_blocks(N: int, m: int, mask: str) -> list[list[int]]:
    """Index blocks of the chart variables: per token (causal), or all together (full)."""
    if mask == "causal":
        return [list(range(i * m, (i + 1) * m)) for i in range(N)]
    return [list(range(N * m))]


def upper_triangular_zero(J: Sequence[Sequence[arb]], blocks: list[list[int]]) -> tuple[bool, str]:
    """Every entry right of the diagonal blocks is an exact zero ball (block lower triangular)."""
    for b, rows in enumerate(blocks):
        later = [c for blk in blocks[b + 1:] for c in blk]
        for r in rows:
            for c in later:
                if not J[r][c].is_zero():
                    return False, f"Jacobian entry ({r},{c}) is not exactly zero: the blocks are coupled"
    return True, "block lower triangular"


def solve_lyapunov(A: Matrix) -> list[list[Fraction]] | None:
    """The exact rational ``S`` with ``A^T S + S A = -I`` (None if singular); hint side only."""
    m = len(A)
    rows = []
    for i in range(m):
        for j in range(m):  # equation (i, j): sum_k A[k][i] S[k][j] + S[i][k] A[k][j]
            row = [Fraction(0)] * (m * m)
            for k in range(m):
                row[k * m + j] += A[k][i]
                row[i * m + k] += A[k][j]
            rows.append(row)
    M = fmpq_mat([[fmpq(v.numerator, v.denominator) for v in row] for row in rows])
    rhs = fmpq_mat([[-1 if i == j else 0] for i in range(m) for j in range(m)])
    try:
        sol = M.solve(rhs)
    except ZeroDivisionError:
        return None
    return [[Fraction(int(sol[i * m + j, 0].p), int(sol[i * m + j, 0].q)) for j in range(m)] for i in range(m)]


@final
@dataclass(frozen=True)
class BlockCheck:
    ok: bool
    reason: str
    decay: Fraction | None = None
    """Rational ``c > 0`` with ``Re lambda <= -c`` for every eigenvalue of the block."""
    margin: Fraction | None = None
    """Rational lower bound of ``1 - 2 ||S||_F e``: ``D^T S + S D <= -margin I`` over the box."""


def check_block(D: Sequence[Sequence[arb]], A: Matrix, S: Matrix) -> BlockCheck:
    """Exact and ball checks of one block (call inside ``flint.ctx.workprec``)."""
    m = len(A)
    if any(len(row) != m for row in A) or len(S) != m or any(len(row) != m for row in S):
        return BlockCheck(False, f"A and S must be {m}x{m}")
    for i in range(m):
        for j in range(m):
            lhs = sum((A[k][i] * S[k][j] + S[i][k] * A[k][j] for k in range(m)), Fraction(0))
            if lhs != (-1 if i == j else 0):
                return BlockCheck(False, f"A^T S + S A != -I exactly at entry ({i},{j}): {lhs}")
    psd = check_psd(S)
    if not psd.ok or psd.rank != m:
        return BlockCheck(False, f"S is not positive definite: {psd.reason or 'singular'}")
    diff = [D[i][j] - rational_ball(A[i][j]) for i in range(m) for j in range(m)]
    e2 = sum((v * v for v in diff), arb(0))  # v * v: arb's ** is NaN on balls around 0
    if not e2.is_finite():
        return BlockCheck(False, "the Jacobian block enclosure is not finite")
    e2_hi = upper_fraction(e2)  # rational >= ||D - A||_F^2 for every D in the enclosure
    if not e2_hi <= TAU ** 2:
        return BlockCheck(False, f"A is not the Jacobian block at the equilibrium: ||D - A||_F^2 <= {float(e2_hi):.3g} "
                                 f"exceeds TAU^2 = {TAU ** 2}")
    product = sum((v * v for row in S for v in row), Fraction(0)) * e2_hi  # >= (||S||_F e)^2
    root_hi = upper_fraction(rational_ball(product).sqrt())
    margin = 1 - 2 * root_hi
    if not margin > 0:
        return BlockCheck(False, f"2 ||S||_F ||D - A||_F < 1 could not be shown ((||S||_F e)^2 <= {float(product):.3g})")
    trace = sum((S[i][i] for i in range(m)), Fraction(0))
    rows = max(sum((abs(v) for v in row), Fraction(0)) for row in S)  # Gershgorin: lambda_max(S) <= this
    decay = margin / (2 * min(trace, rows))
    return BlockCheck(True, f"D^T S + S D <= -(1 - {float(1 - margin):.3g}) I over the box; Re lambda <= -{float(decay):.4g}",
                      decay, margin)
