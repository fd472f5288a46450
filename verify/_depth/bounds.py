"""Certified depth bounds: the exact arithmetic shared by ``verify depth`` and its re-check.

Trust base: exact rationals (:class:`fractions.Fraction`, python-flint ``fmpq_mat``) and
python-flint ``arb`` balls at an explicit working precision (:data:`PREC`, scoped with
``flint.ctx.workprec``).  Every transcendental number (``ln``, ``artanh``) is enclosed by a ball
and only its outward endpoint is kept: a time or a number of layers is rounded **up**, a rate
**down**.  No float enters a bound.  The derivations (re-derived for this project; the review's
formulas are corrected where noted) are in :mod:`verify.depth` and docs/depth.md.

Chart data (all tokens ``x_i`` unit, ``s_i = <z, x_i> > 0``, chart ``y_i = x_i / s_i``):

* ``Z2 = |z|^2``; ``r_lo <= min_i s_i / |z|`` (the margin of the unit vector ``z/|z|``);
* ``D2 >= max_ij |y_i - y_j|^2`` (full attention: the chart diameter squared) or
  ``D2 >= max_i |y_i - y_1|^2`` (causal, ``z = x_1``: the chart radius around ``x_1``);
* ``Q = Z2 D2 / 2``.  Since ``1 - <x_i, x_j> = |x_i - x_j|^2 / 2`` and
  ``|a/|a| - b/|b||^2 <= |a - b|^2 / (|a| |b|)`` with ``|y_i| = 1/s_i >= 1/|z|``,
  ``1 - <x_i, x_j> <= s_i s_j |y_i - y_j|^2 / 2 <= Q`` (and ``1 - <x_1, x_i> <= Q`` when causal).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import flint

from theorems.enclosure.box import to_fraction

PREC = 192
"""Working precision of every ball computation here (bits); recorded in each certificate."""
DIGITS = 14
"""Significant digits kept when a certified rational is shortened (outwards)."""


@dataclass(frozen=True)
class Chart:
    """Exact data of the chart at the starting time or layer (see the module docstring)."""

    Z2: Fraction
    r_lo: Fraction
    D2: Fraction

    @property
    def Q(self) -> Fraction:
        return self.Z2 * self.D2 / 2

    def to_json(self) -> dict[str, str]:
        return {"Z2": str(self.Z2), "r_lo": str(self.r_lo), "D2": str(self.D2), "Q": str(self.Q)}


@dataclass(frozen=True)
class Bound:
    """A certified bound: ``value`` (a time ``T`` as a rational, or a number of layers ``L``) after
    which the metric is ``<= eps``, and ``rate``: the metric is ``<= C exp(-rate t)`` (ODE) or
    ``<= C exp(-rate k)`` after ``k`` layers, with ``C`` given in ``terms``."""

    value: Fraction | int
    rate: Fraction
    terms: dict[str, str]


def short_up(x: Fraction, digits: int = DIGITS) -> Fraction:
    """A rational ``>= x`` with at most ``digits`` significant decimal digits."""
    return _short(x, digits, math.ceil)


def short_down(x: Fraction, digits: int = DIGITS) -> Fraction:
    """A rational ``<= x`` with at most ``digits`` significant decimal digits."""
    return _short(x, digits, math.floor)


def _short(x: Fraction, digits: int, rnd) -> Fraction:
    if x == 0:
        return Fraction(0)
    e = math.floor(math.log10(abs(x.numerator)) - math.log10(x.denominator))
    scale = Fraction(10) ** (digits - 1 - e)
    return Fraction(rnd(x * scale)) / scale


def sqrt_down(q: Fraction, digits: int = DIGITS + 4) -> Fraction:
    """A rational ``r >= 0`` with ``r^2 <= q`` (exact when ``q`` is the square of a rational)."""
    if q <= 0:
        return Fraction(0)
    rn, rd = math.isqrt(q.numerator), math.isqrt(q.denominator)
    if rn * rn == q.numerator and rd * rd == q.denominator:
        return Fraction(rn, rd)
    e = math.floor((math.log10(q.numerator) - math.log10(q.denominator)) / 2)
    scale = 10 ** max(0, digits - e)
    return Fraction(math.isqrt(q.numerator * scale * scale // q.denominator), scale)


def ball(q: Fraction | int) -> flint.arb:
    q = Fraction(q)
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def upper(x: flint.arb) -> Fraction:
    if not x.is_finite():
        raise ArithmeticError("a ball is not finite at this precision")
    return to_fraction(x.upper())


def lower(x: flint.arb) -> Fraction:
    if not x.is_finite():
        raise ArithmeticError("a ball is not finite at this precision")
    return to_fraction(x.lower())


def dot(u: Sequence[Fraction], v: Sequence[Fraction]) -> Fraction:
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def chart_full(z: Sequence[Fraction], X: Sequence[Sequence[Fraction]]) -> Chart | None:
    """Exact chart data of rational tokens (normalised as ``x/|x|``; float data are not exactly unit).
    ``None`` when some ``<z, x_i> <= 0``.  ``D2`` is the exact maximum over all pairs."""
    s = [dot(z, x) for x in X]
    if any(v <= 0 for v in s):
        return None
    Z2 = dot(z, z)
    r2 = min(v * v / (dot(x, x) * Z2) for v, x in zip(s, X))
    Y = flint.fmpq_mat(len(X), len(z), [flint.fmpq(c.numerator, c.denominator) for x, v in zip(X, s) for c in
                                         (xc / v for xc in x)])
    G = Y * Y.transpose()
    n = len(X)
    best = flint.fmpq(0)
    for i in range(n):
        gii = G[i, i]
        for j in range(i + 1, n):
            val = gii + G[j, j] - 2 * G[i, j]
            if val > best:
                best = val
    return Chart(Z2, sqrt_down(r2), Fraction(int(best.p), int(best.q)))


def chart_causal(X: Sequence[Sequence[Fraction]]) -> Chart | None:
    """Exact chart data around ``z = x_1`` (causal): ``D2 = max_i |y_i - y_1|^2``; ``None`` unless
    every ``<x_1, x_i> > 0``.  ``r_lo`` is the margin ``min_i <x_1, x_i>/(|x_1| |x_i|)``."""
    z = X[0]
    s = [dot(z, x) for x in X]
    if any(v <= 0 for v in s):
        return None
    Z2 = dot(z, z)
    r2 = min(v * v / (dot(x, x) * Z2) for v, x in zip(s, X))
    y1 = [c / s[0] for c in z]
    D2 = max((sum(((c / v - e) ** 2 for c, e in zip(x, y1)), Fraction(0)) for x, v in zip(X, s)), default=Fraction(0))
    return Chart(Z2, sqrt_down(r2), D2)


def chart_balls(z: Sequence[Fraction], X: Sequence[Sequence[flint.arb]]) -> Chart | None:
    """Chart data of tokens known only as balls (late entry): every true unit token ``x_i`` lies in
    the box ``X[i]``; ``None`` when some ``<z, x_i> > 0`` cannot be decided."""
    zb = [ball(c) for c in z]
    n, d = len(X), len(z)
    s = [sum((a * b for a, b in zip(zb, x)), flint.arb(0)) for x in X]
    if not all(v > 0 for v in s):
        return None
    Z2 = dot(z, z)
    m = min(lower(v) for v in s)
    Y = flint.arb_mat(n, d, [c / v for x, v in zip(X, s) for c in x])
    G = Y * Y.transpose()
    best = Fraction(0)
    for i in range(n):
        for j in range(i + 1, n):
            best = max(best, upper(G[i, i] + G[j, j] - 2 * G[i, j]))
    return Chart(Z2, sqrt_down(short_down(m) ** 2 / Z2), short_up(best))  # shortened outwards


def _log_ratio_up(Q: Fraction, eps: Fraction) -> flint.arb:
    return (ball(Q) / ball(eps)).log()


def ode_full(chart: Chart, H: int, e_lo: Fraction, eps: Fraction) -> Bound:
    """Theorem 3.2 setting, eq. 5: ``D(t) <= D0 exp(-lam t)`` with ``lam = H e_lo r_lo``, hence
    ``max_ij (1 - <x_i, x_j>) <= Q exp(-2 lam t) <= eps`` for ``t >= T = ln(Q/eps) / (2 lam)``."""
    lam = H * e_lo * chart.r_lo
    terms = {"lambda (chart diameter rate)": str(lam), "C": str(chart.Q)}
    if lam <= 0:
        raise ArithmeticError("the chart rate is not positive")
    if chart.Q <= eps:
        return Bound(Fraction(0), short_down(2 * lam), terms)
    with flint.ctx.workprec(PREC):
        T = upper(_log_ratio_up(chart.Q, eps) / (2 * ball(lam)))
    return Bound(short_up(T), short_down(2 * lam), terms)


MAX_KU = 700
"""Largest ``k u`` at which ``Ei(k u)`` or ``exp(-k u)`` is evaluated (a split below it is as sound)."""


def ode_full_sharp(chart: Chart, H: int, e_lo: Fraction, k: Fraction, eps: Fraction) -> Bound:
    """Theorem 3.2 setting, eq. 5, with weights that approach uniform as the tokens converge.

    Every ``a^h_ij >= exp(-beta p delta)/N`` with ``delta = max_jl |x_j - x_l|`` (each exponent
    difference ``beta <x_i, P (x_l - x_j)>`` is at most ``beta p delta``), and
    ``delta <= |z| D`` (``|x_i - x_j|^2 = 2 (1 - <x_i, x_j>) <= Z2 D^2``).  So the chart diameter obeys
    ``D' <= -a g(D) D`` with ``a = H r_lo`` and ``g(u) = max(e_lo, exp(-k u))``, ``k >= beta p |z|``;
    by comparison, ``D(t) <= eps_D = sqrt(2 eps / Z2)`` (hence the metric ``<= Q(t) <= eps``) for
    ``t >= T = int_{eps_D}^{D0} du / (a u g(u))``.  For any split ``S`` in ``[eps_D, D0]``,
    ``T <= (Ei(k S) - Ei(k eps_D)) / a + ln(D0 / S) / (a e_lo)`` (``1/g <= exp(k u)`` and
    ``1/g <= 1/e_lo``); ``S`` near ``ln(1/e_lo)/k`` (where the two meet) is a proposal, every value
    an arb ball rounded outwards.  The rate: ``D(t) <= D0 exp(-a g(D0) t)``, so the metric is
    ``<= Q exp(-2 a g(D0) t)``.  Never larger than :func:`ode_full` (``g >= e_lo``)."""
    a = H * chart.r_lo
    if a <= 0 or k < 0:
        raise ArithmeticError("the chart rate is not positive")
    with flint.ctx.workprec(PREC):
        D0 = ball(chart.D2).sqrt()
        # exp(-k D0) < exp(-700) <= e_lo (2 beta p <= 700 is required upstream): g(D0) = e_lo, and no
        # ball of a huge exponent is ever formed (instances carry constants up to 1e150)
        far = k * upper(D0) > MAX_KU
        g0 = e_lo if far else max(e_lo, lower((-ball(k) * D0).exp()))
        terms = {"a = H r_lo": str(a), "k >= beta p |z|": str(k), "g(D0)": str(short_down(g0)), "C": str(chart.Q)}
        rate = short_down(2 * a * g0)
        if chart.Q <= eps:
            return Bound(Fraction(0), rate, terms)
        lo = lower((2 * ball(eps) / ball(chart.Z2)).sqrt())  # eps_D from below
        hi = upper(D0)
        split = hi if k == 0 else min(hi, max(lo, short_down(lower(-(ball(e_lo).log()) / ball(k)))))
        if k > 0 and k * split > MAX_KU:  # any split is sound: keep Ei's argument below MAX_KU
            split = max(lo, short_down(Fraction(MAX_KU) / k))
        T = flint.arb(0)
        if split > lo and k > 0:
            T += ((ball(k) * ball(split)).ei() - (ball(k) * ball(lo)).ei()) / ball(a)
        elif split > lo:
            T += (ball(split) / ball(lo)).log() / ball(a)
        if hi > split:
            T += (ball(hi) / ball(split)).log() / (ball(a) * ball(e_lo))
        value = upper(T)
    return Bound(short_up(value), rate, terms)


def ode_causal(m0: Fraction, H: int, N: int, e_lo: Fraction, eps: Fraction) -> Bound:
    """Theorem 4.2 setting, eq. 5, every ``a_i(0) = <x_1, x_i(0)> >= m0 > 0``:
    ``min_i a_i(t) >= tanh(c t + artanh m0)`` with ``c = H e_lo / N``, so
    ``max_i (1 - a_i(t)) <= eps`` for ``t >= T = (artanh(1 - eps) - artanh(m0)) / c``;
    ``1 - tanh(u) <= 2 exp(-2u)`` gives the rate ``2c``."""
    c = Fraction(H) * e_lo / N
    if c <= 0 or not 0 < m0 <= 1:
        raise ArithmeticError("need c > 0 and 0 < m0 <= 1")
    terms = {"c": str(c), "m0": str(m0)}
    if m0 >= 1 - eps:
        return Bound(Fraction(0), short_down(2 * c), terms)
    with flint.ctx.workprec(PREC):
        T = upper((ball(1 - eps).atanh() - ball(m0).atanh()) / ball(c))
    return Bound(short_up(T), short_down(2 * c), terms)


def ode_token2(a0: Fraction, H: int, e_lo: Fraction, eps: Fraction) -> Bound | None:
    """Token 2 under causal attention: ``a(t) >= tanh(w_lo t + artanh a(0))``, ``w_lo = H e_lo / 2``,
    for any ``a(0) > -1``; ``None`` at ``a(0) = -1`` (an equilibrium)."""
    if a0 <= -1:
        return None
    w = Fraction(H) * e_lo / 2
    terms = {"w_lo": str(w), "a0": str(a0)}
    if a0 >= 1 - eps:
        return Bound(Fraction(0), short_down(2 * w), terms)
    with flint.ctx.workprec(PREC):
        T = upper((ball(1 - eps).atanh() - ball(a0).atanh()) / ball(w))
    return Bound(short_up(T), short_down(2 * w), terms)


def _layers(Q: Fraction, kappa: Fraction, eps: Fraction, terms: dict[str, str]) -> Bound:
    """``Q rho^(2L) <= eps`` with ``rho = 1 - kappa``: ``L = ceil(ln(Q/eps) / (-2 ln rho))``."""
    if not 0 < kappa < 1:
        raise ArithmeticError("the per-layer contraction is not in (0, 1)")
    with flint.ctx.workprec(PREC):
        minus_log = -(ball(1 - kappa).log()) * 2
        rate = short_down(lower(minus_log))
        if Q <= eps:
            return Bound(0, rate, terms)
        L = math.ceil(upper(_log_ratio_up(Q, eps) / minus_log))
    return Bound(L, rate, terms)


def layers_full(chart: Chart, H: int, e_lo: Fraction, tau: Fraction, eps: Fraction) -> Bound:
    """Layer map (eq. 4), full attention, ``U^h = I``: in the chart each layer is a stochastic matrix
    with every entry ``>= mu = tau (H e_lo / N) m0 / (|z| (1 + tau H))``, so the diameter contracts by
    ``1 - N mu = 1 - kappa``, ``kappa = tau H e_lo r_lo / (1 + tau H)``, per layer."""
    kappa = tau * H * e_lo * chart.r_lo / (1 + tau * H)
    return _layers(chart.Q, kappa, eps, {"kappa (= N mu)": str(kappa), "C": str(chart.Q)})


def layers_causal(chart: Chart, H: int, N: int, e_lo: Fraction, tau: Fraction, eps: Fraction) -> Bound:
    """Layer map, causal, ``U^h = I``, every token in the open hemisphere around ``x_1``: with
    ``z = x_1`` the chart weight on ``y_1`` is ``>= mu1 = tau H e_lo / (N (1 + tau H))``, so
    ``max_i |y_i - y_1|`` contracts by ``1 - mu1`` per layer (no margin factor: ``s_1 = |z|``)."""
    mu1 = tau * H * e_lo / (N * (1 + tau * H))
    return _layers(chart.Q, mu1, eps, {"mu1": str(mu1), "C": str(chart.Q)})


def token2_report(theorem_id, model, tokens, H, e_lo, eps) -> dict[str, Any]:
    """4.2, ODE: token 2's own bound ``a(t) >= tanh(w_lo t + artanh a(0))`` (any ``a(0) > -1``)."""
    if theorem_id != "4.2" or model != "ode" or len(tokens) < 2:
        return {}
    x1, x2 = tokens[0], tokens[1]
    a2 = dot(x1, x2) ** 2 / (dot(x1, x1) * dot(x2, x2))  # a(0)^2, exact
    r = sqrt_down(a2)
    if dot(x1, x2) > 0:
        a0 = r
    else:  # a(0) = -sqrt(a2) >= -(r + 1e-17): sqrt_down errs by less than 1e-18 for a2 <= 1
        a0 = -(r if r * r == a2 else min(r + Fraction(1, 10 ** 17), Fraction(1)))
    bound = ode_token2(a0, H, e_lo, eps)
    return {"token2": None if bound is None else {"bound": str(bound.value), "rate": str(bound.rate), **bound.terms}}
