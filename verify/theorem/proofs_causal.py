"""Proof plans for the causal results: Theorem 4.2 and the ISS lemma (SPEC §3).

Theorem 4.2 = first token fixed (symbolic) + token 2 Lyapunov decrease (certificate) + termwise
ISS inequality for tokens i >= 3 (certificate) + the cascade of ISS systems (cited).
"""
from __future__ import annotations

from fractions import Fraction

from theorems.catalogue.base import HypothesisReport
from theorems.system import AttentionSystem
from verify.certificates import certify_token2_decrease, certify_token_iss

from . import symbolic
from .report import ProofStep
from .steps import certificate_step, cited_step, symbolic_step, weights_prelude

ISS_KAPPA = Fraction(1, 2)
CASCADE_SOURCE = ("E. D. Sontag, Smooth stabilization implies coprime factorization, IEEE TAC 34 (1989); "
                  "cascades of ISS systems driven by converging inputs (Sontag & Teel 1995); used as in the paper's proof of Theorem 4.2")


def _iss_steps(system: AttentionSystem, lo: Fraction, hi: Fraction) -> list[ProofStep]:
    H = system.H
    steps = [symbolic_step("token_i_equation", "d<x_1,x_i>/dt = sum_h sum_{j<i} a^h_ij (a_j - g a_i) (from eq. 5)",
                           symbolic.token_i_gram_equation)]
    steps.append(certificate_step(
        "token_i_iss",
        f"a_j - g a_i >= {ISS_KAPPA} (1 - a_i^2) - r_j - r_j^2/2 on the Gram-feasible set (every dimension d); "
        f"hence dV_i/dt <= -{ISS_KAPPA} c_i V_i (2 - V_i) + k sum_j<i (r_j + r_j^2/2), c_i = H (i-1) exp(-2 beta p)/i, "
        f"k = H exp(2 beta p) = {H * hi} (upper bound)",
        lambda: certify_token_iss(kappa=ISS_KAPPA)))
    return steps


def plan_4_2(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    weights, lo, hi = weights_prelude(system, hypotheses)
    if lo is None:
        return [weights]
    H = system.H
    w_lo, w_hi = H * lo / 2, Fraction(H)  # each a^h_21 <= 1; a wider w_hi keeps the SDP well posed
    steps = [
        weights,
        symbolic_step("first_token_fixed", "causal mask and U = I: dx_1/dt = 0, x_1(t) = x_1(0)", symbolic.first_token_fixed),
        symbolic_step("token2_equation", "a = <x_1,x_2>: da/dt = w (1 - a^2), w = sum_h a^h_21 (from eq. 5)",
                      symbolic.token_two_gram_equation),
        certificate_step("token2_decrease",
                         f"V = 1 - a: dV/dt <= -w_lo V (2 - V) with w in [{w_lo}, {w_hi}] (w_lo = H exp(-2 beta p)/2, w_hi = H): "
                         "V decreases strictly unless a = +-1; a = -1 is the measure-zero bad start",
                         lambda: certify_token2_decrease(w_lo=w_lo, w_hi=w_hi)),
    ]
    if system.N >= 3:
        steps += _iss_steps(system, lo, hi)
    steps.append(cited_step(
        "iss_cascade",
        "token i is ISS with respect to the errors r_j (j < i), which converge to 0 by induction; hence every token "
        "tends to x_1(0) from almost every initial condition, and the consensus set is asymptotically stable",
        CASCADE_SOURCE))
    return steps


def plan_iss(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    weights, lo, hi = weights_prelude(system, hypotheses)
    if lo is None:
        return [weights]
    return [weights] + _iss_steps(system, lo, hi)
