"""Float hints for a fate (outside the trust base: they only propose what :mod:`.basin` proves).

1. :func:`simulate`: DOP853 (SciPy, float64) from the instance's tokens, in doubling chunks until
   the field is below ``1e-11``, ``t_sim`` is reached, or (from ``t = 155``) the field no longer halves
   over a chunk (rotation: no limit to propose): the candidate limit.
2. :func:`propose_basin`: Newton's method on the chart field (float) from that limit, the float
   Jacobian ``A`` (stable or no candidate), ``S`` solving ``A^T S + S A = -I`` (SciPy), rounded
   to dyadic rationals, then the largest box ``B = mid +- R`` (``R = (1/2)(3/5)^k``, ``k < 24``: down to
   ``4.7e-6``, which a slow, non-normal equilibrium needs) on which
   :func:`~.basin.check_basin` proves the decrease, and the largest level ``r`` that fits.

Every proposal goes through :func:`~.basin.check_basin`; a rejected one costs a fate ("unknown"),
never soundness.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from verify.equilibrium.chart_field import chart_field
from verify.equilibrium.search import FLOATS

from .basin import Basin, check_basin, consensus_data, field_data
from .problem import FateProblem

KRAD = Fraction(1, 2**30)
MID_BITS = 40
PRECISION = 128
RADII = tuple(Fraction(1, 2) * Fraction(3, 5) ** k for k in range(24))
SETTLED = 1e-11
CONSENSUS = 1e-5
"""A float limit counts as consensus when every pair of tokens is closer than this."""


def float_field(problem: FateProblem, X: np.ndarray) -> np.ndarray:
    """Eq. 5 in float64 (hints only), projected with ``|x_i|^2``: ``v - <x, v> x / |x|^2`` is tangent to
    the sphere of radius ``|x_i|``, so rounding drift in the norm stays neutral.  With ``v - <x, v> x``
    the norm obeys ``d|x|^2/dt = 2 <x, v> (1 - |x|^2)``, unstable wherever ``<x, v> < 0`` (general ``U``):
    over a long chunk the float state left the sphere and the simulation reported rotation for
    instances that settle."""
    N = X.shape[0]
    total = np.zeros_like(X)
    mask = np.tril(np.ones((N, N), bool)) if problem.mask == "causal" else np.ones((N, N), bool)
    for P, U in problem.float_heads():
        L = float(problem.beta) * (X @ P @ X.T)
        L = np.where(mask, L, -np.inf)
        L = L - L.max(axis=1, keepdims=True)
        W = np.exp(L)
        W /= W.sum(axis=1, keepdims=True)
        total += W @ (X @ U.T)
    return total - (np.sum(total * X, axis=1, keepdims=True) / np.sum(X * X, axis=1, keepdims=True)) * X


def simulate(problem: FateProblem, t_sim: float = 400.0) -> tuple[np.ndarray, float, float]:
    """``(X(t), t, |field|)`` at the first chunk end with a settled field, or at ``t_sim``."""
    from scipy.integrate import solve_ivp

    N, d = problem.N, problem.d
    X = problem.float_tokens()
    t, chunk = 0.0, 5.0
    res = float(np.max(np.abs(float_field(problem, X))))
    previous = math.inf
    while t < t_sim and res > SETTLED:
        if t >= 155 and res > 1e-6 and res > previous / 2:
            break  # the field no longer decays over a doubling chunk: rotation or oscillation, no limit to propose
        previous = res
        span = min(chunk, t_sim - t)
        sol = solve_ivp(lambda _, y: float_field(problem, y.reshape(N, d)).ravel(), (0.0, span), X.ravel(),
                        method="DOP853", rtol=1e-11, atol=1e-13)
        X = sol.y[:, -1].reshape(N, d)
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        t += span
        chunk *= 2
        res = float(np.max(np.abs(float_field(problem, X))))
    return X, t, res


def chart_of(x: np.ndarray) -> tuple[int, int]:
    k = int(np.argmax(np.abs(x)))
    return k, (1 if x[k] > 0 else -1)


def to_chart(x: np.ndarray, chart: tuple[int, int]) -> list[float]:
    k, s = chart
    return [s * float(x[a]) / float(x[k]) for a in range(len(x)) if a != k]


def newton(data, y: list[float], steps: int = 50) -> tuple[list[float], float]:
    res = math.inf
    for _ in range(steps):
        values, rows = chart_field(data, y, FLOATS, jacobian=True)
        res = float(np.max(np.abs(values)))
        if res < 1e-15:
            break
        try:
            y = list(np.asarray(y) - np.linalg.solve(np.array(rows), np.array(values)))
        except np.linalg.LinAlgError:
            return y, math.inf
        if not all(math.isfinite(v) and abs(v) < 1e6 for v in y):
            return y, math.inf
    return y, res


def dyadic(v: float, bits: int) -> Fraction:
    return Fraction(round(v * 2**bits), 2**bits)


def dyadic_down(v: float, bits: int = 30) -> Fraction:
    m, e = math.frexp(v)
    return Fraction(math.floor(m * 2**bits)) * Fraction(2) ** (e - bits)


def lyapunov(A: np.ndarray) -> tuple[tuple[Fraction, ...], ...] | None:
    """A dyadic symmetric ``S`` close to the solution of ``A^T S + S A = -I`` (None unless positive definite in float)."""
    from scipy.linalg import solve_continuous_lyapunov

    S = solve_continuous_lyapunov(A.T, -np.eye(len(A)))
    S = (S + S.T) / 2
    if not np.all(np.isfinite(S)) or np.min(np.linalg.eigvalsh(S)) <= 0:
        return None
    bits = 40 - math.ceil(math.log2(float(np.max(np.abs(S)))))
    return tuple(tuple(dyadic(float(v), bits) for v in row) for row in S)


def cluster(X: np.ndarray, tol: float = 1e-6) -> list[int]:
    """Cluster label of every token (first token of each cluster names it)."""
    labels: list[int] = []
    for i, x in enumerate(X):
        labels.append(next((labels[j] for j in range(i) if np.linalg.norm(X[j] - x) < tol), i))
    return labels


def propose_basin(problem: FateProblem, X: np.ndarray) -> tuple[Basin | None, str]:
    """A basin around the equilibrium near the float state ``X`` (consensus or not), checked."""
    N, d = problem.N, problem.d
    m = d - 1
    spread = max(float(np.linalg.norm(X[i] - X[j])) for i in range(N) for j in range(N))
    consensus = spread < CONSENSUS
    if consensus:
        x = X.mean(axis=0)
        x /= np.linalg.norm(x)
        chart = chart_of(x)
        y1, res = newton(consensus_data(problem, chart), to_chart(x, chart))
        if not res < 1e-13:
            return None, f"Newton did not converge on the consensus point (residual {res:.3g})"
        charts = (chart,) * N
        y = list(y1) * N
    else:
        labels = cluster(X)
        charts = tuple(chart_of(X[labels[i]]) for i in range(N))
        y = [v for i in range(N) for v in to_chart(X[labels[i]], charts[i])]
    data = field_data(problem, charts)
    if not consensus:
        y, res = newton(data, y)
        if not res < 1e-13:
            return None, f"Newton did not converge on the equilibrium (residual {res:.3g})"
        if problem.mask == "full":  # tokens of one cluster share one box: equal by uniqueness and symmetry
            labels = cluster(np.array([y[i * m:(i + 1) * m] for i in range(N)]), 1e-9)
            y = [y[labels[i] * m + a] for i in range(N) for a in range(m)]
    _, rows = chart_field(data, y, FLOATS, jacobian=True)
    A = np.array(rows, dtype=float)
    worst = float(np.max(np.linalg.eigvals(A).real))
    if not worst < 0:
        what = "consensus point" if consensus else "equilibrium"
        return None, f"the {what} is not asymptotically stable (a float eigenvalue has real part {worst:.3g})"
    S = lyapunov(A)
    if S is None:
        return None, "no positive definite Lyapunov matrix was found in float"
    Sinv = np.diag(np.linalg.inv(np.array(S, dtype=float)))
    mid = tuple(dyadic(v, MID_BITS) for v in y)
    krad = (KRAD,) * len(mid)
    last = ""
    for R in RADII:
        r = dyadic_down(float(min((R - KRAD) ** 2 / s for s in Sinv)) * (1 - 1e-9))
        basin = Basin("consensus" if consensus else "equilibrium", charts, mid, krad, (R,) * len(mid), S, r, PRECISION)
        check = check_basin(problem, basin)
        if check.ok:
            return basin, check.reason
        last = check.reason
        if "Krawczyk" in last or last.startswith("S is not"):
            break
    return None, f"no basin certified: {last}"


__all__ = ["chart_of", "cluster", "float_field", "newton", "propose_basin", "simulate"]
