"""Float proposals for :mod:`.moving` (NumPy / SciPy; outside the trust base: :func:`~.moving.check_moving` proves).

With ``U_s = sum_h U^h`` and its eigenvalues sorted by real part, for every split after the ``k``
rightmost ones (a real-part gap, no conjugate pair cut, the ``k``-th real part ``> 0``):

* ``k = d`` (every real part ``> 0``): no region; ``G`` solves ``(U_s - m I)^T G + G (U_s - m I) = I``
  (``m`` half the smallest real part), or ``G = I`` when ``sym(U_s)`` is positive definite;
* ``k < d``: the block-diagonalising basis ``V`` (real Schur form, Sylvester), ``H_E``, ``H_F`` the
  Lyapunov solutions of the two blocks shifted by ``sigma`` (the gap's middle), the cone
  ``Q = V^{-T} diag(H_E, -s H_F) V^{-1}`` (``s`` narrows it around the dominant subspace ``E``),
  ``gamma`` a fraction of ``min x^T Q x`` over unit ``x`` in ``E``, ``G = V^{-T} diag(G_E, c I) V^{-1}``.

Causal mask with a complex pair on top (token 1 rotates), also: ``G_E`` the metric in which that ``2 x 2`` block
is normal (``x^T G T x = a x^T G x``, :func:`~.moving_causal_hints.normalizer`; ``d = 2``: ``G`` itself) and the
narrow invariant cones ``Q = V^{-T} diag(G_E, -s H_F) V^{-1}``, ``gamma = 0``; the data of step (d') come from
:mod:`.moving_causal_hints`.

Then ``tau2`` maximises the generalised eigenvalue that gives ``mu``, ``tau1`` the margin of step (c),
and ``Dmax`` is 0.9 of the largest diameter both steps allow.  Everything is rounded to dyadic
rationals and every candidate goes through :func:`~.moving.check_moving` (or the ``check`` a caller passes:
:mod:`.head_moving` proves real heads' candidates with balls); a failure costs a fate,
never soundness.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .moving import Moving, Region, check_moving
from .moving_causal_hints import causal_proposal, normalizer
from .problem import FateProblem

BITS = 36
MAX_CANDIDATES = 6


def _down(x: float, bits: int = BITS) -> Fraction:
    return Fraction(math.floor(x * 2**bits), 2**bits)


def _up(x: float, bits: int = BITS) -> Fraction:
    return Fraction(math.ceil(x * 2**bits), 2**bits)


def _mat(A: np.ndarray) -> tuple[tuple[Fraction, ...], ...]:
    """Symmetric dyadic rounding of ``A`` scaled to unit max entry."""
    A = (A + A.T) / 2
    return tuple(tuple(Fraction(round(v * 2**BITS), 2**BITS) for v in row) for row in A / np.max(np.abs(A)))


def _norm_up(A) -> Fraction:
    return _up(float(np.linalg.norm(np.asarray(A, dtype=float), 2)) * (1 + 1e-9) + 2.0**-30)


def _f(M) -> np.ndarray:
    return np.array(M, dtype=float)


def _best(fun, grid):
    vals = [(fun(t), t) for t in grid]
    return max(vals)


def _candidate(problem: FateProblem, G, region, unorm, pnorm, check) -> Moving | None:
    """``mu``, ``tau2``, ``tau1`` and ``Dmax`` for one ``(G, Q, gamma)``, checked exactly (None if refused)."""
    from scipy.linalg import eigh

    U = _f(problem.U_sum())
    Gf = _f(G)
    w = np.linalg.eigvalsh(Gf)
    if w[0] <= 0:
        return None
    g_lo, g_hi = _down(w[0] * (1 - 1e-7)), _up(w[-1] * (1 + 1e-7))
    S = (Gf @ U + U.T @ Gf) / 2
    nU = float(sum(unorm))
    nUP = float(sum(u * p for u, p in zip(unorm, pnorm)))
    beta = float(problem.beta)
    if region is None:
        mu_f, tau2, DM = float(eigh(S, Gf, eigvals_only=True)[0]), 0.0, math.inf
    else:
        Q, gamma = _f(region[0]), float(region[1])
        QmG = Q - gamma * np.eye(len(U))
        scale = np.linalg.norm(S, 2) / max(np.linalg.norm(QmG, 2), 1e-12)
        mu_f, tau2 = _best(lambda t: float(eigh(S - t * QmG, Gf, eigvals_only=True)[0]),
                           [0.0] + list(scale * np.geomspace(1e-3, 10, 40)))
        M0 = Q @ U + U.T @ Q - gamma * (U + U.T)
        sc = np.linalg.norm(M0, 2) / max(np.linalg.norm(QmG, 2), 1e-12)
        m_f, tau1 = _best(lambda t: float(np.linalg.eigvalsh(M0 + t * QmG)[0]), list(sc * np.linspace(-10, 10, 81)))
        qnorm = _norm_up(Q)
        if m_f <= 0:
            return None
        DM = math.inf if problem.mask == "causal" else m_f / (2 * float(qnorm) * nU)
    if mu_f <= 0:
        return None
    mu = _down(0.98 * mu_f)
    reg = None if region is None else Region(region[0], region[1], _down(tau1, 24), qnorm)
    if problem.mask == "causal":
        causal = causal_proposal(problem, float(mu), unorm, pnorm, region, float(g_lo), float(g_hi))
        if causal is None:
            return None
        m = Moving(G, g_lo, g_hi, mu, _down(tau2, 24), tuple(unorm), tuple(pnorm), causal[0], reg, causal[1])
        return m if check(m) else None
    a = nU * (1 + 2 * float(g_hi) / float(g_lo))
    roots = [r.real for r in np.roots([beta / 4 * nUP, beta / 2 * nUP, a, -2 * float(mu)]) if abs(r.imag) < 1e-12 and r.real > 0]
    if not roots:
        return None
    Dmax = _down(0.9 * min(min(roots), DM, 2.0), 24)
    if Dmax <= 0:
        return None
    m = Moving(G, g_lo, g_hi, mu, _down(tau2, 24), tuple(unorm), tuple(pnorm), Dmax, reg)
    return m if check(m) else None


def _splits(ev: np.ndarray) -> list[int]:
    """``k`` such that the ``k`` rightmost eigenvalues are separated from the rest and have real part > 0."""
    re = ev.real
    out = []
    for k in range(1, len(ev) + 1):
        if re[k - 1] <= 1e-9:
            break
        if k == len(ev) or (re[k - 1] - re[k] > 1e-6 * max(1.0, abs(re[0]))):
            out.append(k)
    return out


def _block_basis(U: np.ndarray, sigma: float, k: int):
    """``V`` with ``V^{-1} U V = diag(T11, T22)`` (``T11``: the ``k`` eigenvalues right of ``sigma``)."""
    from scipy.linalg import schur, solve_sylvester

    T, Z, sdim = schur(U, output="real", sort=lambda re, im: re > sigma)
    if sdim != k:
        return None
    T11, T12, T22 = T[:k, :k], T[:k, k:], T[k:, k:]
    Y = solve_sylvester(T11, -T22, -T12)
    d = len(U)
    B = np.eye(d)
    B[:k, k:] = Y
    return Z @ B, T11, T22


def propose_moving(problem: FateProblem, check=None) -> tuple[list[Moving], str]:
    """Checked candidates (best ``Dmax`` first), or ``([], why)``.  ``check(m) -> bool`` decides each candidate
    (default: :func:`~.moving.check_moving` on ``problem``, exactly)."""
    if check is None:
        check = lambda m: check_moving(problem, m).ok  # noqa: E731
    from scipy.linalg import solve_continuous_lyapunov as lyap

    if problem.mask == "causal" and problem.N < 2:
        return [], "one token"
    U = _f(problem.U_sum())
    d = problem.d
    unorm = [_norm_up(Uh) for _, Uh in problem.heads]
    pnorm = [_norm_up(P) for P, _ in problem.heads]
    ev = np.linalg.eigvals(U)
    ev = ev[np.argsort(-ev.real)]
    found: list[Moving] = []
    for k in _splits(ev):
        if k == d:
            tries = []
            if np.linalg.eigvalsh((U + U.T) / 2)[0] > 0:
                tries.append(np.eye(d))
            if d == 2 and normalizer(U) is not None:
                tries.append(normalizer(U))
            A = U - 0.5 * ev.real.min() * np.eye(d)
            tries.append(lyap(A.T, np.eye(d)))
            for G in tries:
                c = _candidate(problem, _mat(G), None, unorm, pnorm, check)
                if c is not None:
                    found.append(c)
            continue
        sigma = (ev.real[k - 1] + max(ev.real[k], 0.0)) / 2
        basis = _block_basis(U, sigma, k)
        if basis is None:
            continue
        V, T11, T22 = basis
        Vi = np.linalg.inv(V)
        HE = lyap((T11 - sigma * np.eye(k)).T, np.eye(k))
        HF = lyap((T22 - sigma * np.eye(d - k)).T, -np.eye(d - k))
        GEs = [lyap((T11 - 0.5 * ev.real[k - 1] * np.eye(k)).T, np.eye(k))]
        if k == 2 and problem.mask == "causal" and normalizer(T11) is not None:
            GEs.append(normalizer(T11))
        for s in (1.0, 8.0, 64.0):
            Qb = np.zeros((d, d))
            Qb[:k, :k], Qb[k:, k:] = HE, -s * HF
            Q = _mat(Vi.T @ Qb @ Vi)
            Qf = _f(Q)
            VE = V[:, :k]
            Qe, Ne = VE.T @ Qf @ VE, VE.T @ VE
            from scipy.linalg import eigh

            gE = float(eigh(Qe, Ne, eigvals_only=True)[0])
            if gE <= 0:
                continue
            for theta in (0.3, 0.6):
                gamma = _down(theta * gE)
                for GE in GEs:
                    for c in (1.0, 0.1):
                        Gb = np.zeros((d, d))
                        Gb[:k, :k], Gb[k:, k:] = GE / np.max(np.abs(GE)), c * np.eye(d - k)
                        cand = _candidate(problem, _mat(Vi.T @ Gb @ Vi), (Q, gamma), unorm, pnorm, check)
                        if cand is not None:
                            found.append(cand)
        if len(GEs) == 2:  # causal, rotating x_1: narrow invariant cones {|z_E|_{G_E}^2 >= s |z_F|_{H_F}^2} (gamma = 0)
            for s in (1e2, 1e4):
                Qb = np.zeros((d, d))
                Qb[:k, :k], Qb[k:, k:] = GEs[1] / np.max(np.abs(GEs[1])), -s * HF / np.max(np.abs(HF))
                for c in (1.0, 0.1):
                    Gb = np.zeros((d, d))
                    Gb[:k, :k], Gb[k:, k:] = GEs[1] / np.max(np.abs(GEs[1])), c * np.eye(d - k)
                    cand = _candidate(problem, _mat(Vi.T @ Gb @ Vi), (_mat(Vi.T @ Qb @ Vi), Fraction(0)), unorm, pnorm, check)
                    if cand is not None:
                        found.append(cand)
    if not found:
        extra = (" and, causal, step (d'): p mu above the self-attention bound of token 2, about half of lambda_max(sym U_s)"
                 " or of the tangent trace of sym U_s" if problem.mask == "causal" else "")
        return [], ("no moving-consensus certificate (no rightmost eigenvalues of U_s with real part > 0 "
                    f"and a region on which x^T G U_s x >= mu x^T G x was proved{extra})")
    found.sort(key=lambda m: -float(m.Dmax) * float(m.g_lo / m.g_hi) * (
        1.0 if m.causal is None else math.sqrt(float(min(m.causal.c) / max(m.causal.c)))))
    return found[:MAX_CANDIDATES], f"{len(found)} candidate(s)"


__all__ = ["propose_moving"]
