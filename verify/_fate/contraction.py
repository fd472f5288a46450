"""Consensus of one head by a projective contraction: no integration, any ``P``, ``beta`` and mask.

**Statement.**  Let ``U`` act on an invariant space ``V`` (``U_red`` of :mod:`.heads`, or ``V = R^d``)
with a real eigenvalue ``lambda > 0``, a left eigenvector ``w`` (``w^T U = lambda w^T`` on ``V``),
``W = ker w`` and a norm ``|e|_S = sqrt(e^T S e)`` on ``W`` with ``|U e|_S <= rho |e|_S``,
``rho < lambda``.  If every token starts with ``<w, x_i(0)> > 0``, every token of eq. 5 (one head,
any ``P``, ``beta``, full or causal mask) converges to ``x* = v / |v|``, ``v`` the eigenvector of
``lambda`` with ``<w, v> = 1``.  (All ``<w, x_i(0)> < 0``: apply it to ``-w``; the limit is ``-x*``.)

**Proof.**  Chart ``y_i = x_i / b_i``, ``b_i = <w, x_i>``.  From ``dx_i/dt = F_i - x_i <x_i, F_i>``,
``F_i = sum_j a_ij b_j U y_j``: ``dy_i/dt = (F_i - y_i <w, F_i>) / b_i`` and ``<w, U y_j> = lambda``,
so with ``y_i = v + e_i`` (``e_i`` in ``W``, which ``U`` preserves)
``de_i/dt = sum_j c_ij (U e_j - lambda e_i)``, ``c_ij = a_ij b_j / b_i >= 0``.  For ``E = max_i |e_i|_S``
and ``i`` a maximiser, ``|e_i + h de_i/dt|_S <= (1 - h c_i (lambda - rho)) E`` (``c_i = sum_j c_ij``),
so ``D^+ E <= -c_i (lambda - rho) E <= 0``.  ``E`` never grows, so ``|y_i|`` stays bounded,
``b_i = 1/|y_i|`` stays bounded away from 0 (the chart is never left) and ``b_i <= |w|``: ``c_i``
is bounded below and ``E -> 0`` exponentially.  Then ``x_i = y_i / |y_i| -> v / |v|``.  The
attention weights only enter through ``c_ij >= 0`` and ``sum_j a_ij = 1``: ``P``, ``beta`` and
the mask drop out.  The argument needs ``lambda`` dominant *in modulus* on ``W`` (``rho`` bounds
the spectral radius); a negative or complex eigenvalue of larger modulus defeats it.

**Certificate.**  (1) Krawczyk's test proves a real zero ``(lambda, w)`` of ``U^T w = lambda w``,
``w_k = 1``, in a rational box (arb balls); (2) in the basis ``T = [e_l - w_l e_k]_{l != k}`` of
``W`` the restriction is ``A = (U T)`` without row ``k``; a rational ``S`` is proved with
``S > 0`` and ``rho^2 S - A^T S A > 0`` (arb Cholesky, every ``w`` in the box), and
``rho < lambda`` in arb; (3) every ``<w, c_i>`` has one strict sign (arb).  Floats (NumPy,
SciPy's discrete Lyapunov solver) only propose ``w``, ``rho`` and ``S``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import final

import flint

PREC = 192


def _arb(x) -> flint.arb:
    """An arb ball containing the exact rational ``x`` (Fraction, fmpq or int)."""
    if isinstance(x, Fraction):
        return flint.arb(flint.fmpq(x.numerator, x.denominator))
    return flint.arb(x)


def _arb_mat(entries, n: int, m: int) -> flint.arb_mat:
    return flint.arb_mat(n, m, [_arb(e) for e in entries])


def _frac(x: float) -> Fraction:
    return Fraction(float(x))


def _cholesky_pd(M: flint.arb_mat) -> bool:
    """True when every symmetric matrix in the balls of ``M`` (lower triangle read) is positive definite."""
    n = M.nrows()
    L = [[flint.arb(0)] * n for _ in range(n)]
    for j in range(n):
        s = M[j, j] - sum((L[j][k] * L[j][k] for k in range(j)), flint.arb(0))
        if not s > 0:
            return False
        L[j][j] = s.sqrt()
        for i in range(j + 1, n):
            L[i][j] = (M[i, j] - sum((L[i][k] * L[j][k] for k in range(j)), flint.arb(0))) / L[j][j]
    return True


@final
@dataclass(frozen=True)
class ContractionCertificate:
    """Exact data of the certificate (see the module docstring): ``U`` (``m x m`` entries row-major),
    token coordinates ``coords`` (``m x N``, column ``i`` is token ``i``), the normalised index ``k``,
    the Krawczyk box ``mid +- rad`` for ``(lambda, w_l (l != k))``, ``rho``, ``S`` and the sign."""

    m: int
    U: tuple
    coords: tuple
    N: int
    k: int
    mid: tuple[Fraction, ...]
    rad: Fraction
    rho: Fraction
    S: tuple[tuple[Fraction, ...], ...]
    sign: int

    def recheck(self) -> tuple[bool, str]:
        """Redo steps (1)-(3) from the stored exact data with arb balls; ``(True, reason)`` or ``(False, why)``."""
        with flint.ctx.workprec(PREC):
            return _check(self)


def _eig_box(Ua: flint.arb_mat, k: int, mid, rad: Fraction) -> tuple[flint.arb, list[flint.arb]] | None:
    """Krawczyk's test for ``U^T w = lambda w``, ``w_k = 1``: the box of ``(lambda, w)`` or None."""
    m = Ua.nrows()
    z_mid = [_arb(x) for x in mid]
    Z = [x + flint.arb(0, _arb(rad)) for x in z_mid]

    def wvec(z):
        w, it = [], iter(z[1:])
        for l in range(m):
            w.append(flint.arb(1) if l == k else next(it))
        return w

    def F(z):
        lam, w = z[0], wvec(z)
        return [sum((Ua[a, l] * w[a] for a in range(m)), flint.arb(0)) - lam * w[l] for l in range(m)]

    def J(z):
        lam, w = z[0], wvec(z)
        rows = []
        for l in range(m):  # d F_l / d(lambda, w_a (a != k))
            rows.append([-w[l]] + [Ua[a, l] - (lam if a == l else 0) for a in range(m) if a != k])
        return flint.arb_mat(rows)

    Jm = flint.arb_mat(m, m, [flint.arb(x.mid()) for x in J(z_mid).entries()])
    try:  # the preconditioner C is any matrix: the midpoints of an arb inverse (no float library on this path)
        Ci = Jm.inv()
    except ZeroDivisionError:
        return None
    if not all(x.is_finite() for x in Ci.entries()):
        return None
    C = flint.arb_mat(m, m, [flint.arb(x.mid()) for x in Ci.entries()])
    Fm = flint.arb_mat(m, 1, F(z_mid))
    JZ = J(Z)
    Id = flint.arb_mat(m, m, [1 if i == j else 0 for i in range(m) for j in range(m)])
    dZ = flint.arb_mat(m, 1, [z - zm for z, zm in zip(Z, z_mid)])
    Kz = (C * Fm) * (-1) + (Id - C * JZ) * dZ
    for c in range(m):
        if not abs(Kz[c, 0]) < _arb(rad):
            return None
    return Z[0], wvec(Z)


