"""A certified basin of attraction around an equilibrium of eq. 5, in gnomonic charts.

Data (all exact rationals): one chart ``(pivot, sign)`` per token (:mod:`verify.equilibrium.chart_field`),
a box ``K = mid +- krad`` that contains an equilibrium ``y*`` of the chart field, a box
``B = mid +- R`` (``R > krad``), a symmetric rational ``S`` and a level ``r > 0``.  The check
(:func:`check_basin`, python-flint balls and exact rationals only) proves:

1. **existence:** ``K`` contains a zero ``y*`` of the chart field.  Kind ``equilibrium``: Krawczyk's
   test on ``K`` (:func:`verify.equilibrium.krawczyk.krawczyk`).  Kind ``consensus``: every token
   has the same chart and the same box ``K_1``, and Krawczyk's test proves a zero of the one-token
   field ``Proj_x(U_s x)``, ``U_s = sum_h U^h``, in ``K_1``; at a configuration with every token at
   that point every head's weights are uniform, so the ``N``-token field is ``Proj_x(U_s x)`` for
   every token and ``(y_1*, ..., y_1*)`` is a zero of it in ``K``;
2. **S positive definite**, exactly (fraction-free LDL^T, :func:`verify._sos.exact_psd.check_psd`);
3. **decrease on B:** with ``J(B)`` an arb enclosure of the chart field's Jacobian over ``B``, every
   matrix in the interval matrix ``M = -(J(B)^T S + S J(B))`` is ``>= c I`` with ``c > 0``
   (:func:`decrease`: exact LDL^T of a rounded midpoint and Weyl's inequality).  For ``y`` in ``B`` the segment ``[y*, y]`` lies
   in the convex ``B``, so ``f(y) = Jbar (y - y*)`` with ``Jbar`` the average of ``J`` along it
   (inside the same intervals), and ``V(y) = (y - y*)^T S (y - y*)`` has
   ``dV/dt = (y - y*)^T (Jbar^T S + S Jbar)(y - y*) <= -c |y - y*|^2``;
4. **the sublevel set stays in B:** ``r (S^{-1})_kk <= (R_k - krad_k)^2`` for every ``k``, so
   ``{V <= r}`` lies in ``y* +- sqrt(r (S^{-1})_kk)``, inside ``B`` for every ``y*`` in ``K``.

Hence ``{V <= r}`` is forward invariant and every solution that enters it converges to ``y*``
(``dV/dt <= -(c / lambda_max(S)) V``): the Lyapunov argument (Khalil, *Nonlinear Systems*, Thm 4.1
and its estimate of the region of attraction, §8.2).  :func:`entered` decides in arb that an
enclosure of the tokens lies in ``{V < r}`` for every ``y*`` in ``K``.  Not guaranteed: anything
about starts whose enclosure never enters; the basin is a small certified part of the true one.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final

from flint import arb, arb_mat, ctx, fmpq, fmpq_mat

from verify._sos.exact_psd import check_psd
from verify.equilibrium.chart_field import FieldData, chart_field, token_points
from verify.equilibrium.krawczyk import arb_scalars, box_balls, krawczyk, rational_ball, upper_fraction

from .problem import FateProblem, Matrix

KINDS = ("consensus", "equilibrium")


@final
@dataclass(frozen=True)
class Basin:
    kind: str
    charts: tuple[tuple[int, int], ...]
    mid: tuple[Fraction, ...]
    krad: tuple[Fraction, ...]
    R: tuple[Fraction, ...]
    S: Matrix
    r: Fraction
    precision: int


@final
@dataclass(frozen=True)
class BasinCheck:
    ok: bool
    reason: str
    decay: Fraction | None = None
    """``c``: ``dV/dt <= -c |y - y*|^2`` on ``B``."""
    limit: tuple[tuple[arb, ...], ...] | None = None
    """Balls containing every token of the equilibrium ``y*`` (its directions on the sphere)."""


def field_data(problem: FateProblem, charts: Sequence[tuple[int, int]]) -> FieldData:
    return FieldData(d=problem.d, beta=problem.beta, mask=problem.mask, heads=problem.heads, charts=tuple(charts))


def consensus_data(problem: FateProblem, chart: tuple[int, int]) -> FieldData:
    """The one-token field ``Proj_x(U_s x)`` (``P = 0``: one token's weight is 1 whatever ``P``)."""
    d = problem.d
    zero = tuple(tuple(Fraction(0) for _ in range(d)) for _ in range(d))
    return FieldData(d=d, beta=Fraction(1), mask="full", heads=((zero, problem.U_sum()),), charts=(chart,))


def _shape(problem: FateProblem, b: Basin) -> str:
    N, m = problem.N, problem.d - 1
    n = N * m
    if b.kind not in KINDS:
        return f"kind must be one of {KINDS}"
    if len(b.charts) != N or any(not (0 <= k < problem.d and s in (1, -1)) for k, s in b.charts):
        return f"expected {N} charts (pivot in range, sign +-1)"
    if not (len(b.mid) == len(b.krad) == len(b.R) == n):
        return f"mid, krad and R must have {n} entries"
    if len(b.S) != n or any(len(row) != n for row in b.S):
        return f"S must be {n}x{n}"
    if any(b.S[i][j] != b.S[j][i] for i in range(n) for j in range(i)):
        return "S must be symmetric"
    if any(k <= 0 for k in b.krad) or any(R <= k for R, k in zip(b.R, b.krad)):
        return "every krad must be > 0 and every R > krad"
    if b.r <= 0:
        return "the level r must be > 0"
    if b.kind == "consensus":
        if len(set(b.charts)) != 1:
            return "a consensus basin has one chart for every token"
        if any(b.mid[i * m:(i + 1) * m] != b.mid[:m] or b.krad[i * m:(i + 1) * m] != b.krad[:m] for i in range(N)):
            return "a consensus basin has the same box K_1 for every token"
    return ""


def check_basin(problem: FateProblem, b: Basin) -> BasinCheck:
    """Steps 1-4 of the module docstring (balls and rationals only)."""
    problem_text = _shape(problem, b)
    if problem_text:
        return BasinCheck(False, problem_text)
    n, m = len(b.mid), problem.d - 1
    data = field_data(problem, b.charts)
    with ctx.workprec(b.precision):
        if b.kind == "consensus":
            one = consensus_data(problem, b.charts[0])
            kr = krawczyk(one, b.mid[:m], b.krad[:m])
            what = "one-token Krawczyk test for Proj_x(U_s x)"
        else:
            kr = krawczyk(data, b.mid, b.krad)
            what = "Krawczyk test"
        if not kr.contained:
            return BasinCheck(False, f"{what} failed: {kr.reason}")
        psd = check_psd([list(row) for row in b.S])
        if not psd.ok or psd.rank != n:
            return BasinCheck(False, f"S is not positive definite: {psd.reason or 'singular'}")
        inv = fmpq_mat([[fmpq(v.numerator, v.denominator) for v in row] for row in b.S]).inv()
        for k in range(n):
            diag = Fraction(int(inv[k, k].p), int(inv[k, k].q))
            if not b.r * diag <= (b.R[k] - b.krad[k]) ** 2:
                return BasinCheck(False, f"the sublevel set {{V <= r}} leaves the box B in coordinate {k}")
        B = box_balls(b.mid, b.R)
        _, J = chart_field(data, B, arb_scalars(), jacobian=True)
        if not all(v.is_finite() for row in J for v in row):
            return BasinCheck(False, "the Jacobian is not finite on B")
        dec = decrease(arb_mat(J), b.S)
        if dec.decay is None:
            return BasinCheck(False, f"V = (y - y*)^T S (y - y*) is not shown to decrease on B: {dec.reason}")
        decay = dec.decay
        points = token_points(data, box_balls(b.mid, b.krad), arb_scalars())
        limit = tuple(tuple(p) for p in points)
    return BasinCheck(True, f"{what}: {kr.reason}; S positive definite; dV/dt <= -{float(decay):.3g} |y - y*|^2 on B "
                            f"(box radius {float(max(b.R)):.3g}); {{V <= {float(b.r):.3g}}} inside B", decay, limit)


@final
@dataclass(frozen=True)
class Decrease:
    decay: Fraction | None
    reason: str


def decrease(J: arb_mat, S: Matrix) -> Decrease:
    """A rational ``c > 0`` with ``-(J^T S + S J) >= c I`` for every matrix ``J`` in the interval
    matrix, or the reason there is none.  With ``M = -(J^T S + S J)`` (arb), a symmetric dyadic
    ``Mc`` (its rounded midpoint), ``mu`` with ``Mc - mu I`` positive semidefinite (exact LDL^T)
    and ``e >= ||M - Mc||_F`` over the intervals (arb): ``lambda_min(M) >= mu - e`` (Weyl)."""
    n = J.nrows()
    Sm = arb_mat([[rational_ball(v) for v in row] for row in S])
    M = -(J.transpose() * Sm + Sm * J)
    if not all(v.is_finite() for v in M.entries()):
        return Decrease(None, "not finite")
    mids = [[(float(M[k, l].mid()) + float(M[l, k].mid())) / 2 for l in range(n)] for k in range(n)]
    Mc = [[Fraction(round(v * 2**40), 2**40) for v in row] for row in mids]
    low = _lowest_eigenvalue(mids)  # only proposes mu; the exact LDL^T below decides it
    if not low > 0:
        return Decrease(None, f"the midpoint of -(J^T S + S J) is not positive definite (float lambda_min {low:.3g})")
    mu = Fraction(round(low * 0.98 * 2**40), 2**40)
    shifted = [[Mc[k][l] - (mu if k == l else 0) for l in range(n)] for k in range(n)]
    if not check_psd(shifted).ok:
        return Decrease(None, f"Mc - {float(mu):.3g} I is not positive semidefinite")
    e2 = arb(0)
    for k in range(n):
        for l in range(n):
            dev = abs(M[k, l] - rational_ball(Mc[k][l])).upper()
            e2 += dev * dev
    e = upper_fraction(e2.sqrt())
    if not mu > e:
        return Decrease(None, f"lambda_min(Mc) >= {float(mu):.3g} but ||M - Mc||_F <= {float(e):.3g}")
    return Decrease(mu - e, f"lambda_min(-(J^T S + S J)) >= {float(mu):.3g} - {float(e):.3g}")


def _lowest_eigenvalue(mids: list[list[float]]) -> float:
    """An estimate of the smallest eigenvalue of the symmetric float matrix ``mids`` (arb's eigenvalue
    solver, no float library on the re-check path; Gershgorin's bound when it cannot separate them)."""
    import math

    from flint import acb_mat

    n = len(mids)
    try:
        values = acb_mat(arb_mat(mids)).eig(nonstop=True)
        low = min(float(v.real.mid()) for v in values)
        if math.isfinite(low):
            return low
    except (ValueError, ZeroDivisionError):
        pass
    return min(mids[k][k] - sum(abs(mids[k][l]) for l in range(n) if l != k) for k in range(n))


def chart_coordinates(charts: Sequence[tuple[int, int]], X: Sequence[Sequence[arb]]) -> list[arb] | None:
    """``y_{i,l} = sign_i x_{i,a} / x_{i,k_i}`` (``a != k_i``) in arb, or None when a pivot
    coordinate is not proved to have the chart's sign (the token may be outside the chart)."""
    out = []
    for (k, sign), x in zip(charts, X):
        piv = x[k] * sign
        if not piv > 0:
            return None
        out.extend(x[a] * sign / x[k] for a in range(len(x)) if a != k)
    return out


def level(b: Basin, X: Sequence[Sequence[arb]]) -> arb | None:
    """An arb ball containing ``V(y) = (y - y*)^T S (y - y*)`` for every ``y`` in the chart image of
    the token balls ``X`` and every ``y*`` in ``K`` (call inside ``flint.ctx.workprec``)."""
    y = chart_coordinates(b.charts, X)
    if y is None:
        return None
    w = [yk - kk for yk, kk in zip(y, box_balls(b.mid, b.krad))]
    n = len(w)
    total = arb(0)
    for i in range(n):
        row = sum((rational_ball(b.S[i][j]) * w[j] for j in range(n) if b.S[i][j]), arb(0))
        total += w[i] * row
    return total


def entered(b: Basin, X: Sequence[Sequence[arb]]) -> bool:
    """The balls ``X`` lie in ``{V < r}`` (decided by arb; False when the balls cannot decide)."""
    v = level(b, X)
    return v is not None and v.is_finite() and bool(v < rational_ball(b.r))


__all__ = ["Basin", "BasinCheck", "KINDS", "check_basin", "chart_coordinates", "consensus_data", "entered",
           "field_data", "level"]
