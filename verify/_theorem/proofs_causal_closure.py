"""The part of Theorem 4.2 that the ISS inequality alone does not give (its decay term vanishes
at the equilibrium ``x_i = -x_1``; docs/model.md §2, ``iss-causal``).

The certified inequality ``dV_i/dt <= -c_i V_i (2 - V_i) + k sum_{j<i} (r_j + r_j^2/2)`` has a decay
term that vanishes at ``V_i = 2`` (``x_i = -x_1`` is an equilibrium when the earlier tokens sit at
``x_1``), so token i is not ISS in Sontag's sense and the global cascade theorem does not apply.
The argument closed here, for every token ``i >= 2`` (token 2 also has its exact dichotomy):

1. ``dichotomy`` (comparison lemma): if ``r_j(t) -> 0`` for ``j < i``, then ``V_i -> 0`` or ``V_i -> 2``.
2. ``antipode_divergence`` (certificates + exact rational bound): on ``{|x_i + x_1|^2 <= E, r_j <= R}``
   the tangent divergence of token i's field is ``>= delta > 0``.
3. ``antipode_measure_zero`` (Liouville's formula, Fubini): the starts whose token ``i`` tends to
   ``-x_1`` while the earlier tokens converge form a null set.
4. ``local_stability`` (local ISS cascade): the consensus set is asymptotically stable.
5. ``almost_global_consensus`` (induction over i): every token tends to ``x_1(0)`` for almost every start.

Each cited step lists the hypotheses of what it cites, discharged by earlier steps.
"""
from __future__ import annotations

from fractions import Fraction

from theorems.system import AttentionSystem
from theorems.verdict import holds, unknown
from verify.certificates.antipode_divergence import (certify_antipode_inner, certify_antipode_tangent,
                                                     divergence_margin)

from . import symbolic_causal
from .obligations import ob
from .report import ProofStep
from .steps import certificate_step, cited_step, symbolic_step

COMPARISON_SOURCE = ("comparison lemma (H. K. Khalil, Nonlinear Systems, 3rd ed., Lemma 3.4) with the elementary "
                     "scalar argument: once the input is below eps, V < eta is forward invariant and [eta, 2 - eta] is "
                     "crossed in finite time")
LIOUVILLE_SOURCE = ("Liouville's formula d/dt vol(Phi_{s,t}(A)) = int_{Phi_{s,t}(A)} div f (V. I. Arnold, Ordinary "
                    "Differential Equations, Sec. 16; valid for non-autonomous C^1 fields on a Riemannian manifold); "
                    "flow maps are C^1 diffeomorphisms and preserve null sets; Fubini's theorem")
LOCAL_CASCADE_SOURCE = ("cascades of locally ISS systems are locally asymptotically stable (E. D. Sontag, Smooth "
                        "stabilization implies coprime factorization, IEEE TAC 34 (1989); Khalil, Nonlinear Systems, "
                        "Lemma 4.7, local version)")
INDUCTION_SOURCE = "induction over the token index i; a countable union of null sets is null"


def _bound_beta_p(hi: Fraction) -> Fraction:
    """A rational ``B >= beta p`` from the proven ``hi >= exp(2 beta p)``: ``exp(y) >= 1 + y`` gives
    ``2 beta p <= hi - 1``."""
    return max(Fraction(0), (hi - 1) / 2)


def divergence_steps(system: AttentionSystem, lo: Fraction, hi: Fraction) -> list[ProofStep]:
    steps = [
        symbolic_step("sphere_invariant", "d|x_i|^2/dt = 0: the state space (S^{d-1})^N is compact and invariant",
                      symbolic_causal.sphere_invariant),
        symbolic_step("antipodal_equilibrium", "a token at -x_1 with every earlier token at +-x_1 never moves: the "
                      "exceptional starts are genuine", symbolic_causal.antipodal_equilibrium),
        symbolic_step("tangent_divergence_identity", "div_S(Proj_x F) = tr(Proj_x DF) - (d - 1) <x, F> on the sphere",
                      symbolic_causal.tangent_divergence_identity),
        symbolic_step("softmax_gradient", "d a_j/d s_k = a_j (delta_jk - a_k): |grad a^h_ij| <= 3 beta p a^h_ij "
                      "(|grad s_j| = |beta P x_j| <= beta p, self score: |beta (P + P^T) x| <= 2 beta p)",
                      symbolic_causal.softmax_gradient),
        certificate_step("antipode_inner", "-<x_i,x_j> >= 1 - e^2/2 - r_j with e = |x_i + x_1| (polar coordinates, "
                         "every dimension)", certify_antipode_inner),
        certificate_step("antipode_tangent", "|Proj_{x_i} x_j|^2 = 1 - <x_i,x_j>^2 <= e^2 + 2 r_j (polar coordinates, "
                         "every dimension)", certify_antipode_tangent),
    ]
    B = _bound_beta_p(hi)
    if system.d < 2:
        verdict = unknown("antipode_divergence", "d = 1: S^0 is two points and has no volume argument; the exceptional "
                          "set {x_i = -x_1} is not null for the counting measure")
        steps.append(ProofStep("antipode_divergence", "symbolic", "tangent divergence near -x_1", verdict))
        return steps
    m = divergence_margin(system.d, system.H, B, lo)
    ok = m.bracket > 0 and m.delta > 0
    data = {"d": system.d, "H": system.H, "B (>= beta p)": str(B), "lo (<= exp(-2 beta p))": str(lo), **m.to_json()}
    verdict = (holds if ok else unknown)(
        "antipode_divergence", f"exact rationals: q = {m.q}, bracket = {m.bracket} > 0, delta = {m.delta} > 0"
        if ok else "the bracket is not positive", data)
    steps.append(ProofStep(
        "antipode_divergence", "symbolic",
        f"on {{|x_i + x_1|^2 <= {m.E}, r_j <= {m.R} (j < i)}}: div_S(dx_i/dt) = sum_h [-(d-1) sum_{{j<i}} a^h_ij <x_i,x_j> "
        f"+ sum_{{j<i}} <Proj x_j, grad a^h_ij>] >= H (lo/2) [(d-1)(1 - q^2/2) - 4 B q] = {m.delta} =: delta > 0 "
        "(identity and gradient: symbolic steps; inner products: certificates; sum_{j<i} a^h_ij >= lo/2: weights)",
        verdict, data=data))
    return steps


