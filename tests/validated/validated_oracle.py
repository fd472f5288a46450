"""Independent high-precision oracles for the validated integrators (shares no code with
``verify.validated`` and does not use python-flint).

Arithmetic is binary fixed point on exact Python integers with ``FRAC`` fractional bits (about 60
digits); ``mpmath`` (a private context) evaluates ``exp`` and converts the results.  Rounding
errors are a few units in the last place per operation, far below the truncation target.

:func:`ode_solution` integrates eq. 5 with its own Taylor method, formulated differently from the
code under test: the attention weights ``A = E / Z`` are expanded entry by entry (series division
first), then ``G = sum_h A^h (X U^{hT})`` and ``F = G - diag(<x_i, G_i>) X``.  The order is
``ORDER``; each step is chosen so that the last two terms of the series are below ``2^-TRUNC``
(Jorba–Zou), about ``10^-48``: an estimate (the oracle is evidence, not a proof), checked
against a run with half the steps in ``test_oracle_self_consistency``.

:func:`layer_solution` iterates eq. 4; :func:`equiangular_crossing` is the exact crossing time of
the equiangular reduction (``mpmath.quad``).
"""
from __future__ import annotations

import math
from fractions import Fraction
from math import isqrt

import mpmath
import numpy as np

FRAC = 200
ORDER = 40
TRUNC = 130
ONE = 1 << FRAC


def fix(q) -> int:
    q = Fraction(q)
    return (q.numerator * ONE * 2 + q.denominator) // (2 * q.denominator)


def fix_array(rows) -> np.ndarray:
    return np.array([[fix(v) for v in row] for row in rows], dtype=object)


def to_fraction(v: int) -> Fraction:
    return Fraction(v, ONE)


