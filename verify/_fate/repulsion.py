"""``d = 2``: the tokens never reach consensus, proved for all time without a simulation (route ``repulsion``).

Causal mask: token 2 never meets token 1.  Full mask (below): the set where all tokens coincide repels.

Under the causal mask tokens 1 and 2 form a closed system (row ``i`` sees the tokens ``j <= i``).  On the
circle write ``x = (cos th, sin th)``, ``x^perp = (-sin th, cos th)``, ``phi = th_2 - th_1``.  Token 1 alone:
``th_1' = f(th_1) = <x_1^perp, U_s x_1>`` (``U_s = sum_h U^h``, its own weight is 1).  Token 2:
``th_2' = g(th_1, th_2) = sum_h <x_2^perp, U^h (a^h_21 x_1 + a^h_22 x_2)>``, ``a^h_2j`` the softmax of
``beta <x_2, P^h x_j>`` over ``j = 1, 2``; ``g(th, th) = f(th)`` (equal tokens move together).

**Lemma.**  Data (:class:`Repulsion`, exact rationals): the harmonics ``a_k, b_k`` (``k = 1..K``) of
``W(th) = sum_k a_k cos k th + b_k sin k th``, a band ``0 < delta <= 1`` and a number of boxes ``M``.  Checks:

(a) ``x_1(0) != x_2(0)`` (exact: the rational vectors are not positive multiples of each other);
(b) for every ``m < M``, ``Th = pi [2m/M, 2(m+1)/M]`` and each of ``J`` pieces ``Ph`` of ``[-delta, delta]``
    (arb balls): ``W'(Th) f(Th) c(Ph) + s(Ph) K > 0``, where ``K`` is an enclosure of ``d g / d th_2`` over
    ``th_1 in Th``, ``th_2 in Th + hull(0, Ph)``, ``c(Ph) = [1/2 - r^2/24, 1/2]`` and ``s(Ph) = [1 - r^2/6, 1]``
    (``r = max |Ph|``).

Then with ``w = e^W``, ``V = w(th_1) (1 - cos phi)``, ``c* = min(V(0), e^{min W} (1 - cos delta))``:
``|x_2(t) - x_1(t)|^2 >= 2 c* e^{-max W}`` for every ``t >= 0``.

*Proof.*  ``V' = w phi^2 (W' f c(phi) + s(phi) k)`` with ``c(phi) = (1 - cos phi)/phi^2``, ``s(phi) = sin phi/phi``
(``1 - phi^2/2 <= cos phi <= 1 - phi^2/2 + phi^4/24`` and ``phi - phi^3/6 <= sin phi <= phi`` for ``phi >= 0`` put
them in the intervals of (b)), ``th_2' - th_1' = g(th_1, th_1 + phi) - g(th_1, th_1) = phi k`` with
``k = dg/dth_2 (th_1, th_1 + xi)`` for some ``xi`` between 0 and ``phi`` (mean value theorem), so ``k`` lies in
``K`` (its ``th_2`` range is ``Th + hull(0, Ph)``, not ``Th + Ph``: ``xi`` need not lie in the piece).  By (b) ``V' > 0`` wherever
``0 < |phi| <= delta`` (mod ``2 pi``).  ``V < c*`` forces ``1 - cos phi < 1 - cos delta``, i.e. ``|phi| < delta``.
``V(0) >= c* > 0`` by (a).  If ``V(t_1) < c*``, let ``t_0`` be the last time before ``t_1`` with ``V = c*``:
there ``0 < |phi| <= delta``, so ``V' > 0`` and ``V > c*`` just after ``t_0``, a contradiction.  So ``V >= c*``
always, and ``|x_2 - x_1|^2 = 2 (1 - cos phi) >= 2 c* / max w``.  QED.  The claim is for all time and every
``N`` (the other tokens do not act on tokens 1 and 2), but only for exact starting points.

**Full mask** (``N <= 8``).  No pair is closed, so all tokens at once: ``G_j(th_1, .., th_N)`` is token ``j``'s
angular speed, ``phi_j = th_j - th_1`` (``j = 2..N``), ``S = sum_j (1 - cos phi_j)``, ``V = e^{W(th_1)} S``.
Check (a'): some token is not at token 1 at ``t = 0`` (exact).  Check (b'): for every box ``Th`` of ``th_1`` and
the box ``[-delta, delta]^{N-1}`` of ``phi``, the symmetric part of the interval matrix ``Q_jk = s M_jk +
[j = k] W'(Th) G_1 c`` is diagonally dominant with a positive diagonal (Gershgorin: every matrix in it is
positive definite), where ``M_jk`` encloses ``d(G_j - G_1)/dth_k`` and ``G_1`` token 1's speed over the box,
``c`` and ``s`` as in (b) with ``r = delta``.  *Proof.*  All tokens at one point move together, so
``G_j - G_1 = 0`` at ``phi = 0``, and ``th_j' - th_1' = sum_k phi_k Mbar_jk`` with ``Mbar_jk = int_0^1
d(G_j - G_1)/dth_k (th_1, s phi) ds`` in ``M_jk`` (the segment lies in the box).  Then ``V' = e^W (W' G_1 S +
sum_j sin phi_j (th_j' - th_1')) = e^W phi^T Q phi`` for a matrix ``Q`` in the interval matrix, ``> 0``
whenever ``0 < max_j |phi_j| <= delta``.  ``V < c* = min(V(0), e^{min W} (1 - cos delta))`` forces every
``|phi_j| < delta``; as above ``V >= c*`` for all ``t >= 0``, so ``max_j (1 - cos phi_j) >= S/(N - 1)`` gives
``max_j |x_j(t) - x_1(t)|^2 >= 2 c* e^{-max W} / (N - 1)``: the diameter never tends to 0.  By the
permutation symmetry of the full mask, the linearisation across the consensus set is ``h(th)`` times the
identity (``M`` is diagonal at ``phi = 0``), so the same scalar weight works as for the pair.

Where ``W`` comes from (outside the proof, :mod:`.repulsion_hints`): along token 1's rotation, ``W' =
2 (kappa - h) / f`` with ``h(th) = dg/dth_2 (th, th)`` and ``kappa`` the time average of ``h`` over one turn
makes the bracket at ``phi = 0`` equal to ``kappa``: a positive average repulsion suffices even where ``h < 0``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import final

from flint import arb, ctx

from verify.equilibrium.krawczyk import rational_ball

from .problem import FateProblem

PRECISION = 128
MAX_BOXES = 2**16
MAX_HARMONICS = 64
PIECES = 4
"""Pieces of ``[-delta, delta]`` per box of ``th_1`` (causal mask)."""
MAX_FULL_N = 8


@final
@dataclass(frozen=True)
class Repulsion:
    a: tuple[Fraction, ...]
    b: tuple[Fraction, ...]
    delta: Fraction
    boxes: int


@final
@dataclass(frozen=True)
class RepulsionCheck:
    ok: bool
    reason: str
    bound: Fraction | None = None
    """A rational lower bound, for every ``t >= 0``, of ``|x_2(t) - x_1(t)|`` (causal) or ``max_j |x_j(t) - x_1(t)|``
    (full mask); either is at most the diameter."""


def _problem(problem: FateProblem, data: Repulsion) -> str:
    if problem.d != 2 or problem.N < 2:
        return "the repulsion route needs d = 2 and at least two tokens"
    if problem.mask == "full" and problem.N > MAX_FULL_N:
        return f"the full-mask repulsion route takes at most {MAX_FULL_N} tokens"
    if not isinstance(data.a, tuple) or not isinstance(data.b, tuple):
        return "the harmonics a_k and b_k must be tuples of rationals"
    if len(data.a) != len(data.b) or not 1 <= len(data.a) <= MAX_HARMONICS:
        return f"W needs 1..{MAX_HARMONICS} harmonics, as many a_k as b_k"
    if not all(isinstance(v, Fraction) for v in (*data.a, *data.b, data.delta)):
        return "the harmonics and delta must be exact rationals"
    if not 0 < data.delta <= 1:
        return "delta must lie in (0, 1]"
    if isinstance(data.boxes, bool) or not isinstance(data.boxes, int) or not 16 <= data.boxes <= MAX_BOXES:
        return f"the number of boxes must be an integer in [16, {MAX_BOXES}]"
    return ""


def _same_point(u, v) -> bool:
    """``u / |u| == v / |v|`` exactly (parallel with a positive dot product)."""
    return u[0] * v[1] - u[1] * v[0] == 0 and u[0] * v[0] + u[1] * v[1] > 0


def _distinct(problem: FateProblem) -> bool:
    """Causal: token 2 is not at token 1; full mask: some token is not at token 1 (exact)."""
    others = problem.tokens[1:2] if problem.mask == "causal" else problem.tokens[1:]
    return any(not _same_point(problem.tokens[0], v) for v in others)


def _heads(problem: FateProblem):
    ball = lambda M: [[rational_ball(v) for v in row] for row in M]  # noqa: E731
    return [(ball(P), ball(U)) for P, U in problem.heads], rational_ball(problem.beta)


def _mv(M, x):
    return [M[0][0] * x[0] + M[0][1] * x[1], M[1][0] * x[0] + M[1][1] * x[1]]


def _dot(u, v):
    return u[0] * v[0] + u[1] * v[1]


def token1_speed(heads, c, s):
    """``f = <x^perp, U_s x>`` at ``x = (c, s)``."""
    x, xp = [c, s], [-s, c]
    return sum((_dot(xp, _mv(U, x)) for _, U in heads), arb(0))


def token2_slope(heads, beta, c1, s1, c2, s2):
    """``d g / d th_2`` at ``x_1 = (c1, s1)``, ``x_2 = (c2, s2)`` (the derivative of token 2's angular speed
    with respect to its own angle): with ``dx_2 = x_2^perp``, ``dx_2^perp = -x_2`` and
    ``da_21 = a_21 a_22 (ds_21 - ds_22)``."""
    x1, x2, x2p = [c1, s1], [c2, s2], [-s2, c2]
    out = arb(0)
    for P, U in heads:
        Px1, Px2, Px2p = _mv(P, x1), _mv(P, x2), _mv(P, x2p)
        s21, s22 = beta * _dot(x2, Px1), beta * _dot(x2, Px2)
        ds21 = beta * _dot(x2p, Px1)
        ds22 = beta * (_dot(x2p, Px2) + _dot(x2, Px2p))
        top = (s21 - s22).exp()  # a_21 = top / (1 + top), a_22 = 1 / (1 + top)
        a21, a22 = top / (1 + top), 1 / (1 + top)
        da21 = a21 * a22 * (ds21 - ds22)
        v = [a21 * x1[i] + a22 * x2[i] for i in range(2)]
        dv = [da21 * (x1[i] - x2[i]) + a22 * x2p[i] for i in range(2)]
        out += _dot(x2p, _mv(U, dv)) - _dot(x2, _mv(U, v))
    return out


def full_rates(heads, beta, xs):
    """Full mask: the angular speeds ``G_j = <x_j^perp, x_j'>`` and their derivatives ``dG[j][k] = dG_j / dth_k``
    at the tokens ``xs = [(cos th_j, sin th_j)]`` (balls).  With ``v_j = sum_l a_jl x_l``: for ``k != j``,
    ``ds_jk = beta <x_j, P x_k^perp>`` and ``dv_j = a_jk (ds_jk (x_k - v_j) + x_k^perp)``; for ``k = j``,
    ``ds_jl = beta (<x_j^perp, P x_l> + [l = j] <x_j, P x_j^perp>)``, ``dv_j = sum_l a_jl (ds_jl - sum_m a_jm ds_jm) x_l
    + a_jj x_j^perp`` and ``dG_jj`` gains ``-<x_j, U v_j>``."""
    N = len(xs)
    X = [[c, s] for c, s in xs]
    Xp = [[-s, c] for c, s in xs]
    G = [arb(0) for _ in range(N)]
    dG = [[arb(0) for _ in range(N)] for _ in range(N)]
    for P, U in heads:
        PX, PXp = [_mv(P, x) for x in X], [_mv(P, x) for x in Xp]
        for j in range(N):
            sc = [beta * _dot(X[j], PX[l]) for l in range(N)]
            top = max(range(N), key=lambda l: sc[l].mid())
            e = [(sc[l] - sc[top]).exp() for l in range(N)]
            z = sum(e, arb(0))
            a = [v / z for v in e]
            v = [sum((a[l] * X[l][i] for l in range(N)), arb(0)) for i in range(2)]
            G[j] += _dot(Xp[j], _mv(U, v))
            for k in range(N):
                if k != j:
                    ds = beta * _dot(X[j], PXp[k])
                    dv = [a[k] * (ds * (X[k][i] - v[i]) + Xp[k][i]) for i in range(2)]
                    dG[j][k] += _dot(Xp[j], _mv(U, dv))
                else:
                    ds = [beta * (_dot(Xp[j], PX[l]) + (_dot(X[j], PXp[j]) if l == j else 0)) for l in range(N)]
                    mean = sum((a[l] * ds[l] for l in range(N)), arb(0))
                    dv = [sum((a[l] * (ds[l] - mean) * X[l][i] for l in range(N)), arb(0)) + a[j] * Xp[j][i]
                          for i in range(2)]
                    dG[j][j] += _dot(Xp[j], _mv(U, dv)) - _dot(X[j], _mv(U, v))
    return G, dG


def full_quadratic(heads, beta, u: arb, dW: arb, N: int, delta: Fraction) -> list[list[arb]]:
    """Full mask: the interval matrix ``Q`` (indices ``j, k = 2..N``) with ``V' = e^W phi^T Q phi`` over
    ``th_1 = pi u`` and every ``phi_j = th_j - th_1`` in ``[-delta, delta]``: ``Q_jk = s M_jk + [j = k] W' G_1 c``,
    ``M_jk`` enclosing ``d(G_j - G_1)/dth_k`` over that box (the integral mean value form of
    ``th_j' - th_1' = sum_k phi_k int_0^1 d(G_j - G_1)/dth_k (th_1, s phi) ds``)."""
    r = rational_ball(delta)
    phi = arb(0, r.upper())
    s1, c1 = u.sin_cos_pi()
    others = (u * arb.pi() + phi).sin_cos()
    xs = [(c1, s1)] + [(others[1], others[0])] * (N - 1)
    G, dG = full_rates(heads, beta, xs)
    cph = rational_ball(Fraction(1, 2)) - r * r / 48 + arb(0, (r * r / 48).upper())
    sph = 1 - r * r / 12 + arb(0, (r * r / 12).upper())
    Q = [[sph * (dG[j][k] - dG[0][k]) for k in range(1, N)] for j in range(1, N)]
    for j in range(N - 1):
        Q[j][j] += dW * G[0] * cph
    return Q


def dominant(Q: list[list[arb]]) -> arb:
    """``min_j (Qs_jj - sum_{k != j} |Qs_jk|)`` for ``Qs = (Q + Q^T)/2``: positive proves ``phi^T Q phi > 0`` for
    every ``phi != 0`` and every matrix in the interval matrix (Gershgorin)."""
    n = len(Q)
    out = None
    for j in range(n):
        row = Q[j][j] - sum((abs((Q[j][k] + Q[k][j]) / 2) for k in range(n) if k != j), arb(0))
        if not row.is_finite():  # an unbounded or NaN row fails the test (NaN compares false with everything)
            return arb("nan")
        out = row if out is None else (row if row.lower() < out.lower() else out)
    return out


def weight(data: Repulsion, cs: list) -> tuple[arb, arb]:
    """``(W, W')`` from ``cs[k - 1] = (cos k th, sin k th)``."""
    W, dW = arb(0), arb(0)
    for k, ((ck, sk), a, b) in enumerate(zip(cs, data.a, data.b), start=1):
        A, B = rational_ball(a), rational_ball(b)
        W += A * ck + B * sk
        dW += k * (B * ck - A * sk)
    return W, dW


def harmonics_box(u: arb, K: int) -> list:
    """``(cos k pi u, sin k pi u)`` for ``k = 1..K`` over the ball ``u``."""
    out = []
    for k in range(1, K + 1):
        s, c = (k * u).sin_cos_pi()
        out.append((c, s))
    return out


def _harmonics_point(c: arb, s: arb, K: int) -> list:
    """``(cos k th, sin k th)`` from ``(cos th, sin th)`` by the angle-addition recurrence."""
    out, (ck, sk) = [], (c, s)
    for _ in range(K):
        out.append((ck, sk))
        ck, sk = ck * c - sk * s, sk * c + ck * s
    return out


def box(M: int, m: int) -> arb:
    """The ball ``u = [2m/M, 2(m+1)/M]`` (``th_1 = pi u``)."""
    return rational_ball(Fraction(2 * m + 1, M)) + arb(0, rational_ball(Fraction(1, M)).upper())


def piece_bracket(heads, beta, u: arb, c1: arb, s1: arb, dWf: arb, lo: Fraction, hi: Fraction) -> arb:
    """The bracket ``W' f c(phi) + s(phi) k`` of step (b) over ``th_1 = pi u`` (``(c1, s1)`` its cosine and sine,
    ``dWf`` an enclosure of ``W' f`` there) and ``phi in [lo, hi]``."""
    r = rational_ball(max(abs(lo), abs(hi)))
    a, b = min(lo, Fraction(0)), max(hi, Fraction(0))  # the mean value point lies between 0 and phi
    xi = rational_ball((a + b) / 2) + arb(0, rational_ball((b - a) / 2).upper())
    s2, c2 = (u * arb.pi() + xi).sin_cos()
    k = token2_slope(heads, beta, c1, s1, c2, s2)
    cph = rational_ball(Fraction(1, 2)) - r * r / 48 + arb(0, (r * r / 48).upper())  # [1/2 - r^2/24, 1/2]
    sph = 1 - r * r / 12 + arb(0, (r * r / 12).upper())  # [1 - r^2/6, 1]
    return dWf * cph + sph * k


def _unit(row) -> list[arb]:
    x = [rational_ball(v) for v in row]
    n = (x[0] * x[0] + x[1] * x[1]).sqrt()
    return [x[0] / n, x[1] / n]


def check_repulsion(problem: FateProblem, data: Repulsion) -> RepulsionCheck:
    """Steps (a) and (b) of the module docstring (causal mask) or of the full-mask lemma, and the distance
    bound (exact rationals and arb balls)."""
    why = _problem(problem, data)
    if why:
        return RepulsionCheck(False, why)
    causal = problem.mask == "causal"
    if not _distinct(problem):
        return RepulsionCheck(False, "tokens 1 and 2 start at the same point" if causal
                              else "every token starts at token 1's point (consensus at t = 0)")
    K, M, delta, N = len(data.a), data.boxes, data.delta, problem.N
    with ctx.workprec(PRECISION):
        heads, beta = _heads(problem)
        D = rational_ball(delta)
        W_lo, W_hi = None, None
        worst = None
        for m in range(M):
            u = box(M, m)
            W, dW = weight(data, harmonics_box(u, K))
            W_lo = W.lower() if W_lo is None else min(W_lo, W.lower())
            W_hi = W.upper() if W_hi is None else max(W_hi, W.upper())
            if causal:
                s1, c1 = u.sin_cos_pi()
                f = token1_speed(heads, c1, s1)
                pieces = [(-delta + 2 * delta * j / PIECES, -delta + 2 * delta * (j + 1) / PIECES) for j in range(PIECES)]
                values = [(lo, hi, piece_bracket(heads, beta, u, c1, s1, dW * f, lo, hi)) for lo, hi in pieces]
            else:
                values = [(-delta, delta, dominant(full_quadratic(heads, beta, u, dW, N, delta)))]
            for lo, hi, value in values:
                if not value > 0:
                    what = "the bracket W' f c + s k" if causal else "the diagonal dominance of (Q + Q^T)/2"
                    return RepulsionCheck(False, f"{what} is not proved positive on the box th_1 in pi [{2 * m}/{M}, "
                                                 f"{2 * m + 2}/{M}], phi in [{lo}, {hi}] (lower bound "
                                                 f"{float(value.lower()):.3g})")
                worst = value.lower() if worst is None else min(worst, value.lower())
        xs = [_unit(row) for row in problem.tokens[:2 if causal else N]]
        W0, _ = weight(data, _harmonics_point(xs[0][0], xs[0][1], K))
        V0 = W0.exp() * sum((1 - _dot(xs[0], x) for x in xs[1:]), arb(0))
        band = W_lo.exp() * (1 - D.cos())
        cstar = arb(min(V0.lower(), band.lower()))  # <= V(0) and <= e^{min W} (1 - cos delta)
        if not cstar > 0:
            return RepulsionCheck(False, "V(0) or the band level is not proved positive")
        bound2 = 2 * cstar / arb(W_hi).exp() / (len(xs) - 1)
        bound = _down(bound2.lower().sqrt())
        if not bound > 0:
            return RepulsionCheck(False, "the distance bound is not proved positive")
    if causal:
        return RepulsionCheck(True, f"tokens 1 and 2 (closed under the causal mask) repel on average: V = e^W (1 - cos phi) "
                                    f"increases wherever 0 < |phi| <= {delta} ({M} boxes x {PIECES} pieces, smallest "
                                    f"bracket {float(worst):.3g}), so |x_2(t) - x_1(t)| >= {float(bound):.3g} for every t >= 0",
                              bound)
    return RepulsionCheck(True, f"the consensus set repels (full mask): V = e^W sum_j (1 - cos phi_j) increases wherever "
                                f"0 < max_j |phi_j| <= {delta} ({M} boxes, smallest dominance margin {float(worst):.3g}), "
                                f"so max_j |x_j(t) - x_1(t)| >= {float(bound):.3g} for every t >= 0", bound)


def _down(x: arb) -> Fraction:
    """A rational ``<=`` every point of the ball ``x`` (its lower end rounded down to a multiple of ``2^-64``)."""
    return Fraction(int((x.lower() * 2**64).floor().unique_fmpz()), 2**64)


__all__ = ["PIECES", "Repulsion", "RepulsionCheck", "box", "check_repulsion", "dominant", "full_quadratic", "full_rates",
           "piece_bracket", "token1_speed",
           "token2_slope", "harmonics_box", "weight"]
