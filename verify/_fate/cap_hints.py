"""Float proposals of a :class:`~.cap.Cap` (outside the trust base: :func:`~.cap.check_cap` decides).

For the float consensus point ``y1*`` (Newton on the one-token field) and the one-token Jacobian
``J1`` there (the mean mode ``A - lambda``):

* ``G``: a factor of the solution of ``J1^T S + S J1 = -I`` (SciPy), so ``mu_2(G J1 G^{-1}) < 0``;
* ``Phi0 = blockdiag(G_b) (Q kron I_m)`` with ``Q = I`` (*tokens*: every token its own block, the
  causal mask's triangular coupling) or, full mask, ``Q`` = (mean, deviations ``e_b - mean``,
  ``b >= 2``) (*mean*: at ``y*`` the mean mode and the deviations decouple, rate ``-lambda``);
* for radii ``R = 1/2 (3/5)^k``: the arb Jacobian on ``B``, ``M0 = Phi0 J(B) Phi0^{-1}``, float
  upper estimates of ``t_b`` and ``s_bc`` (Weyl: midpoint norm plus the radius' Frobenius norm),
  weights ``omega = -Mz^{-1} 1 > 0`` of the Metzler matrix ``Mz`` (``t`` on, ``s`` off the diagonal)
  and ``Phi = diag(1/omega_b) Phi0``; the first ``R`` whose cap :func:`~.cap.check_cap` proves wins.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb_mat, ctx

from verify.equilibrium.chart_field import chart_field
from verify.equilibrium.krawczyk import arb_scalars, box_balls, rational_ball
from verify.equilibrium.search import FLOATS

from .basin import consensus_data, field_data
from .cap import Cap, check_cap
from .problem import FateProblem

PRECISION = 128
KRAD = Fraction(1, 2**30)
RADII = tuple(Fraction(1, 2) * Fraction(3, 5) ** k for k in range(12))


def _dyadic(v: float, bits: int = 40) -> Fraction:
    return Fraction(round(v * 2**bits), 2**bits)


def _up(v: float) -> Fraction:
    """A dyadic rational ``>= v`` (a little above)."""
    v = v + abs(v) * 1e-6 + 1e-14
    m, e = math.frexp(v)
    return Fraction(math.ceil(m * 2**30)) * Fraction(2) ** (e - 30)


def _lyapunov_factor(J1: np.ndarray) -> np.ndarray | None:
    from scipy.linalg import solve_continuous_lyapunov

    if not np.max(np.linalg.eigvals(J1).real) < 0:
        return None
    try:
        S = solve_continuous_lyapunov(J1.T, -np.eye(len(J1)))
        S = (S + S.T) / 2
        return np.linalg.cholesky(S / np.max(np.abs(S))).T
    except (np.linalg.LinAlgError, ValueError):
        return None


def _q_matrix(kind: str, N: int) -> np.ndarray:
    if kind == "tokens" or N == 1:
        return np.eye(N)
    Q = np.zeros((N, N))
    Q[0, :] = 1.0 / N
    for b in range(1, N):
        Q[b, :] = -1.0 / N
        Q[b, b] += 1.0
    return Q


def _bounds(M: arb_mat, N: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Float upper estimates of ``mu_2(M_bb)`` and ``||M_bc||_2`` (midpoint plus radius, Weyl)."""
    n = N * m
    mid = np.array([[float(M[i, j].mid()) for j in range(n)] for i in range(n)])
    rad = np.array([[float(M[i, j].rad()) for j in range(n)] for i in range(n)])
    t, s = np.zeros(N), np.zeros((N, N))
    for b in range(N):
        sl = slice(b * m, (b + 1) * m)
        for c in range(N):
            sc = slice(c * m, (c + 1) * m)
            slack = float(np.linalg.norm(rad[sl, sc]))
            if b == c:
                D = mid[sl, sl]
                t[b] = float(np.max(np.linalg.eigvalsh((D + D.T) / 2))) + slack
            elif np.any(mid[sl, sc]) or slack > 0:
                s[b, c] = float(np.linalg.norm(mid[sl, sc], 2)) + slack
    return t, s


