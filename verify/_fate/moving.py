"""Consensus without a fixed limit: the diameter of the tokens goes to 0 while the common point may move.

Setting: eq. 5 with the **full** mask, any number of heads, any ``P^h``, ``U^h``, ``beta > 0``;
``U_s = sum_h U^h``, ``q(x) = <x, U_s x>``, ``m^h_i = sum_k a^h_ik x_k``, ``v_i = sum_h U^h m^h_i``,
``x_i' = v_i - <x_i, v_i> x_i``, ``D = max_ij |x_i - x_j|``.  Data (exact rationals, :class:`Moving`):
a symmetric ``G`` with ``g_lo I <= G <= g_hi I`` (``g_lo > 0``), ``mu > 0``, ``tau2 >= 0``,
norm bounds ``u_h >= ||U^h||_2``, ``p_h >= ||P^h||_2``, a diameter bound ``Dmax`` and, optionally, a
region ``R = {x in S^{d-1} : x^T Q x >= gamma}`` (``Q`` symmetric, ``n_Q >= ||Q||_2``, ``tau1``);
without a region ``R`` is the whole sphere.  Write ``nU = sum_h u_h``, ``nUP = sum_h u_h p_h``.

:func:`check_moving` proves exactly (fraction-free LDL^T, :func:`verify._sos.exact_psd.check_psd`):

(a) ``G - g_lo I``, ``g_hi I - G``, ``u_h^2 I - U^T U``, ``p_h^2 I - P^T P``, ``n_Q^2 I - Q^2`` PSD;
(b) ``sym(G U_s) - mu G - tau2 (Q - gamma I)`` PSD (``tau2 = 0`` without a region): by the S-lemma's
    easy direction, ``x^T G U_s x >= mu x^T G x`` for every ``x`` in ``R``;
(c) region only: ``M + tau1 (Q - gamma I)`` positive definite, ``M = Q U_s + U_s^T Q - gamma (U_s + U_s^T)
    - 2 n_Q nU Dmax I``, so ``x^T M x > 0`` on the boundary ``x^T Q x = gamma`` of ``R``;
(d) ``kappa = 2 mu - Dmax nU (1 + 2 g_hi / g_lo) - (beta/2) nUP Dmax^2 - (beta/4) nUP Dmax^3 > 0``.

:func:`moving_entered` decides in arb that the token balls at a time ``T`` satisfy, for all ``i != j``,
``g_hi |x_i - x_j|^2 < Dmax^2 x_i^T G x_i`` and (region) ``x_i^T Q x_i > gamma``.

**Lemma.** Under (a)-(d) and the entry condition at ``T``, ``D(t) <= Dmax e^{-kappa (t - T)/2}`` for
``t >= T``: consensus (``|x_i - x_j| -> 0``); the common point need not converge.

*Proof.* Let ``F = max_{i != j} f_ij``, ``f_ij = |x_i - x_j|^2 / x_i^T G x_i``; ``D^2 <= g_hi F`` and
at ``T``, ``F <= F_T = Dmax^2 / g_hi``.  (1) Softmax: the logits of rows ``i`` and ``j`` of head ``h``
differ by ``delta_k = beta <e, P x_k>`` (``e = x_i - x_j``, full mask: the same ``k``), and along
``p(s) = softmax(s' + s delta)``, ``|p'|_1 = E_p |delta - E_p delta| <= sqrt(Var_p delta) <= osc(delta)/2``
(Popoviciu), ``osc(delta) <= beta p_h |e| D``: ``|a_i - a_j|_1 <= beta p_h |e| D / 2``.  A weight
vector ``w`` with ``sum w = 0`` gives ``|sum_k w_k x_k| <= |w|_1 D / 2`` (difference of two points of
the hull, scaled), so ``|m^h_i - m^h_j| <= beta p_h |e| D^2 / 4`` and ``|v_i - v_j| <= beta nUP |e| D^2/4``.
Also ``|m^h_i - x_i| <= D``, ``|m^h_i| <= 1``, ``|v_i| <= nU``.  (2) With ``<e, x_i> = |e|^2/2 = -<e, x_j>``,
for a pair with ``f_ij = F > 0``:
``(log f_ij)' = 2<e, v_i - v_j>/|e|^2 + <x_i, v_i> - <x_j, v_j> - 2 x_i^T G v_i / x_i^T G x_i``.
The first term is ``<= (beta/2) nUP D^2``; the second ``= <e, v_i> + <x_j, v_i - v_j> <= D nU + (beta/4) nUP D^3``;
with ``v_i = U_s x_i + r_i``, ``|r_i| = |sum_h U^h (m^h_i - x_i)| <= nU D``, and ``x_i`` in ``R`` the third
is ``<= -2 mu + 2 g_hi nU D / g_lo`` (``|G x| <= g_hi``, ``x^T G x >= g_lo``).  So
``(log f_ij)' <= -kappa(D)``, ``kappa(.)`` decreasing.  (3) Region: ``x_i' = Proj(U_s x_i) + Proj(r_i)`` and
``(x^T Q x)' = x^T (Q U_s + U_s^T Q) x - 2 q(x) x^T Q x + 2 x^T Q Proj(r)``, which on ``x^T Q x = gamma``
is ``>= x^T M x > 0`` while ``D <= Dmax`` (``q(x) = x^T sym(U_s) x``, ``|x| = 1``).  (4) Let ``t*`` be the
supremum of the ``s >= T`` with ``F <= F_T`` and every token in ``R`` on ``[T, s]``.  If ``t* < inf``,
both hold at ``t*`` (closed conditions); then ``D <= Dmax``, the upper Dini derivative of ``F`` (a
maximum of finitely many ``C^1`` functions) is ``<= -kappa F < 0`` when ``F = F_T``, and a token on the
boundary of ``R`` moves inward: both hold a little longer, a contradiction (if ``F = 0`` every token
coincides, and the full mask's permutation symmetry keeps them together).  So ``D^+ F <= -kappa F``
for all ``t >= T``, ``F(t) <= F_T e^{-kappa (t - T)}`` and ``D^2 <= g_hi F``.  QED.

**Causal mask**: :mod:`.moving_causal` states and proves its lemma (token 1 leads; ``V = sum_k c_k
|x_k - x_1|^2 / W^{p_k}``, steps (e) and (d')); :func:`check_moving` runs (a)-(c) there too, with the ``Dmax`` term
of ``M`` dropped (token 1 has no perturbation).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import final

from flint import arb

from verify._sos.exact_psd import check_psd
from verify.equilibrium.krawczyk import rational_ball

from .moving_causal import Causal, causal_checks, causal_kappa, causal_numbers
from .problem import FateProblem, Matrix


@final
@dataclass(frozen=True)
class Region:
    Q: Matrix
    gamma: Fraction
    tau1: Fraction
    qnorm: Fraction


@final
@dataclass(frozen=True)
class Moving:
    G: Matrix
    g_lo: Fraction
    g_hi: Fraction
    mu: Fraction
    tau2: Fraction
    unorm: tuple[Fraction, ...]
    pnorm: tuple[Fraction, ...]
    Dmax: Fraction
    region: Region | None = None
    causal: Causal | None = None


@final
@dataclass(frozen=True)
class MovingCheck:
    ok: bool
    reason: str
    kappa: Fraction | None = None


def _all_exact(m: Moving) -> bool:
    """Every scalar and matrix entry of ``m`` (and of its region and causal data) is a ``Fraction``."""
    def flat(*items):
        for x in items:
            if isinstance(x, (tuple, list)):
                yield from flat(*x)
            else:
                yield x
    parts = [m.G, m.g_lo, m.g_hi, m.mu, m.tau2, m.unorm, m.pnorm, m.Dmax]
    if m.region is not None:
        parts += [m.region.Q, m.region.gamma, m.region.tau1, m.region.qnorm]
    if m.causal is not None:
        parts += causal_numbers(m.causal)
    return all(type(x) is Fraction for x in flat(*parts))


def _eye(d: int, c: Fraction = Fraction(1)) -> list[list[Fraction]]:
    return [[c if a == b else Fraction(0) for b in range(d)] for a in range(d)]


def _mul(A: Sequence[Sequence[Fraction]], B: Sequence[Sequence[Fraction]]) -> list[list[Fraction]]:
    return [[sum((A[i][k] * B[k][j] for k in range(len(B))), Fraction(0)) for j in range(len(B[0]))] for i in range(len(A))]


def _tr(A: Sequence[Sequence[Fraction]]) -> list[list[Fraction]]:
    return [list(col) for col in zip(*A)]


def _lin(*terms) -> list[list[Fraction]]:
    """``sum c_k A_k`` for pairs ``(c_k, A_k)``."""
    d = len(terms[0][1])
    return [[sum((c * A[i][j] for c, A in terms), Fraction(0)) for j in range(d)] for i in range(d)]


def _psd(M, definite: bool = False) -> bool:
    out = check_psd([list(r) for r in M])
    return out.ok and (not definite or out.rank == len(M))


def _sym_minus(A, s: Fraction) -> list[list[Fraction]]:
    """``sym(A) - s I``."""
    return _lin((Fraction(1, 2), A), (Fraction(1, 2), _tr(A)), (Fraction(-1), _eye(len(A), s)))


def norm_bound_ok(A: Sequence[Sequence[Fraction]], s: Fraction) -> bool:
    """``s >= ||A||_2`` exactly: ``s >= 0`` and ``s^2 I - A^T A`` PSD."""
    return s >= 0 and _psd(_lin((Fraction(1), _eye(len(A), s * s)), (Fraction(-1), _mul(_tr(A), A))))


def kappa(problem: FateProblem, m: Moving) -> Fraction:
    """The decay rate of the lemma at ``Dmax`` (exact): (d) for the full mask, (d') for the causal mask
    (``-1`` when a hypothesis of (d') fails: ``2 beta p_h Dmax >= 1`` or malformed weights)."""
    nU = sum(m.unorm, Fraction(0))
    D, b = m.Dmax, problem.beta
    if m.causal is None:
        nUP = sum((u * p for u, p in zip(m.unorm, m.pnorm)), Fraction(0))
        return 2 * m.mu - D * nU * (1 + 2 * m.g_hi / m.g_lo) - b / 2 * nUP * D ** 2 - b / 4 * nUP * D ** 3
    return causal_kappa(problem, m.mu, m.unorm, m.pnorm, D, m.causal, m.g_lo, m.g_hi)


def check_moving(problem: FateProblem, m: Moving) -> MovingCheck:
    """Steps (a)-(d) of the module docstring (full mask) or (a)-(d') (causal mask), exact rationals only."""
    d, H, N = problem.d, len(problem.heads), problem.N
    causal = problem.mask == "causal"
    if not _all_exact(m):
        return MovingCheck(False, "every number of the data must be an exact rational (fractions.Fraction), no float")
    if causal != (m.causal is not None) or (m.causal is not None and type(m.causal) is not Causal):
        return MovingCheck(False, "the causal data (c, eta, lam) are stored exactly for a causal-mask instance")
    if not (len(m.G) == d and all(len(r) == d for r in m.G) and len(m.unorm) == H and len(m.pnorm) == H):
        return MovingCheck(False, f"malformed data (G {d}x{d}, {H} norm bounds for U and for P)")
    if causal and not (N >= 2 and len(m.causal.c) == N - 1 and len(m.causal.lam) == H):
        return MovingCheck(False, f"malformed causal data ({N - 1} weights c_k, {H} bounds lam_h, N >= 2)")
    if m.region is not None and not (len(m.region.Q) == d and all(len(r) == d for r in m.region.Q)):
        return MovingCheck(False, f"malformed data (Q {d}x{d})")
    if not (m.g_lo > 0 and m.g_hi > 0 and m.mu > 0 and m.tau2 >= 0 and m.Dmax > 0):
        return MovingCheck(False, "need g_lo, g_hi, mu, Dmax > 0 and tau2 >= 0")
    if m.region is None and m.tau2 != 0:
        return MovingCheck(False, "tau2 must be 0 without a region")
    G = [list(r) for r in m.G]
    if any(G[a][b] != G[b][a] for a in range(d) for b in range(a)):
        return MovingCheck(False, "G must be symmetric")
    if not _psd(_lin((Fraction(1), G), (Fraction(-1), _eye(d, m.g_lo)))) or not _psd(
            _lin((Fraction(1), _eye(d, m.g_hi)), (Fraction(-1), G))):
        return MovingCheck(False, "g_lo I <= G <= g_hi I is not proved (exact LDL^T)")
    for h, (P, U) in enumerate(problem.heads):
        if not norm_bound_ok(U, m.unorm[h]) or not norm_bound_ok(P, m.pnorm[h]):
            return MovingCheck(False, f"the norm bounds of head {h} (||U||_2, ||P||_2) are not proved")
        if causal and not _psd(_lin((Fraction(1), _eye(d, m.causal.lam[h])), (Fraction(-1, 2), U), (Fraction(-1, 2), _tr(U)))):
            return MovingCheck(False, f"lam_{h} >= lambda_max(sym U^{h}) is not proved")
    Us = [list(r) for r in problem.U_sum()]
    if causal and not _psd(_lin((Fraction(1), _eye(d, m.causal.lam_s)), (Fraction(-1, 2), Us), (Fraction(-1, 2), _tr(Us)))):
        return MovingCheck(False, "lam_s >= lambda_max(sym U_s) is not proved")
    GU = _mul(G, Us)
    symGU = _lin((Fraction(1, 2), GU), (Fraction(1, 2), _tr(GU)))
    nU = sum(m.unorm, Fraction(0))
    terms = [(Fraction(1), symGU), (-m.mu, G)]
    if m.region is not None:
        r = m.region
        Q = [list(row) for row in r.Q]
        if any(Q[a][b] != Q[b][a] for a in range(d) for b in range(a)):
            return MovingCheck(False, "Q must be symmetric")
        if not norm_bound_ok(Q, r.qnorm):
            return MovingCheck(False, "n_Q >= ||Q||_2 is not proved")
        QmG = _lin((Fraction(1), Q), (Fraction(-1), _eye(d, r.gamma)))
        terms.append((-m.tau2, QmG))
        QU = _mul(Q, Us)
        push = Fraction(0) if causal else 2 * r.qnorm * nU * m.Dmax  # token 1 of the causal mask follows Proj(U_s x) exactly
        M = _lin((Fraction(1), QU), (Fraction(1), _tr(QU)), (-r.gamma, Us), (-r.gamma, _tr(Us)),
                 (Fraction(-1), _eye(d, push)), (r.tau1, QmG))
        if not _psd(M, definite=True):
            return MovingCheck(False, "the region x^T Q x >= gamma is not proved forward invariant (step c)")
    if not _psd(_lin(*terms)):
        return MovingCheck(False, "x^T G U_s x >= mu x^T G x is not proved on the region (step b)")
    if causal:
        why = causal_checks(problem, m.causal, m.region is not None, _psd, _sym_minus,
                            None if m.region is None else _lin((Fraction(1), [list(r) for r in m.region.Q]),
                                                               (Fraction(-1), _eye(d, m.region.gamma))))
        if why is not None:
            return MovingCheck(False, why)
    k = kappa(problem, m)
    if not k > 0:
        return MovingCheck(False, f"the diameter bound Dmax = {float(m.Dmax):.3g} is too large: kappa = {float(k):.3g} <= 0")
    where = "the whole sphere" if m.region is None else f"the invariant region x^T Q x >= {float(m.region.gamma):.3g}"
    who = "token 1 (which follows Proj(U_s x) exactly)" if causal else "every token"
    size = "the weighted deviation from token 1" if causal else "the diameter"
    return MovingCheck(True, f"{problem.mask} mask, diameter contraction: x^T G U_s x >= {float(m.mu):.4g} x^T G x on "
                             f"{where} ({who}); once {size} is <= {float(m.Dmax):.3g} it decays like "
                             f"exp(-{float(k) / 2:.3g} t) (the common point may keep moving)", k)


def _sq(x: arb) -> arb:
    """``x * x`` (python-flint's ``x ** 2`` is nan for a ball that contains 0)."""
    return x * x


def _quad(A, x) -> arb:
    d = len(x)
    return sum((rational_ball(A[a][b]) * x[a] * x[b] for a in range(d) for b in range(d) if A[a][b] != 0), arb(0))


def moving_entered(m: Moving, X: Sequence[Sequence[arb]]) -> bool:
    """The token balls satisfy the entry condition of the lemma (arb; False when undecided)."""
    g_hi, D2 = rational_ball(m.g_hi), rational_ball(m.Dmax * m.Dmax)
    if m.causal is not None:  # token 1 in R and g_hi sum_k c_k |x_k - x_1|^2 < min(c) Dmax^2 x_1^T G x_1
        x1 = X[0]
        if m.region is not None and not _quad(m.region.Q, x1) > rational_ball(m.region.gamma):
            return False
        total = sum((rational_ball(c) * sum((_sq(a - b) for a, b in zip(x, x1)), arb(0))
                     for c, x in zip(m.causal.c, X[1:])), arb(0))
        P = m.causal.exponents()
        if all(p == 1 for p in P):
            return bool(g_hi * total < rational_ball(min(m.causal.c)) * D2 * _quad(m.G, x1))
        W = _quad(m.G, x1)  # V(T) < min_l c_l Dmax^2 / g_hi^{p_l}; a ball W with nonpositive points gives nan: False
        V = sum((rational_ball(c) * sum((_sq(a - b) for a, b in zip(x, x1)), arb(0)) / W ** rational_ball(p)
                 for c, p, x in zip(m.causal.c, P, X[1:])), arb(0))
        return all(bool(V < rational_ball(c) * D2 / g_hi ** rational_ball(p)) for c, p in zip(m.causal.c, P))
    if m.region is not None and not all(_quad(m.region.Q, x) > rational_ball(m.region.gamma) for x in X):
        return False
    for i, x in enumerate(X):
        bound = D2 * _quad(m.G, x)
        for j, y in enumerate(X):
            if i != j and not g_hi * sum((_sq(a - b) for a, b in zip(x, y)), arb(0)) < bound:
                return False
    return True


__all__ = ["Causal", "Moving", "MovingCheck", "Region", "check_moving", "kappa", "moving_entered", "norm_bound_ok"]