def _normalize(X: np.ndarray) -> np.ndarray:
    out = []
    for row in X:
        norm = isqrt(sum(v * v for v in row))  # sqrt(sum v^2) in the same scale
        out.append([(v << FRAC) // norm for v in row])
    return np.array(out, dtype=object)


def _exp(ctx, v: int) -> int:
    return int(ctx.floor(ctx.exp(ctx.mpf(v) / ONE) * ONE))


def _zeros(shape) -> np.ndarray:
    return np.zeros(shape, dtype=object) * 0


def _coefficients(ctx, X0, P, U, beta, causal, K):
    N, d = X0.shape
    mask = [[(j <= i) or not causal for j in range(N)] for i in range(N)]
    Xs = [X0]
    heads = [{"Y": [], "S": [], "E": [], "Z": [], "A": [], "W": []} for _ in P]
    Gs, Rs = [], []
    for k in range(K):
        G = _zeros((N, d))
        for (Ph, Uh), st in zip(zip(P, U), heads):
            st["Y"].append((Xs[k] @ Ph) >> FRAC)                   # rows (P^T x_i)^T
            S = _zeros((N, N))
            for m in range(k + 1):
                S = S + st["Y"][m] @ Xs[k - m].T
            S = ((S >> FRAC) * beta) >> FRAC
            st["S"].append(S)
            if k == 0:
                E = np.array([[_exp(ctx, S[i, j]) if mask[i][j] else 0 for j in range(N)] for i in range(N)],
                             dtype=object)
            else:
                acc = _zeros((N, N))
                for m in range(1, k + 1):
                    acc = acc + st["S"][m] * st["E"][k - m] * m
                E = (acc >> FRAC) // k
            st["E"].append(E)
            st["Z"].append(E.sum(axis=1))
            num = E << FRAC
            for m in range(1, k + 1):
                num = num - st["Z"][m][:, None] * st["A"][k - m]
            Z0 = st["Z"][0]
            st["A"].append(np.array([[num[i, j] // Z0[i] for j in range(N)] for i in range(N)], dtype=object))
            st["W"].append((Xs[k] @ Uh.T) >> FRAC)
            acc = _zeros((N, d))
            for m in range(k + 1):
                acc = acc + st["A"][m] @ st["W"][k - m]
            G = G + (acc >> FRAC)
        Gs.append(G)
        R = _zeros(N)
        for m in range(k + 1):
            R = R + (Xs[m] * Gs[k - m]).sum(axis=1)
        Rs.append(R >> FRAC)
        F = Gs[k] * ONE
        for m in range(k + 1):
            F = F - Rs[m][:, None] * Xs[k - m]
        Xs.append((F >> FRAC) // (k + 1))
    return Xs


def _log2_size(M) -> float:
    top = max(abs(int(v)) for v in M.flat)
    return -math.inf if top == 0 else math.log2(top) - FRAC


def _integrate(ctx, X, P, U, beta, causal, times, hmax: float):
    out = []
    t = Fraction(0)
    for target in times:
        while t < target:
            Xs = _coefficients(ctx, X, P, U, beta, causal, ORDER)
            h = min(hmax, float(target - t))
            for j in (ORDER - 1, ORDER):
                size = _log2_size(Xs[j])
                if size > -math.inf:
                    h = min(h, 2.0 ** ((-TRUNC - size) / j))
            step = target - t if h >= float(target - t) * (1 - 1e-12) else Fraction(h).limit_denominator(2 ** 40)
            hs = fix(step)
            acc = Xs[-1]
            for c in reversed(Xs[:-1]):
                acc = c + ((acc * hs) >> FRAC)
            X, t = acc, t + step
        out.append(X)
    return out


def ode_solution(tokens, P, U, beta, mask, times, hmax: float = 0.25, normalize: bool = True):
    """Eq. 5 at the exact rational ``times`` (increasing): a list of ``(N, d)`` arrays of exact
    fractions.  ``tokens`` are rational rows (normalised here unless ``normalize=False``: eq. 5 is
    defined off the sphere too); ``P``, ``U`` lists of rational matrices; ``beta`` rational;
    ``mask`` ``"full"`` or ``"causal"``."""
    ctx = mpmath.MPContext()
    ctx.prec = FRAC + 64
    X = _normalize(fix_array(tokens)) if normalize else fix_array(tokens)
    Pm, Um = [fix_array(p) for p in P], [fix_array(u) for u in U]
    times = [Fraction(t) for t in times]
    sols = _integrate(ctx, X, Pm, Um, fix(beta), mask == "causal", times, hmax)
    return [[[to_fraction(v) for v in row] for row in S] for S in sols]


def layer_solution(tokens, P, U, beta, mask, tau, layers: int):
    """Eq. 4 iterated ``layers`` times: a list (index = layer) of ``(N, d)`` fraction arrays."""
    ctx = mpmath.MPContext()
    ctx.prec = FRAC + 64
    X = _normalize(fix_array(tokens))
    Pm, Um = [fix_array(p) for p in P], [fix_array(u) for u in U]
    b, t = fix(beta), fix(tau)
    N = X.shape[0]
    out = [X]
    for _ in range(layers):
        G = _zeros(X.shape)
        for Ph, Uh in zip(Pm, Um):
            S = (((X @ Ph) >> FRAC) @ X.T >> FRAC) * b >> FRAC
            W = (X @ Uh.T) >> FRAC
            for i in range(N):
                keys = range(i + 1) if mask == "causal" else range(N)
                e = {j: _exp(ctx, S[i, j]) for j in keys}
                Z = sum(e.values())
                for j in keys:
                    G[i] = G[i] + (e[j] * W[j]) // Z
        X = _normalize(X + ((G * t) >> FRAC))
        out.append(X)
    return [[[to_fraction(v) for v in row] for row in S] for S in out]


def equiangular_crossing(N: int, beta, rho0, eps, digits: int = 50):
    """``T`` with ``1 - rho(T) = eps`` for ``rho' = 2 e^{beta rho} (1 - rho) ((N-1) rho + 1) /
    (e^beta + (N-1) e^{beta rho})``, ``rho(0) = rho0``: ``T = int_{rho0}^{1-eps} drho / f(rho)``,
    as an ``mpf`` of a private ``digits``-digit context."""
    ctx = mpmath.MPContext()
    ctx.dps = digits
    b, r0, e = (ctx.mpf(Fraction(v).numerator) / Fraction(v).denominator for v in (beta, rho0, eps))

    def f(r):
        return 2 * ctx.exp(b * r) * (1 - r) * ((N - 1) * r + 1) / (ctx.exp(b) + (N - 1) * ctx.exp(b * r))

    return ctx.quad(lambda r: 1 / f(r), [r0, (r0 + 1 - e) / 2, 1 - e])
