"""One validated step of eq. 5: a-priori box, Lagrange remainders, Jacobian enclosure, Lohner update.

Given the set ``S_k = {xhat + A r}`` with hull ``Y`` (:class:`~.lohner.LohnerSet`), a step ``h``
(an exact rational; floats only propose it) and ``phi_s`` the flow of one segment:

1. **A-priori box** ``B`` with ``phi_s(y) in B`` for all ``s in [0, h]``, ``y in Y``
   (:func:`~.apriori.taylor_box`, the high-order test, else :func:`~.apriori.picard_box`,
   Picard–Lindelöf), and ``DF`` enclosing the field's Jacobian on ``B``.
2. **Point part.**  ``phi_h(xhat) = sum_{j<=K} h^j X_j(xhat) + h^{K+1} X_{K+1}(x(xi))`` for each
   component with some ``xi in [0, h]`` (Taylor–Lagrange) and ``x(xi) in B``, so
   ``phi_h(xhat) in T_K(xhat; h) + h^{K+1} X_{K+1}(B)`` (coefficients in balls, :mod:`.series`).
3. **Step Jacobian.**  ``V(s) = D phi_s(y)`` solves ``V' = DF(x(s)) V``, ``V(0) = I``, and its Taylor
   coefficients at ``y`` are ``D X_j(y)``: ``V(h) = P(y) + Rm(y)`` with ``P(y) = sum_{j<=m} h^j D X_j(y)``
   enclosed over ``Y`` by forward differentiation (:mod:`.tangent`) and ``Rm`` in
   ``h^{m+1} D X_{m+1}(B) W`` (:func:`~.jacobian.jacobian_remainder`: Lagrange form, ``D X_{m+1}``
   over the a-priori box, a Gronwall box ``W`` for ``V`` on ``[0, h]`` refined once).
4. **Mean value.**  For ``x = xhat + A r`` in ``S_k`` (the segment to ``xhat`` lies in the convex ``Y``):
   ``phi_h(x) in [T_K(xhat; h) + h^{K+1} X_{K+1}(B) + Rm (Y - xhat)] + P(Y) A r``; the bracket is the
   point part, ``P(Y)`` the (narrow) Jacobian, and :meth:`~.lohner.LohnerSet.advance` keeps the
   wrapping under control.  The Jacobian remainder enters additively, so its crude bound costs
   width ``|Rm| |Y - xhat|`` per step, not a compounding factor.
5. **Record.**  Over ``[t_k, t_k + h]``:
   ``B ∩ (T_K(xhat; [0, h]) + [0, h]^{K+1} X_{K+1}(B) + W (Y - xhat))``; at ``t_k + s``, :meth:`Dense.at`.

Steps whose remainder is wider than 100 times ``tol``, or whose Jacobian remainder can amplify the
width by more than ``10 jacobian_tol`` (its largest absolute row sum), are retried with a smaller
``h``; a fixed ``step`` is never retried.  Not guaranteed: progress (the step can shrink below
``min_step``; the run then stops with a status saying so).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import final

from flint import arb, arb_mat

from .apriori import picard_box, taylor_box
from .balls import ball, flat, intersect, ipow, max_width, nonneg_power, unflat, unit_interval_times
from .jacobian import gronwall_box, jacobian_remainder, refined_w, row_abs_sums
from .lohner import LohnerSet
from .options import ValidatedOptions
from .series import Heads, horner, series
from .tangent import Tangent

REJECT = 100.0
JAC_REJECT = 10.0
SAFETY = 0.5
GROWTH = 1.5


@final
@dataclass(frozen=True, eq=False)
class Dense:
    """Data to enclose the solution at any time of a step: the point coefficients ``X_j(xhat)``,
    ``X_{K+1}(B)``, ``spread = W (Y - xhat)`` and the tube."""

    coeffs: tuple[arb_mat, ...]
    last: arb_mat
    spread: arb_mat
    tube: arb_mat

    def at(self, s: arb) -> arb_mat:
        """Enclosure at ``t_k + s`` for every ``s`` in the ball ``s`` (inside ``[0, h]``):
        ``T_K(xhat; s) + s^{K+1} X_{K+1}(B) + W (Y - xhat)``, intersected with the tube."""
        K = len(self.coeffs) - 1
        return intersect(horner(self.coeffs, s) + self.last * nonneg_power(s, K + 1) + self.spread, self.tube)


@final
@dataclass(frozen=True, eq=False)
class StepOutcome:
    """What one call of :func:`validated_step` produced (``new`` is None when it failed)."""

    h: Fraction
    new: LohnerSet | None
    end: arb_mat | None
    dense: Dense | None
    rejected: int
    remainder_width: float
    jacobian_width: float
    next_hint: float = math.inf
    reason: str = ""


def dyadic_down(x: float, bits: int = 24) -> Fraction:
    """A dyadic rational ``<= x`` with ``bits`` significant bits (``x > 0``)."""
    m, e = math.frexp(x)
    return Fraction(math.floor(m * 2 ** bits)) * Fraction(2) ** (e - bits)


def propose_step(coeffs: list[arb_mat], tol: float) -> float:
    """Jorba–Zou: ``min_j (tol / |X_j|)^(1/j)`` over the last two orders (a float proposal)."""
    K = len(coeffs) - 1
    best = math.inf
    for j in (K - 1, K):
        size = max(abs(float(x.mid())) for x in coeffs[j].entries())
        if size > 0:
            best = min(best, (tol / size) ** (1.0 / j))
    return best


def _with_point(box: arb_mat, point: arb_mat) -> arb_mat:
    return arb_mat(box.nrows(), box.ncols(), [b.union(p) for b, p in zip(box.entries(), point.entries())])


def _factor(target: float, actual: float, order: int) -> float:
    """Step ratio that brings a remainder of size ``actual`` (growing like ``h^order``) to ``target``."""
    if actual <= 0:
        return GROWTH
    return min(GROWTH, (SAFETY * target / actual) ** (1.0 / order))


def _fail(h: Fraction, rejected: int, reason: str) -> StepOutcome:
    return StepOutcome(h, None, None, None, rejected, math.inf, math.inf, math.inf, reason)


def validated_step(S: LohnerSet, N: int, d: int, heads: Heads, causal: bool, h_left: Fraction,
                   opts: ValidatedOptions, h_hint: float | None = None) -> StepOutcome:
    """Advance ``S`` by one step of length at most ``h_left`` (see the module docstring)."""
    K, m = opts.order, opts.jacobian_order
    xhat, Y = unflat(S.xhat, N, d), unflat(S.box, N, d)
    offset = S.box - S.xhat
    pt = series(xhat, heads, causal, K)
    by = series(Y, heads, causal, m)
    tx = Tangent(by, m)
    if opts.step is not None:
        proposal = float(min(opts.step, h_left))
    else:
        proposal = min(0.8 * propose_step(pt.X, opts.tol), opts.max_step)
        if h_hint is not None:
            proposal = min(proposal, h_hint)
    rejected = 0
    while True:
        fixed = opts.step is not None
        if fixed:
            h = min(opts.step, h_left)
        elif proposal >= float(h_left) * (1 - 1e-12):
            h = h_left
        else:
            h = dyadic_down(proposal)
        if not fixed and h < Fraction(opts.min_step) and h < h_left:
            return _fail(h, rejected, f"the step fell below min_step = {opts.min_step:g}")
        hb = ball(h)
        span = unit_interval_times(hb)
        found = taylor_box(by.X[:m + 1], hb, heads, causal) or picard_box(Y, hb, heads, causal)
        if found is None:
            if fixed:
                return _fail(h, rejected, f"no a-priori box for the fixed step {h}")
            rejected += 1
            proposal = float(h) / 2
            continue
        B, DF = found
        bs = series(B, heads, causal, K + 1)
        last = bs.X[K + 1]
        rem = last * ipow(hb, K + 1)
        rw = max_width(rem)
        if not fixed and rw > REJECT * opts.tol:
            rejected += 1
            proposal = float(h) * _factor(opts.tol, rw, K + 1)
            continue
        D = Tangent(bs, m + 1).jacobian(m + 1)
        hpow = ipow(hb, m + 1)
        W = gronwall_box(DF, hb)
        W = refined_w(W, tx.combination(span, m), D, nonneg_power(span, m + 1))
        Rm = jacobian_remainder(D, W, hpow)
        jw = max(float(g) if g.is_finite() else math.inf for g in row_abs_sums(Rm))
        if not fixed and jw > JAC_REJECT * opts.jacobian_tol:
            rejected += 1
            proposal = float(h) * _factor(opts.jacobian_tol, jw, m + 1)
            continue
        break
    P = tx.combination(hb, m)
    image = flat(horner(pt.X, hb) + rem) + Rm * offset
    new = S.advance(image, P)
    spread = unflat(W * offset, N, d)
    tube = intersect(B, horner(pt.X, span) + last * nonneg_power(span, K + 1) + spread)
    end = _with_point(intersect(unflat(new.box, N, d), tube), unflat(new.xhat, N, d))
    new = LohnerSet(new.xhat, new.A, new.R, flat(end))
    hint = float(h) * min(_factor(opts.tol, rw, K + 1), _factor(opts.jacobian_tol, jw, m + 1))
    return StepOutcome(h, new, end, Dense(tuple(pt.X), last, spread, tube), rejected, rw, jw, hint)


__all__ = ["Dense", "StepOutcome", "dyadic_down", "propose_step", "validated_step"]
