"""One validated step of eq. 5: a-priori box, Lagrange remainder, Jacobian enclosure, Lohner update.

Given the set ``S_k = {xhat + A r}`` with hull ``Y`` (:class:`~.lohner.LohnerSet`) and a step
``h`` (an exact rational; floats only propose it), with ``phi_s`` the flow of one segment:

1. **A-priori box** ``B`` with ``phi_s(y) in B`` for all ``s in [0, h]``, ``y in Y``
   (:func:`~.apriori.picard_box`, Picard–Lindelöf).
2. **Point part.**  ``phi_h(xhat) = sum_{j<=K} h^j X_j(xhat) + h^{K+1} X_{K+1}(x(xi))`` for each
   component with some ``xi in [0, h]`` (Taylor–Lagrange), and ``x(xi) in B``, so
   ``phi_h(xhat) in T_K(xhat; h) + h^{K+1} X_{K+1}(B)`` (the coefficients in balls, :mod:`.series`).
3. **Step Jacobian.**  ``V(s) = D phi_s(y)`` solves ``V' = DF(x(s)) V``, ``V(0) = I``; its Taylor
   coefficients at ``y`` are ``D X_j(y)`` and the one at an intermediate time ``xi`` is
   ``D X_{m+1}(x(xi)) V(xi)``.  With ``W`` an enclosure of ``V`` on ``[0, h]`` (Gronwall:
   ``|V - I| <= exp(h mu) - 1``, ``mu >= ||DF(B)||_inf``, refined once by the same expansion),
   ``D phi_h(Y) ⊂ sum_{j<=m} h^j D X_j(Y) + h^{m+1} D X_{m+1}(B) W`` (:mod:`.tangent`).
4. **Wrapping control:** :meth:`~.lohner.LohnerSet.advance` with the point part and the Jacobian.
5. **Enclosures for the record:** over ``[t_k, t_k + h]`` the tube
   ``B ∩ (T_K(Y; [0, h]) + [0, h]^{K+1} X_{K+1}(B))`` and, at ``t_k + s``, :meth:`Dense.at`.

Steps whose remainder (or Jacobian remainder) is wider than 100 times its target are rejected and
retried with a smaller ``h``.  Not guaranteed: progress (the step can shrink below ``min_step``;
the run then stops with a status saying so).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import final

from flint import arb, arb_mat

from .apriori import picard_box
from .balls import ball, flat, intersect, max_width, nonneg_power, unflat, unit_interval_times
from .lohner import LohnerSet
from .options import ValidatedOptions
from .series import Heads, field, horner, series
from .tangent import Tangent, gronwall_box

REJECT = 100.0
SAFETY = 0.8


@final
@dataclass(frozen=True, eq=False)
class Dense:
    """Enough data to enclose the solution at any time in a step: ``X_j(Y)`` for ``j <= K``, ``X_{K+1}(B)``, the tube."""

    coeffs: tuple[arb_mat, ...]
    last: arb_mat
    tube: arb_mat

    def at(self, s: arb) -> arb_mat:
        """Enclosure of the solution at ``t_k + s`` for every ``s`` in the ball ``s`` (which must
        lie in ``[0, h]``): ``T_K(Y; s) + s^{K+1} X_{K+1}(B)``, intersected with the tube."""
        K = len(self.coeffs) - 1
        return intersect(horner(self.coeffs, s) + self.last * nonneg_power(s, K + 1), self.tube)


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


def validated_step(S: LohnerSet, N: int, d: int, heads: Heads, causal: bool, h_left: Fraction,
                   opts: ValidatedOptions, h_hint: float | None = None) -> StepOutcome:
    """Advance ``S`` by one step of length at most ``h_left`` (see the module docstring)."""
    K, m = opts.order, opts.jacobian_order
    xhat, Y = unflat(S.xhat, N, d), unflat(S.box, N, d)
    pt = series(xhat, heads, causal, K)
    bx = series(Y, heads, causal, K)
    if opts.step is not None:
        proposal = float(opts.step)
    else:
        proposal = min(SAFETY * propose_step(pt.X, opts.tol), opts.max_step)
        if h_hint is not None:
            proposal = min(proposal, 2.0 * h_hint)
    tx = Tangent(bx, m)
    fn = lambda Z: field(Z, heads, causal)  # noqa: E731
    rejected = 0
    while True:
        h = h_left if proposal >= float(h_left) * (1 - 1e-12) else dyadic_down(proposal)
        if opts.step is not None:
            h = min(opts.step, h_left)
        if h < Fraction(opts.min_step) and h < h_left:
            return StepOutcome(h, None, None, None, rejected, math.inf, math.inf,
                               f"the step fell below min_step = {opts.min_step:g}")
        hb = ball(h)
        span = unit_interval_times(hb)
        B = picard_box(Y, hb, fn)
        if B is None:
            if opts.step is not None:
                return StepOutcome(h, None, None, None, rejected, math.inf, math.inf,
                                   f"no a-priori box for the fixed step {h}")
            rejected += 1
            proposal = float(h) / 2
            continue
        bs = series(B, heads, causal, K + 1)
        rem = bs.X[K + 1] * hb ** (K + 1)
        rw = max_width(rem)
        if opts.step is None and rw > REJECT * opts.tol and not math.isinf(rw):
            rejected += 1
            proposal = float(h) * SAFETY * (opts.tol / rw) ** (1.0 / (K + 1))
            continue
        tb = Tangent(bs, m + 1)
        Dm1 = tb.jacobian(m + 1)
        W = gronwall_box(tb.jacobian(1), hb)
        W = intersect(W, tx.combination(span, m) + Dm1 * W * nonneg_power(span, m + 1))
        jac_rem = Dm1 * W * hb ** (m + 1)
        jw = max_width(jac_rem)
        if opts.step is None and jw > REJECT * opts.jacobian_tol and not math.isinf(jw):
            rejected += 1
            proposal = float(h) * SAFETY * (opts.jacobian_tol / jw) ** (1.0 / (m + 1))
            continue
        break
    jac = tx.combination(hb, m) + jac_rem
    image = horner(pt.X, hb) + rem
    new = S.advance(flat(image), jac)
    tube = intersect(B, horner(bx.X, span) + bs.X[K + 1] * nonneg_power(span, K + 1))
    direct = horner(bx.X, hb) + rem
    end = _with_point(intersect(intersect(unflat(new.box, N, d), direct), tube), unflat(new.xhat, N, d))
    new = LohnerSet(new.xhat, new.A, new.R, flat(end))
    return StepOutcome(h, new, end, Dense(tuple(bx.X), bs.X[K + 1], tube), rejected, rw, jw)


__all__ = ["Dense", "StepOutcome", "dyadic_down", "propose_step", "validated_step"]