def closure_steps(system: AttentionSystem, has_iss: bool) -> list[ProofStep]:
    """The cited steps 1-5 of the module docstring, after :func:`divergence_steps`."""
    iss = [ob("termwise a_j - g a_i >= (1 - a_i^2) - r_j - r_j^2/2 (kappa = 1)", "token_i_iss"),
           ob("the substitution x_j = x_1 + r u behind it", "polar_substitution"),
           ob("d<x_1,x_i>/dt from eq. 5", "token_i_equation")] if has_iss else []
    steps = [
        cited_step("dichotomy",
                   "for each i >= 2: if r_j(t) -> 0 for every j < i, then V_i(t) -> 0 or V_i(t) -> 2 "
                   "(dV_i/dt <= -c_i V_i (2 - V_i) + k sum_{j<i} (r_j + r_j^2/2), V_i in [0, 2])",
                   COMPARISON_SOURCE,
                   [ob("token 2: dV/dt <= -w_lo V (2 - V) with w_lo > 0", "token2_decrease"),
                    ob("token 2's equation da/dt = w (1 - a^2)", "token2_equation"),
                    *iss,
                    ob("attention weights in [exp(-2 beta p)/i, exp(2 beta p)/i] (c_i > 0, k finite)", "weights"),
                    ob("V_i = 1 - <x_1,x_i> stays in [0, 2] (tokens stay unit vectors)", "sphere_invariant"),
                    ob("x_1 is constant, so V_i is the distance to a fixed point", "first_token_fixed")]),
        cited_step("antipode_measure_zero",
                   "for each i >= 2: the set of starts X(0) such that r_j(t) -> 0 (j < i) and x_i(t) -> -x_1 has measure "
                   "zero in (S^{d-1})^N. For fixed earlier tokens (causal: they do not depend on x_i), the set A_T of "
                   "x_i(T) whose trajectory stays for t >= T in the region of antipode_divergence satisfies e^{delta (t - T)} "
                   "vol(A_T) <= vol(Phi_{T,t}(A_T)) <= vol(S^{d-1}) for all t, so vol(A_T) = 0; countable union over "
                   "integer T; Fubini",
                   LIOUVILLE_SOURCE,
                   [ob("token i's field is C^1 in x_i with derivatives bounded uniformly in t (softmax of bounded "
                       "scores; P^h(t) bounded)", "hypothesis:P_bounded"),
                    ob("derivative of the softmax weights", "softmax_gradient"),
                    ob("divergence of a projected field on the sphere", "tangent_divergence_identity"),
                    ob("div_S >= delta > 0 on {|x_i + x_1|^2 <= E, r_j <= R}", "antipode_divergence"),
                    ob("the region has finite volume: the state space is the (invariant, compact) sphere",
                       "sphere_invariant"),
                    ob("the earlier tokens do not depend on x_i (causal mask)", "hypothesis:mask_causal")]),
        cited_step("local_stability",
                   "the consensus set {x_i = x_1(0) for all i} is (locally) asymptotically stable: for V_i <= 1 the "
                   "certified inequality gives dV_i/dt <= -c_i V_i + k sum_{j<i} (r_j + r_j^2/2), with V_i = |x_i - x_1|^2/2: "
                   "each token is locally ISS with respect to the earlier ones",
                   LOCAL_CASCADE_SOURCE,
                   [ob("x_1 is an equilibrium (it never moves)", "first_token_fixed"),
                    ob("token 2 is locally asymptotically stable at x_1 (V_2 strictly decreasing for V_2 in (0, 2))",
                       "token2_decrease"),
                    *iss[:1],
                    ob("c_i > 0 and k finite", "weights")]),
        cited_step("almost_global_consensus",
                   "by induction over i, for almost every initial condition every token tends to x_1(0): r_j -> 0 for j < i "
                   "(induction hypothesis, true for i = 2 by the dichotomy of token 2 outside the null set x_2(0) = -x_1(0)); "
                   "then V_i -> 0 or V_i -> 2, and the latter happens only on a null set",
                   INDUCTION_SOURCE,
                   [ob("x_1(t) = x_1(0)", "first_token_fixed"),
                    ob("V_i -> 0 or V_i -> 2 once the earlier tokens converge", "dichotomy"),
                    ob("V_i -> 2 only on a null set of starts", "antipode_measure_zero"),
                    ob("asymptotic stability of the consensus set", "local_stability")]),
    ]
    return steps