def spectral_check(Ua: flint.arb_mat, k: int, mid, rad: Fraction, rho: Fraction, S_rows) -> tuple[str, object, list]:
    """Steps (1)-(2) of the certificate for ``U`` (arb balls): ``("", lambda, w)`` or ``(why, None, [])``."""
    m = Ua.nrows()
    box = _eig_box(Ua, k, mid, rad)
    if box is None:
        return "Krawczyk's test failed for the eigenpair (lambda, w)", None, []
    lam, w = box
    if not lam > _arb(rho) or not rho > 0:
        return f"rho = {float(rho):.6g} is not proved below lambda = {lam.str(5, radius=False)}", None, []
    keep = [a for a in range(m) if a != k]
    T = flint.arb_mat(m, m - 1)
    for j, l in enumerate(keep):  # column j of T is e_l - w_l e_k
        T[l, j], T[k, j] = flint.arb(1), -w[l]
    UT = Ua * T
    A = flint.arb_mat(m - 1, m - 1, [UT[a, j] for a in keep for j in range(m - 1)])
    S = flint.arb_mat(m - 1, m - 1, [_arb(x) for row in S_rows for x in row])
    if not _cholesky_pd(S):
        return "S is not proved positive definite", None, []
    M = S * _arb(rho) ** 2 - A.transpose() * S * A
    if not _cholesky_pd(M):
        return "rho^2 S - A^T S A is not proved positive definite (no contraction on ker w)", None, []
    return "", lam, w


def _check(c: ContractionCertificate) -> tuple[bool, str]:
    m = c.m
    Ua = _arb_mat(c.U, m, m)
    why, lam, w = spectral_check(Ua, c.k, c.mid, c.rad, c.rho, c.S)
    if why:
        return False, why
    C = _arb_mat(c.coords, m, c.N)
    for i in range(c.N):
        b = sum((w[a] * C[a, i] for a in range(m)), flint.arb(0)) * c.sign
        if not b > 0:
            return False, f"token {i + 1} is not proved in the open half-space sign * <w, x> > 0"
    return True, (f"projective contraction: lambda in {lam.str(6, radius=True)} > rho = {float(c.rho):.6g} >= "
                  f"|U|_S on ker w, every token with sign {c.sign:+d} <w, x_i(0)> > 0: consensus at "
                  f"{'+' if c.sign > 0 else '-'}v/|v| (any P, beta, mask)")


@final
@dataclass(frozen=True)
class Spectral:
    """Steps (1)-(2) of the certificate, proved (:func:`spectral_check`): the exact data and the balls
    ``lam``, ``w`` they give (the tokens' half-space, step (3), is tested separately)."""

    k: int
    mid: tuple[Fraction, ...]
    rad: Fraction
    rho: Fraction
    S: tuple[tuple[Fraction, ...], ...]
    lam: flint.arb
    w: tuple[flint.arb, ...]


