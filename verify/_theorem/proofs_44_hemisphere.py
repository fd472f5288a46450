"""Proof plan for ``4.4-hemisphere`` (this project's reading of what Assumption 4.4 most likely intends).

Causal, one head, ``U`` symmetric constant with a simple top eigenvalue ``lambda_1 > 0`` (eigenvector ``v``),
``P`` bounded, every token in the open v-hemisphere.  Steps:

* first token: ``db_1/dt = (lambda_1 - x_1^T U x_1) b_1`` and ``lambda_1 - x^T U x >= gap (1 - b^2)`` (4.4-sym's
  certificate), so ``b_1`` increases to 1 (comparison lemma);
* invariance: ``db_i/dt = lambda_1 sum_{j<i} a_ij b_j > 0`` at ``b_i = 0`` (symbolic), so no token leaves the
  hemisphere first (first-hitting-time argument, cited with obligations);
* tokens ``i >= 2``: the termwise inequality (certificate, polar coordinates around ``v``) gives the ISS
  inequality ``dV_i/dt <= -c_i V_i + k sum_{j<i} (L r_j + lambda_1 r_j^2/2)`` on ``V_i in [0, 1)``; a cascade
  of ISS systems driven by converging inputs converges (cited with obligations).
"""
from __future__ import annotations

from fractions import Fraction

from theorems.catalogue.base import HypothesisReport
from theorems.system import AttentionSystem
from theorems.verdict import unknown
from verify.certificates import certify_first_token_alignment
from verify.certificates.token_iss_44 import certify_hemisphere_iss, infinity_norm_upper

from . import symbolic, symbolic_hemisphere44
from .obligations import ob
from .plan import Steps
from .proofs_sym import spectrum_of
from .report import ProofStep
from .steps import certificate_step, cited_step, symbolic_step, weights_prelude

COMPARISON_SOURCE = "comparison lemma (H. K. Khalil, Nonlinear Systems, 3rd ed., Lemma 3.4)"
HITTING_SOURCE = ("first-hitting-time argument (Nagumo-type invariance): a C^1 function b_i > 0 that reaches 0 first at "
                  "t* has db_i/dt(t*) <= 0; e.g. F. Blanchini, Set invariance in control, Automatica 35 (1999)")
ISS_CASCADE_SOURCE = ("ISS with a converging input implies convergence (E. D. Sontag, Smooth stabilization implies "
                      "coprime factorization, IEEE TAC 34 (1989)); by the comparison lemma: V_i(t) <= e^{-c_i t} V_i(0) + "
                      "int_0^t e^{-c_i (t-s)} u(s) ds -> 0 when u -> 0; induction over i")


def _U(system: AttentionSystem) -> list[list[Fraction]] | None:
    from theorems.predicates._rational import rational_matrix
    from theorems.predicates.value_map import constant_value

    _, value, _ = constant_value(system.heads[0].U)
    return rational_matrix(value) if value is not None else None


