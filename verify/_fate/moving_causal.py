"""The causal-mask lemma of :mod:`.moving`: token 1 leads, ``V = sum_k c_k |x_k - x_1|^2 / W^{p_k}``.

Notation of :mod:`.moving` (``U_s``, ``q(x) = <x, U_s x>``, ``v_i``, ``G``, ``g_lo``, ``g_hi``, ``mu``, ``R``,
``u_h``, ``p_h``, ``nU``, ``Dmax``); ``S_h = sym(U^h)``, ``S_s = sym(U_s)``.  Row ``k`` sees tokens ``l <= k``,
so token 1 leads: ``a^h_11 = 1`` and ``x_1' = Proj(U_s x_1)`` exactly.  With ``e_k = x_k - x_1``,
``W = x_1^T G x_1`` and ``r(x_1) = x_1^T G U_s x_1 / W``, data (:class:`Causal`, exact rationals): weights
``c_k > 0`` (``k = 2..N``), Young's ``eta > 0``, ``lam_h``, ``lam_s``, exponents ``p_k`` in ``(0, 4]`` (default
all 1; denominators ``<= 12``), optionally ``q_lo``, ``tau3 >= 0`` and lower bounds ``ell_h``.  Exact checks, besides
(a)-(c) of :mod:`.moving` (the ``Dmax`` term of ``M`` dropped: token 1 has no perturbation):

(e) ``lam_h I - S_h`` and ``lam_s I - S_s`` PSD; when given, ``S_s - q_lo I - tau3 (Q - gamma I)`` PSD
    (``tau3 = 0`` without a region): ``q(x) >= q_lo`` on ``R``; otherwise ``q_lo = -nU`` (``|q| <= nU``);
    when given, ``S_h - ell_h I`` PSD (then ``c_h = tr U^h - (d - 2) ell_h``, ``C = sum_h c_h``).
    Always ``q(x) <= q_hi = lam_s``.
(d') ``y_h = 2 beta p_h Dmax < 1``, ``abar_k^h = 1 / (k (1 - y_h))``, ``eps_k^h = y_h / ((1 - y_h) k)``,
    ``alpha_k = sum_h u_h abar_k^h``, ``Lam_k = min(sum_h abar_k^h max(lam_h, 0), lam_s / k + sum_h u_h eps_k^h)``,
    ``ThA_k = Lam_k + max_{q in {q_lo, q_hi}} (p_k - 1) q``,
    ``ThB_k = max_{q in {q_lo, q_hi}} (C / k + (p_k - 1 - 1/k) q) + sum_h eps_k^h (|c_h| + u_h)
    + sum_h abar_k^h (u_h Dmax + Dmax^2 (2 u_h + |c_h|) / 4)`` (only with ``ell``), ``Th_k = min(ThA_k, ThB_k)``,
    ``rho_lk >= W^{p_l - p_k}`` for ``W`` in ``[g_lo, g_hi]`` (a rational ``R`` with ``R^b >= g^a`` at both ends,
    ``p_l - p_k = a/b``; ``rho = 1`` when equal), and for every ``l = 2..N``:
    ``kappa_l = 2 p_l mu - 2 Th_l - 2 nU Dmax - (l - 2) eta alpha_l - (sum_{k > l} c_k alpha_k rho_lk) / (eta c_l) > 0``.

**Lemma.** Under (a)-(c), (e), (d') and the entry condition at ``T`` (arb): ``x_1`` in ``R`` and
``V(T) < V_T = min_l c_l Dmax^2 / g_hi^{p_l}``, ``V(t) <= V(T) e^{-kappa (t - T)}`` with
``kappa = min_l kappa_l``: every ``|x_k - x_1| -> 0`` (the common point may keep moving).

*Proof.* (i) ``R`` is forward invariant for ``x_1`` by (c), so ``r(x_1) >= mu`` (b) and
``q_lo <= q(x_1) <= q_hi`` (e) for ``t >= T``.  (ii) Invariant set: while ``V <= V_T``,
``|e_l|^2 <= W^{p_l} V / c_l <= g_hi^{p_l} V_T / c_l <= Dmax^2`` (``0 < W <= g_hi`` as ``|x_1| = 1``, ``t -> t^p``
increasing); the logits of row ``k`` of head ``h`` spread by at most ``beta p_h 2 Dmax = y_h``, so every
``a^h_kl`` lies in ``[e^{-y_h} / k, e^{y_h} / k]``: ``a^h_kl <= abar_k^h`` (``e^y <= 1/(1 - y)``) and
``|a^h_kk - 1/k| <= eps_k^h`` (``e^y - 1 <= y/(1 - y)``, ``1 - e^{-y} <= y``).  (iii) Derivative:
``<e_k, x_1> = -|e_k|^2 / 2`` and ``x_k' - x_1' = (v_k - v_1) - <x_k, v_k> e_k + (q - <x_k, v_k>) x_1`` give
``(|e_k|^2)' = 2 <e_k, v_k - v_1> - (q + <x_k, v_k>) |e_k|^2``; ``W' = 2 (r - q) W`` gives
``(W^{-p})' = -2 p (r - q) W^{-p}``; so, with ``p = p_k``,
``(|e_k|^2 / W^p)' = (2 <e_k, v_k - v_1> + (q - <x_k, v_k>) |e_k|^2 + (2 (p - 1) q - 2 p r) |e_k|^2) / W^p``.
(iv) ``v_k - v_1 = sum_h U^h sum_{l <= k} a^h_kl e_l`` (``e_1 = 0``); ``|q - <x_k, v_k>| = |<e_k, v_k> +
<x_1, v_k - v_1>| <= 2 nU Dmax``; cross terms ``2 a^h_kl <e_k, U^h e_l> <= u_h abar_k^h (eta |e_k|^2 + |e_l|^2 / eta)``
(Young, ``2 <= l < k``), and in ``V`` the term ``|e_l|^2 / W^{p_k}`` is ``<= rho_lk |e_l|^2 / W^{p_l}``
(``W^{p_l - p_k}`` is monotone in ``W``, so its maximum on ``[g_lo, g_hi]`` is at an end).  (v) Self term,
bound A: ``<e, U^h e> <= lam_h |e|^2`` with ``a^h_kk <= abar_k^h``, or
``sum_h a^h_kk <e, U^h e> = <e, U_s e>/k + sum_h (a^h_kk - 1/k) <e, U^h e>``; with ``2 (p - 1) q <=
2 max_q (p - 1) q`` (``q`` in ``[q_lo, q_hi]``, linear in ``q``): ``<= 2 ThA_k |e_k|^2``.  Bound B (tangent
trace): write ``e = t + s x_1``, ``s = -|e|^2 / 2``, ``t`` orthogonal to ``x_1``, ``|t|^2 = |e|^2 - s^2``.
Completing ``x_1, t/|t|`` to an orthonormal basis, ``tr S_h = x_1^T S_h x_1 + t^T S_h t / |t|^2 +`` (``d - 2``
Rayleigh quotients ``>= ell_h``), so ``t^T S_h t <= |t|^2 (c_h - x_1^T S_h x_1)``; hence
``<e, U^h e> = t^T S_h t + 2 s t^T S_h x_1 + s^2 x_1^T S_h x_1 <= |e|^2 (c_h - x_1^T S_h x_1) + s^2 (2 x_1^T S_h x_1 - c_h)
+ 2 |s| |t| u_h <= |e|^2 (c_h - x_1^T S_h x_1 + u_h Dmax + Dmax^2 (2 u_h + |c_h|) / 4)`` (``|e| <= Dmax``,
``|x_1^T S_h x_1| <= u_h``).  With ``a^h_kk = 1/k + (a^h_kk - 1/k)``, ``|c_h - x_1^T S_h x_1| <= |c_h| + u_h`` and
``sum_h x_1^T S_h x_1 = q``: ``2 sum_h a^h_kk <e_k, U^h e_k> + 2 (p - 1) q <= 2 (C/k + (p - 1 - 1/k) q + err_k) |e_k|^2``,
and the right side, linear in ``q``, is ``<= 2 ThB_k |e_k|^2``.  Either way the self term plus
``(2 (p - 1) q - 2 p r) |e_k|^2`` is ``<= (2 Th_k - 2 p mu) |e_k|^2`` (``p > 0``, ``r >= mu``).  (vi) Collecting the
coefficient of each ``|e_l|^2``: ``V' <= -sum_l c_l kappa_l |e_l|^2 / W^{p_l} <= -kappa V``.  (vii) Let ``t*`` be the
supremum of the ``s >= T`` with ``V <= V_T`` on ``[T, s]``; at ``T``, ``V < V_T`` (entry); if ``t* < inf``,
``V(t*) = V_T > 0`` and ``V'(t*) <= -kappa V_T < 0``, while ``V < V_T`` just before ``t*``: a contradiction.  So
``V' <= -kappa V`` for all ``t >= T``.  QED.  With every ``p_k = 1`` and no ``ell`` this is the earlier causal lemma
(certificates without the new fields keep their meaning); bound B with ``p_k = 1 + 1/k`` cancels ``q(x_1)``
(the self weight ``1/k`` of token ``k`` against ``W``): a rotating ``x_1`` then needs only ``(k + 1) mu > C``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import final

from .problem import FateProblem


@final
@dataclass(frozen=True)
class Causal:
    """Causal mask: weights ``c_k`` (``k = 2..N``), Young's ``eta``, ``lam_h >= lambda_max(sym U^h)``,
    ``lam_s >= lambda_max(sym U_s)``, the exponents ``p_k`` of ``W`` (``()``: all 1), optional ``q_lo`` (with
    ``tau3``) and ``ell``."""

    c: tuple[Fraction, ...]
    eta: Fraction
    lam: tuple[Fraction, ...]
    lam_s: Fraction
    p: tuple[Fraction, ...] = ()
    q_lo: Fraction | None = None
    tau3: Fraction = Fraction(0)
    ell: tuple[Fraction, ...] | None = None

    def exponents(self) -> tuple[Fraction, ...]:
        """``(p_2, ..., p_N)``."""
        return self.p if self.p else (Fraction(1),) * len(self.c)


def causal_numbers(c: Causal) -> list:
    """Every number of ``c`` (for the exactness test)."""
    out = [*c.c, c.eta, *c.lam, c.lam_s, *c.p, c.tau3]
    if c.q_lo is not None:
        out.append(c.q_lo)
    if c.ell is not None:
        out.extend(c.ell)
    return out


def causal_checks(problem: FateProblem, c: Causal, has_region: bool, psd, sym_minus, QmG) -> str | None:
    """Step (e) beyond ``lam``: ``p_k``, ``tau3``, ``q_lo`` and ``ell`` (``None`` when proved, else why not).
    ``sym_minus(A, s)`` is ``sym(A) - s I``; ``QmG`` is ``Q - gamma I`` (``None`` without a region)."""
    H = len(problem.heads)
    if c.p and len(c.p) != len(c.c):
        return f"malformed causal data ({len(c.c)} exponents p_k)"
    if not all(0 < v <= 4 and v.denominator <= 12 for v in c.exponents()):
        return "every exponent p_k of W must be in (0, 4] with a denominator <= 12"
    if c.tau3 < 0 or (not has_region and c.tau3 != 0) or (c.q_lo is None and c.tau3 != 0):
        return "tau3 must be >= 0, and 0 without a region or without q_lo"
    if c.ell is not None and len(c.ell) != H:
        return f"malformed causal data ({H} bounds ell_h)"
    if c.q_lo is not None:
        M = sym_minus(problem.U_sum(), c.q_lo)
        if QmG is not None:
            M = [[M[a][b] - c.tau3 * QmG[a][b] for b in range(len(M))] for a in range(len(M))]
        if not psd(M):
            return "q(x) >= q_lo on the region is not proved (step e)"
    if c.ell is not None:
        for h, (_, U) in enumerate(problem.heads):
            if not psd(sym_minus(U, c.ell[h])):
                return f"ell_{h} <= lambda_min(sym U^{h}) is not proved (step e)"
    return None


def _pow_up(g: Fraction, e: Fraction) -> Fraction | None:
    """A rational ``R >= g^e`` (``g > 0``), proved by ``R^b >= g^a`` (``e = a/b``); None if none is found."""
    if e == 0:
        return Fraction(1)
    a, b = e.numerator, e.denominator
    try:
        f = float(g) ** float(e)
    except (OverflowError, ZeroDivisionError):
        return None
    if not (g > 0 and math.isfinite(f) and f < 2.0**100):
        return None
    for k in range(1, 6):
        R = Fraction(math.ceil(f * (1 + 1e-12 * 10**k) * 2**40) + 1, 2**40)
        if (R ** b >= g ** a) if a >= 0 else (R ** b * g ** (-a) >= 1):
            return R
    return None


def causal_kappa(problem: FateProblem, mu: Fraction, unorm, pnorm, Dmax: Fraction, c: Causal,
                 g_lo: Fraction, g_hi: Fraction) -> Fraction:
    """``min_l kappa_l`` of (d') (exact); ``-1`` when a hypothesis of (d') fails."""
    N, d, b = problem.N, problem.d, problem.beta
    w, eta, P, D = c.c, c.eta, c.exponents(), Dmax
    if (len(w) != N - 1 or len(P) != N - 1 or min(w) <= 0 or eta <= 0 or not min(P) > 0
            or any(2 * b * ph * D >= 1 for ph in pnorm)):
        return Fraction(-1)
    nU = sum(unorm, Fraction(0))
    y = [2 * b * ph * D for ph in pnorm]
    qlo, qhi = (c.q_lo if c.q_lo is not None else -nU), c.lam_s
    ch = None if c.ell is None else [sum((U[i][i] for i in range(d)), Fraction(0)) - (d - 2) * l
                                     for (_, U), l in zip(problem.heads, c.ell)]

    def theta(k: int) -> Fraction:
        p = P[k - 2]
        abar = [1 / (k * (1 - yh)) for yh in y]
        eps = [yh / ((1 - yh) * k) for yh in y]
        lam_k = min(sum((max(lh, Fraction(0)) * a for lh, a in zip(c.lam, abar)), Fraction(0)),
                    c.lam_s / k + sum((u * e for u, e in zip(unorm, eps)), Fraction(0)))
        out = lam_k + max((p - 1) * qlo, (p - 1) * qhi)
        if ch is not None:
            C = sum(ch, Fraction(0))
            err = sum((e * (abs(v) + u) + a * (u * D + D * D * (2 * u + abs(v)) / 4)
                       for e, a, u, v in zip(eps, abar, unorm, ch)), Fraction(0))
            out = min(out, max(C / k + (p - 1 - Fraction(1, k)) * q for q in (qlo, qhi)) + err)
        return out

    rho: dict[tuple[int, int], Fraction] = {}
    for l in range(2, N + 1):
        for k in range(l + 1, N + 1):
            ends = [_pow_up(g, P[l - 2] - P[k - 2]) for g in (g_lo, g_hi)]
            if None in ends:
                return Fraction(-1)
            rho[l, k] = max(ends)
    alpha = {k: sum((u / (k * (1 - yh)) for u, yh in zip(unorm, y)), Fraction(0)) for k in range(2, N + 1)}
    wk = {k: w[k - 2] for k in range(2, N + 1)}
    return min(2 * P[l - 2] * mu - 2 * theta(l) - 2 * nU * D - (l - 2) * eta * alpha[l]
               - sum((wk[k] * alpha[k] * rho[l, k] for k in range(l + 1, N + 1)), Fraction(0)) / (eta * wk[l])
               for l in range(2, N + 1))


__all__ = ["Causal", "causal_checks", "causal_kappa", "causal_numbers"]