def propose_spectral(U: flint.fmpq_mat) -> tuple[Spectral | None, str, dict]:
    """Float proposal (NumPy / SciPy) of steps (1)-(2) for ``U``, proved in arb: ``(Spectral, "", facts)``,
    or ``(None, reason, facts)`` when the spectrum rules the route out or no proposal is proved."""
    import numpy as np
    from scipy.linalg import solve_discrete_lyapunov

    m = U.nrows()
    if m < 2:
        return None, ("the reduced space is one-dimensional (every token is + or - one vector): the contraction "
                      "route needs a complement ker w of dimension >= 1"), {"reduced_dim": m}
    Uf = np.array([[float(U[i, j]) for j in range(m)] for i in range(m)])
    ev, W = np.linalg.eig(Uf.T)
    order = np.argsort(-np.abs(ev))
    lam, second = ev[order[0]], (abs(ev[order[1]]) if m > 1 else 0.0)
    facts = {"lambda_dominant": [float(lam.real), float(lam.imag)], "second_modulus": float(second)}
    if abs(lam.imag) > 1e-12 * abs(lam) or lam.real <= 0:
        kind = "complex" if abs(lam.imag) > 1e-12 * abs(lam) else ("zero" if lam.real == 0 else "negative")
        return None, f"the eigenvalue of U of largest modulus is {kind} ({lam:.4g}): no contraction route", facts
    lam = float(lam.real)
    if second >= lam * (1 - 1e-9):
        return None, f"lambda = {lam:.4g} is not dominant in modulus (next |mu| = {second:.4g})", facts
    w = W[:, order[0]].real
    k = int(np.argmax(np.abs(w)))
    w = w / w[k]
    facts["w"] = w
    keep = [a for a in range(m) if a != k]
    T = np.zeros((m, m - 1))
    for j, l in enumerate(keep):
        T[l, j], T[k, j] = 1.0, -w[l]
    A = (Uf @ T)[keep]
    mid = (_frac(lam),) + tuple(_frac(w[l]) for l in keep)
    rad = _radius(Uf, w, lam)
    Ua = _arb_mat(U.entries(), m, m)
    last = "the discrete Lyapunov solver failed"
    for theta in (0.5, 0.75, 0.9):
        rho = second + theta * (lam - second)
        try:
            S = solve_discrete_lyapunov((A / rho).T, np.eye(m - 1))
        except (np.linalg.LinAlgError, ValueError):
            continue
        S = (S + S.T) / 2
        scale = np.max(np.abs(S))
        Sq = tuple(tuple(Fraction(round(x / scale * 2**40), 2**40) for x in row) for row in S)
        facts["rho"] = float(rho)
        with flint.ctx.workprec(PREC):
            why, lam_b, w_b = spectral_check(Ua, k, mid, rad, Fraction(rho), Sq)
        if not why:
            return Spectral(k, mid, rad, Fraction(rho), Sq, lam_b, tuple(w_b)), "", facts
        last = why
    return None, f"no contraction certificate: {last}", facts


def propose(U: flint.fmpq_mat, coords: flint.fmpq_mat) -> tuple[ContractionCertificate | None, str, dict]:
    """Float proposal of a :class:`ContractionCertificate` for ``U`` on its space and the tokens'
    coordinates; ``(None, reason, facts)`` when the spectrum or the signs rule the route out."""
    import numpy as np

    N = coords.ncols()
    spec, why, facts = propose_spectral(U)
    w = facts.pop("w", None)
    if spec is None:
        return None, why, facts
    m = U.nrows()
    Cf = np.array([[float(coords[i, j]) for j in range(N)] for i in range(m)])
    b = w @ Cf
    sign = 1 if np.all(b > 0) else (-1 if np.all(b < 0) else 0)
    facts["half_space_margin"] = float(np.min(np.abs(b)) / max(np.linalg.norm(w), 1e-300))
    if sign == 0:
        return None, (f"the tokens lie on both sides of ker w ({int(np.sum(b > 0))} of {N} with <w, x> > 0): "
                      "no half-space for the contraction route"), facts
    cert = ContractionCertificate(m, tuple(U.entries()), tuple(coords.entries()), N, spec.k, spec.mid, spec.rad,
                                  spec.rho, spec.S, sign)
    ok, why = cert.recheck()
    return (cert, why, facts) if ok else (None, f"no contraction certificate: {why}", facts)


def _radius(Uf, w, lam: float) -> Fraction:
    import numpy as np

    res = np.linalg.norm(Uf.T @ w - lam * w, np.inf)
    scale = max(np.linalg.norm(Uf, np.inf), 1e-300)
    r = max(1e3 * res / scale, 1e-30) * max(1.0, np.max(np.abs(w)))
    return Fraction(2) ** int(np.ceil(np.log2(r)))


def certify_contraction(U: flint.fmpq_mat, coords: flint.fmpq_mat) -> tuple[ContractionCertificate | None, str, dict]:
    """The consensus certificate of the module docstring, or ``(None, reason, facts)``."""
    return propose(U, coords)


__all__ = ["ContractionCertificate", "Spectral", "certify_contraction", "propose", "propose_spectral", "spectral_check"]