def plan_4_4_hemisphere(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    weights, lo, hi = weights_prelude(system, hypotheses)
    if lo is None:
        return [weights]
    steps = [weights, symbolic_step("first_eigen_coordinate", "b = <v,x_1>: db/dt = (lambda_1 - x_1^T U x_1) b (from eq. 5)",
                                    symbolic.first_eigen_coordinate)]
    spectrum = spectrum_of(hypotheses, system.d) if system.d >= 2 else None
    if spectrum is None:
        steps.append(ProofStep("first_token_alignment", "certificate", "lambda_1 - x^T U x >= gap (1 - b^2)",
                               unknown("first_token_alignment", "no exact spectrum of U (needs d >= 2 and exact "
                                       "eigenvalues lambda_1 > lambda_2): the gap is not known")))
        return steps
    values, how = spectrum
    gap = values[0] - values[1]
    steps += [
        certificate_step("first_token_alignment", f"lambda_1 - x^T U x >= {gap} (1 - b^2) on the sphere ({how})",
                         lambda: certify_first_token_alignment(eigenvalues=values)),
        cited_step("first_token_convergence", f"b_1 = <v,x_1> > 0 at t = 0 and db_1/dt >= {gap} b_1 (1 - b_1^2): b_1 "
                   "increases to 1, so x_1 -> v", COMPARISON_SOURCE,
                   [ob("db_1/dt = (lambda_1 - x_1^T U x_1) b_1", "first_eigen_coordinate"),
                    ob("lambda_1 - x^T U x >= gap (1 - b^2), gap > 0", "first_token_alignment"),
                    ob("<v, x_1(0)> > 0", "hypothesis:v_hemisphere"),
                    ob("U constant, symmetric, simple top eigenvalue", "hypothesis:U_simple_top_eigenvalue")]),
        symbolic_step("v_coordinate_equation", "db_i/dt = sum_{j<=i} a_ij (lambda_1 b_j - <x_i,U x_j> b_i); at b_i = 0 it "
                      "equals lambda_1 sum_{j<i} a_ij b_j", symbolic_hemisphere44.v_coordinate_equation),
        cited_step("hemisphere_invariance", "the open v-hemisphere is forward invariant for every token: at the first time "
                   "t* some b_i reaches 0 (smallest such i), every b_j (j < i) is > 0, so db_i/dt(t*) = lambda_1 sum_{j<i} "
                   "a_ij b_j > 0, a contradiction (b_1 > 0 always: it increases)", HITTING_SOURCE,
                   [ob("db_i/dt at b_i = 0 equals lambda_1 sum_{j<i} a_ij b_j", "v_coordinate_equation"),
                    ob("lambda_1 > 0", "hypothesis:lambda_1_positive"),
                    ob("a_ij >= exp(-2 beta p)/i > 0", "weights"),
                    ob("every b_i(0) > 0", "hypothesis:v_hemisphere"),
                    ob("b_1(t) > 0 for all t", "first_token_convergence"),
                    ob("causal mask: token i attends to j <= i only", "hypothesis:mask_causal")]),
    ]
    if system.N >= 2:
        U = _U(system)
        L = infinity_norm_upper(U) if U is not None else None
        if L is None or L <= 0:
            steps.append(ProofStep("token_i_iss", "certificate", "termwise ISS inequality",
                                   unknown("token_i_iss", "no positive rational bound L >= ||U||_2 (U is not a "
                                           "constant rational matrix)")))
            return steps
        steps += [
            symbolic_step("v_polar_substitution", "x_j = v + r u, |u| = 1: b_j = 1 - r^2/2, <x_i,U x_j> = lambda_1 b_i + "
                          "r <U x_i,u>, |<U x_i,u>| <= ||U||_inf", symbolic_hemisphere44.v_polar_substitution),
            certificate_step("token_i_iss", f"lambda_1 b_j - <x_i,U x_j> b_i >= lambda_1 (1 - b_i^2) - {L} r_j - lambda_1 "
                             f"r_j^2/2 (L = ||U||_inf = {L} >= ||U||_2); hence on the hemisphere (V_i = 1 - b_i in [0, 1)): "
                             f"dV_i/dt <= -c_i V_i + k sum_{{j<i}} ({L} r_j + lambda_1 r_j^2/2), c_i = lambda_1 (i-1) "
                             f"exp(-2 beta p)/i >= lambda_1 lo/2 (lo = {lo}), k = exp(2 beta p) <= {hi}",
                             lambda: certify_hemisphere_iss(L)),
            cited_step("iss_cascade", "each token i >= 2 is ISS on the invariant hemisphere with respect to r_j = |x_j - v| "
                       "(j < i); r_1 -> 0, and by induction every r_i -> 0: every token converges to v",
                       ISS_CASCADE_SOURCE,
                       [ob("termwise inequality (polar coordinates around v)", "token_i_iss"),
                        ob("the polar substitution behind it", "v_polar_substitution"),
                        ob("the equation of b_i", "v_coordinate_equation"),
                        ob("self term a_ii (lambda_1 - x_i^T U x_i) b_i >= 0: lambda_1 - x^T U x >= 0", "first_token_alignment"),
                        ob("self term: b_i >= 0, and V_i < 1 so the decay -c_i V_i (2 - V_i) <= -c_i V_i",
                           "hemisphere_invariance"),
                        ob("c_i > 0: lambda_1 > 0", "hypothesis:lambda_1_positive"),
                        ob("c_i > 0 and k finite: weights bounded", "weights"),
                        ob("base of the induction: r_1 -> 0", "first_token_convergence")]),
        ]
    return steps


PLAN = Steps(plan_4_4_hemisphere)
