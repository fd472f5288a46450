"""Consensus on a cap: a contraction of eq. 5 in a block max-norm around a consensus point (any ``U^h``, any heads).

Data (exact rationals): one chart ``(pivot, sign)`` shared by every token, a box
``K_1 = mid +- krad`` in that chart containing a zero ``y1*`` of the one-token field
``Proj_x(U_s x)`` (``U_s = sum_h U^h``), an invertible ``n x n`` matrix ``Phi`` (``n = N m``,
``m = d - 1``, blocks ``b = 0..N-1`` of ``m`` coordinates), a radius ``eps``, a box radius ``R``
and rational bounds ``t_b``, ``s_bc``.  With ``y* = (y1*, ..., y1*)`` (an equilibrium of eq. 5:
every head's weights are uniform there, :mod:`.basin` step 1) and the norm
``||e|| = max_b |(Phi e)_b|_2``, the *cap* is ``C(y*) = {y : ||y - y*|| <= eps}``.

:func:`check_cap` proves, with arb balls and exact rationals only (no float, no solver):

1. Krawczyk's test: a zero ``y1*`` of the one-token field in ``K_1``;
2. ``C(y*)`` lies in the box ``B = mid +- R`` (every token) for every ``y*`` in ``K``:
   ``eps sum_b |(Phi^{-1})_{k, b}|_2 <= R - krad_k`` for every row ``k``;
3. with ``J(B)`` the arb enclosure of the chart field's Jacobian over ``B`` and
   ``M = Phi J(B) Phi^{-1}`` (blocks ``M_bc``): ``t_b I - (M_bb + M_bb^T)/2`` and
   ``s_bc^2 I - M_bc^T M_bc`` positive definite for every matrix in the balls (arb Cholesky), or
   ``M_bc = 0`` exactly where ``s_bc = 0``;
4. ``c = -max_b (t_b + sum_{c != b} s_bc) > 0``.

Then for ``y`` in ``C(y*)`` the segment ``[y*, y]`` lies in the convex ``C(y*)``, inside ``B``, so
``f(y) = Jbar (y - y*)`` with every entry of ``Jbar`` in the balls of ``J(B)``; for ``z = Phi (y - y*)``,
``dz/dt = Phi Jbar Phi^{-1} z`` and the logarithmic norm of the block max-norm
(``mu(M) <= max_b (mu_2(M_bb) + sum_{c != b} ||M_bc||_2)``, Ström 1975; Söderlind 2006) gives
``D^+ ||z|| <= -c ||z||``: ``C(y*)`` is forward invariant and every solution in it converges to ``y*``
exponentially.  :func:`cap_entered` decides in arb that the token balls lie in ``C(y*)`` for every
``y*`` in ``K``.  ``P`` and ``beta`` enter only through ``J(B)``; at ``y*`` they drop out (the mean
mode has the other eigenvalues of ``U_s`` minus ``lambda``, the deviations ``-lambda``,
docs/fate.md), so the cap exists whenever ``lambda`` is real, positive and rightmost.

Not guaranteed: anything about starts that never enter the cap; ``Phi`` (proposed by
:mod:`.cap_hints`) decides how large a cap is proved.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import final

from flint import arb, arb_mat, ctx, fmpq, fmpq_mat

from verify.equilibrium.chart_field import chart_field, token_points
from verify.equilibrium.krawczyk import arb_scalars, box_balls, krawczyk, rational_ball

from .basin import chart_coordinates, consensus_data, field_data
from .problem import FateProblem, Matrix


@final
@dataclass(frozen=True)
class Cap:
    chart: tuple[int, int]
    mid: tuple[Fraction, ...]
    krad: tuple[Fraction, ...]
    Phi: Matrix
    eps: Fraction
    R: Fraction
    t: tuple[Fraction, ...]
    s: Matrix
    precision: int

    @property
    def decay(self) -> Fraction:
        """``c = -max_b (t_b + sum_{c != b} s_bc)`` (exact)."""
        N = len(self.t)
        return -max(self.t[b] + sum(self.s[b][c] for c in range(N) if c != b) for b in range(N))


@final
@dataclass(frozen=True)
class CapCheck:
    ok: bool
    reason: str
    decay: Fraction | None = None
    limit: tuple[tuple[arb, ...], ...] | None = None
    """Balls containing every token of the consensus point (one row per token)."""


def _shape(problem: FateProblem, c: Cap) -> str:
    N, m = problem.N, problem.d - 1
    n = N * m
    k, sign = c.chart
    if not (0 <= k < problem.d and sign in (1, -1)):
        return "the chart needs a pivot in range and a sign +-1"
    if len(c.mid) != m or len(c.krad) != m:
        return f"mid and krad must have {m} entries (one token's chart)"
    if len(c.Phi) != n or any(len(row) != n for row in c.Phi):
        return f"Phi must be {n}x{n}"
    if len(c.t) != N or len(c.s) != N or any(len(row) != N for row in c.s):
        return f"t must have {N} entries and s must be {N}x{N}"
    if any(c.s[b][b] != 0 for b in range(N)) or any(v < 0 for row in c.s for v in row):
        return "s must be >= 0 with a zero diagonal"
    if any(v <= 0 for v in c.krad) or not c.R > max(c.krad) or not c.eps > 0:
        return "every krad must be > 0, R > krad and eps > 0"
    if not c.decay > 0:
        return f"max_b (t_b + sum_c s_bc) = {-c.decay} is not < 0"
    return ""


def _pd(M: arb_mat) -> bool:
    """Every symmetric matrix in the balls of ``M`` (lower triangle read) is positive definite (arb Cholesky)."""
    n = M.nrows()
    L = [[arb(0)] * n for _ in range(n)]
    for j in range(n):
        piv = M[j, j] - sum((L[j][k] * L[j][k] for k in range(j)), arb(0))
        if not piv > 0:
            return False
        L[j][j] = piv.sqrt()
        for i in range(j + 1, n):
            L[i][j] = (M[i, j] - sum((L[i][k] * L[j][k] for k in range(j)), arb(0))) / L[j][j]
    return True


def _block(M: arb_mat, b: int, c: int, m: int) -> arb_mat:
    return arb_mat([[M[b * m + i, c * m + j] for j in range(m)] for i in range(m)])


def _eye(m: int, v: arb) -> arb_mat:
    return arb_mat([[v if i == j else arb(0) for j in range(m)] for i in range(m)])


def _rational_mat(M: Sequence[Sequence[Fraction]]) -> fmpq_mat:
    return fmpq_mat([[fmpq(v.numerator, v.denominator) for v in row] for row in M])


def _arb_of(M: fmpq_mat) -> arb_mat:
    return arb_mat([[arb(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


def norm_bounds(M: arb_mat, c: Cap, m: int) -> str:
    """Step 3 for the transformed Jacobian ``M``: ``""`` when every stored bound is proved."""
    N = len(c.t)
    for b in range(N):
        D = _block(M, b, b, m)
        sym = arb_mat([[(D[i, j] + D[j, i]) / 2 for j in range(m)] for i in range(m)])
        if not _pd(_eye(m, rational_ball(c.t[b])) - sym):
            return f"mu_2 of block {b} is not proved <= t_{b} = {float(c.t[b]):.4g}"
        for col in range(N):
            if col == b:
                continue
            O = _block(M, b, col, m)
            if c.s[b][col] == 0:
                if not all(v.is_zero() for v in O.entries()):
                    return f"block ({b}, {col}) is not exactly zero (s = 0)"
                continue
            if not _pd(_eye(m, rational_ball(c.s[b][col] ** 2)) - O.transpose() * O):
                return f"||M_({b},{col})||_2 is not proved <= s = {float(c.s[b][col]):.4g}"
    return ""


def check_cap(problem: FateProblem, c: Cap) -> CapCheck:
    """Steps 1-4 of the module docstring (balls and rationals only)."""
    why = _shape(problem, c)
    if why:
        return CapCheck(False, why)
    N, m = problem.N, problem.d - 1
    n = N * m
    try:
        Pinv = _rational_mat(c.Phi).inv()
    except ZeroDivisionError:
        return CapCheck(False, "Phi is singular")
    with ctx.workprec(c.precision):
        kr = krawczyk(consensus_data(problem, c.chart), c.mid, c.krad)
        if not kr.contained:
            return CapCheck(False, f"one-token Krawczyk test for Proj_x(U_s x) failed: {kr.reason}")
        Pa, Pia = _arb_of(_rational_mat(c.Phi)), _arb_of(Pinv)
        eps = rational_ball(c.eps)
        for k in range(n):
            reach = sum((sum((Pia[k, b * m + j] ** 2 for j in range(m)), arb(0)).sqrt() for b in range(N)), arb(0))
            if not eps * reach <= rational_ball(c.R - c.krad[k % m]):
                return CapCheck(False, f"the cap leaves the box B in coordinate {k}")
        data = field_data(problem, (c.chart,) * N)
        _, J = chart_field(data, box_balls(c.mid * N, (c.R,) * n), arb_scalars(), jacobian=True)
        if not all(v.is_finite() for row in J for v in row):
            return CapCheck(False, "the Jacobian is not finite on B")
        why = norm_bounds(Pa * arb_mat(J) * Pia, c, m)
        if why:
            return CapCheck(False, why)
        x = token_points(consensus_data(problem, c.chart), box_balls(c.mid, c.krad), arb_scalars())[0]
    decay = c.decay
    return CapCheck(True, f"one-token Krawczyk test for Proj_x(U_s x): {kr.reason}; block max-norm contraction "
                          f"D+||Phi (y - y*)|| <= -{float(decay):.3g} ||Phi (y - y*)|| on the cap of radius "
                          f"{float(c.eps):.3g} (box radius {float(c.R):.3g})", decay, (tuple(x),) * N)


def cap_entered(c: Cap, X: Sequence[Sequence[arb]]) -> bool:
    """The token balls ``X`` lie in the open cap ``||Phi (y - y*)|| < eps`` for every ``y*`` in ``K`` (arb)."""
    N, m = len(X), len(c.mid)
    y = chart_coordinates((c.chart,) * N, X)
    if y is None:
        return False
    K = box_balls(c.mid, c.krad)
    w = [yk - K[k % m] for k, yk in enumerate(y)]
    eps2 = rational_ball(c.eps) ** 2
    for b in range(N):
        total = arb(0)
        for row in c.Phi[b * m:(b + 1) * m]:
            z = sum((rational_ball(v) * wk for v, wk in zip(row, w) if v), arb(0))
            total += z * z
        if not (total.is_finite() and total < eps2):
            return False
    return True


__all__ = ["Cap", "CapCheck", "cap_entered", "check_cap", "norm_bounds"]
