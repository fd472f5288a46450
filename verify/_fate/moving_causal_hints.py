"""Float proposals for the causal lemma of :mod:`.moving_causal` (NumPy; outside the trust base).

For one ``(G, region, mu)`` of :mod:`.moving_hints`: ``lam_h``, ``lam_s``, ``ell_h`` (rounded eigenvalues of
``sym U^h``), ``q_lo`` with its S-lemma multiplier ``tau3`` (a grid), then a grid over ``Dmax`` and ``eta``, with
one exponent ``p`` for every token or each ``p_k`` best for its own margin; the weights ``c_l`` by the backward
recursion ``c_l (base_l - kappa) = sum_{k > l} c_k alpha_k rho_lk / eta`` (``c_N = 1``).  The score is the entry
radius ``Dmax sqrt(min_l c_l g_hi^{-p_l} / max_k c_k g_lo^{-p_k})``.
Every proposal is re-proved by :func:`~.moving.check_moving`; a bad one costs a fate, never soundness.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .moving_causal import Causal
from .problem import FateProblem

_P = tuple(sorted({Fraction(1), Fraction(7, 5), Fraction(8, 5), Fraction(7, 4)} | {1 + Fraction(1, k) for k in range(2, 9)}))
_DMAX = (1e-2, 3e-3, 1e-3, 3e-4, 1e-4)
_ETA = (0.02, 0.05, 0.1, 0.2, 0.5)


def _down(x: float, bits: int = 36) -> Fraction:
    return Fraction(math.floor(x * 2**bits), 2**bits)


def _up(x: float, bits: int = 36) -> Fraction:
    return Fraction(math.ceil(x * 2**bits), 2**bits)


def _sym(A) -> np.ndarray:
    A = np.array(A, dtype=float)
    return (A + A.T) / 2


def normalizer(T: np.ndarray) -> np.ndarray | None:
    """``S^{-T} S^{-1}`` for a real 2x2 ``T = S [[a, b], [-b, a]] S^{-1}`` (complex eigenvalues), else None:
    in that metric ``T`` is normal and ``x^T G T x = a x^T G x``."""
    T = np.asarray(T, dtype=float)
    if T.shape != (2, 2):
        return None
    w, V = np.linalg.eig(T)
    if abs(w[0].imag) < 1e-9:
        return None
    S = np.column_stack([V[:, 0].real, V[:, 0].imag])
    Si = np.linalg.inv(S)
    return Si.T @ Si


def _q_lo(problem: FateProblem, region) -> tuple[Fraction, Fraction]:
    """``(q_lo, tau3)``: a lower bound of ``q`` on the region by ``lambda_min(S_s - tau3 (Q - gamma I))``."""
    S = _sym(problem.U_sum())
    if region is None:
        return _down(float(np.linalg.eigvalsh(S)[0]) - 2.0**-24), Fraction(0)
    QmG = np.array(region[0], dtype=float) - float(region[1]) * np.eye(len(S))
    scale = np.linalg.norm(S, 2) / max(np.linalg.norm(QmG, 2), 1e-12)
    best = max((float(np.linalg.eigvalsh(S - t * QmG)[0]), t) for t in [0.0] + list(scale * np.geomspace(1e-3, 10, 40)))
    tau3 = _down(best[1], 24)
    val = float(np.linalg.eigvalsh(S - float(tau3) * QmG)[0])
    return _down(val - 1e-7 * (1 + abs(val))), tau3


def _theta(N, d, p, lam, lam_s, ch, qlo, u, y, D):
    """Float ``Th_k`` of (d') for ``k = 0..N`` (entries 0, 1 unused)."""
    out = [0.0, 0.0]
    for k in range(2, N + 1):
        abar = [1 / (k * (1 - yh)) for yh in y]
        eps = [yh / ((1 - yh) * k) for yh in y]
        lam_k = min(sum(max(lh, 0.0) * a for lh, a in zip(lam, abar)), lam_s / k + sum(uh * e for uh, e in zip(u, eps)))
        a_ = lam_k + max((p - 1) * qlo, (p - 1) * lam_s)
        C = sum(ch)
        err = sum(e * (abs(v) + uh) + a * (uh * D + D * D * (2 * uh + abs(v)) / 4) for e, a, uh, v in zip(eps, abar, u, ch))
        b_ = max(C / k + (p - 1 - 1 / k) * q for q in (qlo, lam_s)) + err
        out.append(min(a_, b_))
    return out


def causal_proposal(problem: FateProblem, mu: float, unorm, pnorm, region, g_lo: float, g_hi: float):
    """``(Dmax, Causal)`` for step (d') of :mod:`.moving_causal`, or None."""
    N, d, beta = problem.N, problem.d, float(problem.beta)
    lam = [_up(float(np.linalg.eigvalsh(_sym(U))[-1]) + 2.0**-30) for _, U in problem.heads]
    lam_s = _up(float(np.linalg.eigvalsh(_sym(problem.U_sum()))[-1]) + 2.0**-30)
    ell = tuple(_down(float(np.linalg.eigvalsh(_sym(U))[0]) - 2.0**-30) for _, U in problem.heads)
    q_lo, tau3 = _q_lo(problem, region)
    u, pf = [float(v) for v in unorm], [float(v) for v in pnorm]
    ch = [float(np.trace(np.array(U, dtype=float))) - (d - 2) * float(lv) for (_, U), lv in zip(problem.heads, ell)]
    nU = sum(u)
    best = None
    for Dmax in _DMAX:
        y = [2 * beta * ph * Dmax for ph in pf]
        if max(y) >= 0.5:
            continue
        th = {p: _theta(N, d, float(p), [float(v) for v in lam], float(lam_s), ch, float(q_lo), u, y, Dmax) for p in _P}
        alpha = [0.0, 0.0] + [sum(uh / (k * (1 - yh)) for uh, yh in zip(u, y)) for k in range(2, N + 1)]
        for eta in _ETA:
            margin = {p: {l: 2 * float(p) * mu - 2 * th[p][l] - 2 * nU * Dmax - (l - 2) * eta * alpha[l]
                          for l in range(2, N + 1)} for p in _P}
            per_k = {l: max(_P, key=lambda p: margin[p][l]) for l in range(2, N + 1)}
            for P in [{l: p for l in range(2, N + 1)} for p in _P] + [per_k]:
                base = {l: margin[P[l]][l] for l in range(2, N + 1)}
                if min(base.values()) <= 0:
                    continue
                kap = 0.5 * min(base.values())
                c = {N: 1.0}
                for l in range(N - 1, 1, -1):
                    rho = {k: max(g ** float(P[l] - P[k]) for g in (g_lo, g_hi)) for k in range(l + 1, N + 1)}
                    c[l] = max(sum(c[k] * alpha[k] * rho[k] for k in range(l + 1, N + 1)) / (eta * (base[l] - kap)), 1.0)
                lo, hi = min(c[l] * g_hi ** -float(P[l]) for l in c), max(c[l] * g_lo ** -float(P[l]) for l in c)
                score = Dmax * math.sqrt(lo / hi)
                if best is None or score > best[0]:
                    best = (score, tuple(P[l] for l in range(2, N + 1)), Dmax, eta, c)
    if best is None:
        return None
    _, P, Dmax, eta, c = best
    top = max(c.values())
    cq = tuple(_up(c[k] / top * (1 + 1e-9), 40) for k in range(2, N + 1))
    return _down(Dmax, 30), Causal(cq, _down(eta, 30), tuple(lam), lam_s, () if set(P) == {1} else P, q_lo, tau3, ell)

__all__ = ["causal_proposal", "normalizer"]
