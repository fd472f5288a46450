"""Proof plans for the causal results: Theorem 4.2 and the ISS lemma (docs/model.md §3).

Theorem 4.2 = first token fixed (symbolic) + token 2 Lyapunov decrease (certificate) + termwise
ISS inequality for tokens i >= 3 with kappa = 1 as in docs/model.md §3 (polar substitution: symbolic; inequality:
certificate) + the closure of :mod:`verify._theorem.proofs_causal_closure` (dichotomy, divergence
near the antipode, measure zero, local stability, induction), each cited step with its obligations.
The plain ISS cascade is *not* cited: the decay term vanishes at ``x_i = -x_1``, an equilibrium (docs/model.md §2, ``iss-causal``).
"""
from __future__ import annotations

from fractions import Fraction
from typing import final

from theorems.catalogue.base import HypothesisReport
from theorems.system import AttentionSystem
from verify.certificates.token_iss_polar import KAPPA, certify_token_iss_polar

from theorems.verdict import Status

from . import symbolic, symbolic_causal
from .plan import Outcome, ProofPlan, Remarks, Steps
from .proofs_causal_closure import closure_steps, divergence_steps
from .report import ProofStep
from .steps import certificate_step, symbolic_step, weights_prelude

ISS_KAPPA = Fraction(KAPPA)
"""The certified constant of the termwise inequality (kappa = 1 as in docs/model.md §3, polar coordinates)."""


def iss_statement(H: int, hi: Fraction) -> str:
    """The ISS inequality exactly as certified (the constant is ``ISS_KAPPA``; printed conclusions use it)."""
    kappa = "" if ISS_KAPPA == 1 else f"{ISS_KAPPA} "
    return (f"a_j - g a_i >= {kappa}(1 - a_i^2) - r_j - r_j^2/2 for all unit x_1, x_i, x_j (every dimension d); "
            f"hence dV_i/dt <= -{kappa}c_i V_i (2 - V_i) + k sum_j<i (r_j + r_j^2/2), c_i = H (i-1) exp(-2 beta p)/i, "
            f"k = H exp(2 beta p) <= {H * hi}")


def _iss_steps(system: AttentionSystem, lo: Fraction, hi: Fraction) -> list[ProofStep]:
    return [
        symbolic_step("token_i_equation", "d<x_1,x_i>/dt = sum_h sum_{j<i} a^h_ij (a_j - g a_i) (from eq. 5)",
                      symbolic.token_i_gram_equation),
        symbolic_step("polar_substitution", "x_j = x_1 + r u, |u| = 1, s = <x_i,u>: a_j = 1 - r^2/2, g = a_i + r s, "
                      "r = r_j", symbolic_causal.polar_substitution),
        certificate_step("token_i_iss", iss_statement(system.H, hi) + " (certified as r (1 - a_i s) >= 0 after the "
                         "polar substitution)", certify_token_iss_polar),
    ]


def plan_4_2(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    weights, lo, hi = weights_prelude(system, hypotheses)
    if lo is None:
        return [weights]
    H = system.H
    w_lo, w_hi = H * lo / 2, Fraction(H)  # each a^h_21 <= 1; a wider w_hi keeps the SDP well posed
    from verify.certificates import certify_token2_decrease

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
    has_iss = system.N >= 3
    if has_iss:
        steps += _iss_steps(system, lo, hi)
    steps += divergence_steps(system, lo, hi)
    steps += closure_steps(system, has_iss)
    return steps


def plan_iss(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    weights, lo, hi = weights_prelude(system, hypotheses)
    if lo is None:
        return [weights]
    return [weights] + _iss_steps(system, lo, hi)


def antipodal_tokens(system: AttentionSystem) -> list[int]:
    """1-based tokens ``i >= 2`` that sit exactly at ``-x_1(0)`` while every token ``2..i-1`` sits at
    ``+-x_1(0)``: each is an exact equilibrium of its subsystem (symbolic step ``antipodal_equilibrium``),
    so it never converges to ``x_1(0)``.  Exact data compared exactly, float data bit for bit.  The scan
    stops at the first token that is not at ``+-x_1``: later tokens are driven by a moving one."""
    exact = system.tokens_exact is not None
    rows = system.tokens_exact if exact else system.tokens
    first = [rows[0, k] for k in range(system.d)]

    def sign_of(i: int) -> int:
        row = [rows[i, k] for k in range(system.d)]
        if all(bool(a == b) for a, b in zip(row, first)):
            return 1
        if all(bool(a == -b) for a, b in zip(row, first)):
            return -1
        return 0

    out = []
    for i in range(1, system.N):
        s = sign_of(i)
        if s == 0:
            break
        if s == -1:
            out.append(i + 1)
    return out


def exceptional_note(tokens: list[int]) -> str:
    if not tokens:
        return ""
    which = ", ".join(f"x_{i}(0) = -x_1(0)" for i in tokens)
    lead = " (a = -1, where V does not decrease)" if tokens[0] == 2 else ""
    return (f"; note: this instance starts in the exceptional set: {which}{lead}, with every earlier token at "
            "+-x_1(0), an exact equilibrium of eq. 5 for those tokens: they never reach x_1(0); the conclusion holds "
            "for almost every start, not for this one")


@final
class _Plan42(ProofPlan):
    """Theorem 4.2; a proven result on an instance in the exceptional set gets a note saying so."""

    def steps(self, system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
        return plan_4_2(system, hypotheses)

    def remarks(self, outcome: Outcome) -> Remarks:
        if outcome.status is not Status.HOLDS:
            return Remarks()
        return Remarks(exceptional_note(antipodal_tokens(outcome.system)))


PLAN_4_2 = _Plan42()
PLAN_ISS = Steps(plan_iss)
