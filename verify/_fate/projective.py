"""One head: consensus by the projective contraction once the tokens share a half-space (no basin, no simulation).

For a constant instance with one head, :mod:`.contraction` proves: if ``U`` has a real eigenvalue
``lambda > 0`` with left eigenvector ``w``, a norm ``|.|_S`` on ``ker w`` with ``|U e|_S <= rho |e|_S``,
``rho < lambda``, and every token has ``sign <w, x_i> > 0``, then every token converges to
``sign v/|v|`` (``U v = lambda v``, ``<w, v> = 1``), for any ``P``, ``beta`` and mask.  The system is
autonomous, so the hypothesis may hold at a later time ``T`` (the validated enclosure, :mod:`.flow`).

:class:`Projective` stores exact data: the Krawczyk box of ``(lambda, w)`` (``w_k = 1``), ``rho``,
``S``, the sign, and a Krawczyk box of a right eigenpair ``(lambda', v)`` (``v_kv = 1``).
:func:`check_projective` (arb balls only) proves the spectral part (:func:`~.contraction.spectral_check`),
the right pair, and ``lambda' > rho``: the spectrum of ``U`` is ``lambda`` and that of ``U`` on
``ker w`` (modulus ``<= rho``), so ``lambda' = lambda`` (simple) and ``v`` spans its eigenspace; the
limit is ``sign sgn(<w, v>) v/|v|`` (balls).  :func:`half_space` is the entry test on the token balls.

Not guaranteed: that the tokens ever share the half-space (a straddling start may end elsewhere).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import final

from flint import arb, arb_mat, ctx

from verify.equilibrium.krawczyk import rational_ball

from .contraction import _eig_box, spectral_check
from .problem import FateProblem, Matrix

PRECISION = 192
FLOOR = Fraction(1, 2**40)
"""Smallest Krawczyk radius proposed (the rounded float eigenpair is off by about 1e-16)."""


@final
@dataclass(frozen=True)
class Projective:
    k: int
    mid: tuple[Fraction, ...]
    rad: Fraction
    rho: Fraction
    S: Matrix
    sign: int
    kv: int
    vmid: tuple[Fraction, ...]
    vrad: Fraction


@final
@dataclass(frozen=True)
class ProjectiveCheck:
    ok: bool
    reason: str
    w: list | None = None
    limit: tuple | None = None


def _U(problem: FateProblem) -> arb_mat:
    (_, U), = problem.heads
    return arb_mat([[rational_ball(v) for v in row] for row in U])


def check_projective(problem: FateProblem, c: Projective) -> ProjectiveCheck:
    d = problem.d
    if len(problem.heads) != 1:
        return ProjectiveCheck(False, "the projective route needs exactly one head")
    if not (0 <= c.k < d and 0 <= c.kv < d and c.sign in (1, -1) and len(c.mid) == d and len(c.vmid) == d
            and c.rad > 0 and c.vrad > 0 and len(c.S) == d - 1 and all(len(r) == d - 1 for r in c.S)):
        return ProjectiveCheck(False, f"malformed data (pivots in 0..{d - 1}, sign +-1, {d} box entries, S {d - 1}x{d - 1})")
    if any(c.S[i][j] != c.S[j][i] for i in range(d - 1) for j in range(i)):
        return ProjectiveCheck(False, "S must be symmetric")
    with ctx.workprec(PRECISION):
        Ua = _U(problem)
        why, lam, w = spectral_check(Ua, c.k, c.mid, c.rad, c.rho, c.S)
        if why:
            return ProjectiveCheck(False, why)
        right = _eig_box(Ua.transpose(), c.kv, c.vmid, c.vrad)
        if right is None:
            return ProjectiveCheck(False, "Krawczyk's test failed for the right eigenpair (lambda, v)")
        lam_v, v = right
        if not lam_v > rational_ball(c.rho):
            return ProjectiveCheck(False, "the right eigenvalue is not proved above rho (not the dominant one)")
        wv = sum((a * b for a, b in zip(w, v)), arb(0))
        if not (wv > 0 or wv < 0):
            return ProjectiveCheck(False, "the sign of <w, v> is not decided")
        s = c.sign * (1 if wv > 0 else -1)
        norm = sum((x * x for x in v), arb(0)).sqrt()
        limit = tuple(s * x / norm for x in v)
    return ProjectiveCheck(True, f"one head, projective contraction: lambda in {lam.str(6, radius=True)} > rho = "
                                 f"{float(c.rho):.6g} >= |U|_S on ker w (any P, beta, mask)", w, limit)


def half_space(c: Projective, w: Sequence[arb], X: Sequence[Sequence[arb]]) -> bool:
    """Every token ball has ``sign <w, x> > 0`` for every ``w`` in the balls (arb; False when undecided)."""
    return all(c.sign * sum((a * b for a, b in zip(w, x)), arb(0)) > 0 for x in X)


def propose_projective(problem: FateProblem) -> tuple[Projective | None, str]:
    """Float proposal (NumPy / SciPy) checked by :func:`check_projective`; ``(None, why)`` when the spectrum rules it out."""
    import numpy as np
    from scipy.linalg import solve_discrete_lyapunov

    from .contraction import _frac, _radius

    if len(problem.heads) != 1:
        return None, "more than one head"
    d = problem.d
    Uf = np.array(problem.heads[0][1], dtype=float)
    ev, W = np.linalg.eig(Uf.T)
    order = np.argsort(-np.abs(ev))
    lam, second = ev[order[0]], abs(ev[order[1]])
    if abs(lam.imag) > 1e-12 * abs(lam) or lam.real <= 0 or second >= lam.real * (1 - 1e-9):
        return None, "the eigenvalue of U of largest modulus is not real, positive and simple in modulus"
    lam = float(lam.real)
    w = W[:, order[0]].real
    k = int(np.argmax(np.abs(w)))
    w = w / w[k]
    evr, V = np.linalg.eig(Uf)
    v = V[:, int(np.argmin(np.abs(evr - lam)))].real
    kv = int(np.argmax(np.abs(v)))
    v = v / v[kv]
    X = problem.float_tokens()
    b = X @ w
    sign = -1 if np.sum(b < 0) > np.sum(b > 0) else 1
    keep = [a for a in range(d) if a != k]
    T = np.zeros((d, d - 1))
    for j, l in enumerate(keep):
        T[l, j], T[k, j] = 1.0, -w[l]
    A = (Uf @ T)[keep]
    mid = (_frac(lam),) + tuple(_frac(w[l]) for l in keep)
    vmid = (_frac(lam),) + tuple(_frac(v[l]) for l in range(d) if l != kv)
    last = "the discrete Lyapunov solver failed"
    for theta in (0.5, 0.75, 0.9):
        rho = second + theta * (lam - second)
        try:
            S = solve_discrete_lyapunov((A / rho).T, np.eye(d - 1))
        except (np.linalg.LinAlgError, ValueError):
            continue
        S = (S + S.T) / 2
        scale = np.max(np.abs(S))
        Sq = tuple(tuple(Fraction(round(x / scale * 2**40), 2**40) for x in row) for row in S)
        c = Projective(k, mid, max(_radius(Uf, w, lam), FLOOR), Fraction(rho), Sq, sign, kv, vmid,
                       max(_radius(Uf.T, v, lam), FLOOR))
        check = check_projective(problem, c)
        if check.ok:
            return c, check.reason
        last = check.reason
    return None, f"no projective certificate: {last}"


__all__ = ["PRECISION", "Projective", "ProjectiveCheck", "check_projective", "half_space", "propose_projective"]