def _cap_for(problem: FateProblem, chart, y1, Phi0: np.ndarray, R: Fraction) -> Cap | None:
    N, m = problem.N, problem.d - 1
    n = N * m
    mid = tuple(_dyadic(v) for v in y1)
    data = field_data(problem, (chart,) * N)
    Phi0q = [[_dyadic(float(v), 40) for v in row] for row in Phi0]
    P0 = np.array(Phi0q, dtype=float)
    with ctx.workprec(PRECISION):
        _, J = chart_field(data, box_balls(mid * N, (R,) * n), arb_scalars(), jacobian=True)
        if not all(v.is_finite() for row in J for v in row):
            return None
        A0 = arb_mat([[rational_ball(v) for v in row] for row in Phi0q])
        M0 = A0 * arb_mat(J) * arb_mat(np.linalg.inv(P0).tolist())
        if not all(v.is_finite() for v in M0.entries()):
            return None
        t, s = _bounds(M0, N, m)
    Mz = s + np.diag(t)
    try:
        omega = np.linalg.solve(-Mz, np.ones(N))
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(omega)) or np.min(omega) <= 0:
        return None
    omega = omega / np.max(omega)
    wq = [_dyadic(float(v), 30) for v in omega]
    if min(wq) <= 0:
        return None
    Phi = tuple(tuple(v / wq[r // m] for v in Phi0q[r]) for r in range(n))
    sq = tuple(tuple(Fraction(0) if s[b, c] == 0 else _up(s[b, c] * float(wq[c] / wq[b]) * (1 + 1e-4))
                     for c in range(N)) for b in range(N))
    tq = tuple(_up(v + 1e-9 * (1 + abs(v))) for v in t)
    Pinv = np.linalg.inv(np.array(Phi, dtype=float))
    reach = max(sum(float(np.linalg.norm(Pinv[k, b * m:(b + 1) * m])) for b in range(N)) for k in range(n))
    eps = _dyadic(float(R - KRAD) / reach * (1 - 1e-6), 40)
    if eps <= 0:
        return None
    return Cap(chart, mid, (KRAD,) * m, Phi, eps, R, tq, sq, PRECISION)


def propose_cap(problem: FateProblem, y1: list[float], chart: tuple[int, int]) -> tuple[Cap | None, str]:
    """The cap with the largest box radius that :func:`~.cap.check_cap` proves, or the reason there is none."""
    from .hints import newton

    N, m = problem.N, problem.d - 1
    y1, res = newton(consensus_data(problem, chart), list(y1))
    if not res < 1e-13:
        return None, f"Newton did not converge on the consensus point (residual {res:.3g})"
    _, rows = chart_field(consensus_data(problem, chart), y1, FLOATS, jacobian=True)
    G = _lyapunov_factor(np.array(rows, dtype=float))
    if G is None:
        return None, "the consensus point is not stable for the one-token field (no Lyapunov factor)"
    kinds = ("mean", "tokens") if problem.mask == "full" and N > 1 else ("tokens",)
    last = "no radius tried"
    for kind in kinds:
        Phi0 = np.kron(np.eye(N), G) @ np.kron(_q_matrix(kind, N), np.eye(m))
        if kind == "mean":  # deviations decay at rate lambda in every norm: keep them Euclidean
            Phi0 = np.kron(np.diag([1.0] + [0.0] * (N - 1)), G) @ np.kron(_q_matrix(kind, N), np.eye(m)) \
                + np.kron(np.diag([0.0] + [1.0] * (N - 1)), np.eye(m)) @ np.kron(_q_matrix(kind, N), np.eye(m))
        for R in RADII:
            cap = _cap_for(problem, chart, y1, Phi0, R)
            if cap is None:
                continue
            check = check_cap(problem, cap)
            if check.ok:
                return cap, check.reason
            last = check.reason
            if "Krawczyk" in last:
                return None, f"no cap certified: {last}"
    return None, f"no cap certified ({' / '.join(kinds)} norms): {last}"


def propose_cap_near(problem: FateProblem, X: np.ndarray) -> tuple[Cap | None, str]:
    """:func:`propose_cap` around the mean of the float state ``X`` when its tokens agree (a consensus hint)."""
    from .hints import CONSENSUS, chart_of, to_chart

    spread = max(float(np.linalg.norm(X[i] - X[j])) for i in range(len(X)) for j in range(len(X)))
    if not spread < CONSENSUS:
        return None, "the float limit is not a consensus"
    x = X.mean(axis=0)
    x = x / np.linalg.norm(x)
    chart = chart_of(x)
    return propose_cap(problem, to_chart(x, chart), chart)


__all__ = ["propose_cap", "propose_cap_near"]
