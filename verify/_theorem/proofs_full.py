"""Proof plans for full attention: Theorem 3.2 and the weights lemma (docs/model.md §3).

Theorem 3.2 = hemisphere invariance (derivative identity: symbolic; inequality: certificate) +
the chart ``y_i = x_i/<z, x_i>`` turning eq. 5 into a linear consensus protocol (symbolic) +
weights bounded below (weights lemma) + the time-varying consensus theorem (cited; this is where
uniform continuity of ``P`` is used).
"""
from __future__ import annotations

from theorems.catalogue.base import HypothesisReport
from theorems.system import AttentionSystem
from verify.certificates import certify_hemisphere_invariance

from . import symbolic
from .plan import Steps
from .report import ProofStep
from .late_entry import STEP, late_entry_step
from .obligations import ob
from .steps import certificate_step, cited_step, symbolic_step, weights_prelude

CONSENSUS_SOURCE = ("L. Moreau, Stability of continuous-time distributed consensus algorithms, IEEE CDC 2004 "
                    "(time-varying consensus with weights bounded below and uniformly continuous); as used in the paper's proof of Theorem 3.2")


def plan_3_2(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    return _steps_3_2(system, hypotheses, None)


def late_3_2(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    """Theorem 3.2 from a later time ``t0``: the tokens start in no open hemisphere, and a validated
    enclosure proves them in one at ``t0`` (:mod:`.late_entry`); the proof then runs from ``t0``."""
    entry = late_entry_step(system, "full")
    if entry.verdict is None or not entry.verdict.holds:
        return [entry]  # no entry proved: nothing else is attempted, the result does not apply
    return _steps_3_2(system, hypotheses, entry)


def _steps_3_2(system: AttentionSystem, hypotheses: HypothesisReport, entry: ProofStep | None) -> list[ProofStep]:
    weights, lo, _ = weights_prelude(system, hypotheses)
    if lo is None:
        return [weights] if entry is None else [entry, weights]
    start = ([ob("the tokens start in an open hemisphere (the witness z)", "hypothesis:open_hemisphere")]
             if entry is None else
             [ob("the tokens are in an open hemisphere at t0 (the witness z of the enclosure)", STEP),
              ob("the system is autonomous (constant P^h), so the trajectory from t0 is the solution started at "
                 "x(t0) and the result applies to it", STEP)])
    return [
        *([] if entry is None else [entry]),
        weights,
        symbolic_step("hemisphere_derivative", "d<z,x_i>/dt = sum_h sum_j a^h_ij (<z,x_j> - <x_i,x_j><z,x_i>) (from eq. 5)",
                      symbolic.hemisphere_derivative),
        certificate_step("hemisphere_invariance",
                         "at a token minimising m = <z,x_i> >= 0: <z,x_j> - <x_i,x_j> m >= 0, so min_i <z,x_i> never "
                         "decreases and open hemispheres are forward invariant",
                         certify_hemisphere_invariance),
        symbolic_step("chart_identity", "y_i = x_i/<z,x_i> satisfies dy_i/dt = sum_j a_ij (<z,x_j>/<z,x_i>)(y_j - y_i)",
                      symbolic.chart_identity),
        cited_step("time_varying_consensus",
                   "the chart weights a_ij <z,x_j>/<z,x_i> are bounded below (weights lemma and invariance) and uniformly "
                   "continuous in t (P uniformly continuous); the linear consensus protocol converges, so x_i -> x*",
                   CONSENSUS_SOURCE,
                   [ob("the chart turns eq. 5 into a linear consensus protocol dy_i/dt = sum_j w_ij(t) (y_j - y_i)",
                       "chart_identity"),
                    ob("the chart is defined for all t: min_i <z, x_i(t)> >= min_i <z, x_i(0)> > 0" if entry is None else
                       "the chart is defined for all t >= t0: min_i <z, x_i(t)> >= min_i <z, x_i(t0)> > 0",
                       "hemisphere_invariance"),
                    *start,
                    ob("the chart weights are bounded below by a positive constant and above (a_ij in "
                       "[exp(-2 beta p)/N, exp(2 beta p)/N], <z,x_j>/<z,x_i> in [m0, 1/m0])", "weights"),
                    ob("the weights are uniformly continuous in t", "hypothesis:P_uniformly_continuous"),
                    ob("every pair of tokens interacts (complete graph: full attention)", "hypothesis:mask_full"),
                    ob("U = I (the field is Proj_{x_i} sum_j a_ij x_j)", "hypothesis:U_identity")]),
    ]


def plan_weights(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    weights, lo, _ = weights_prelude(system, hypotheses)
    if lo is None:
        return [weights]
    return [weights]


PLAN_3_2 = Steps(plan_3_2, late=late_3_2, establishes=("open_hemisphere",))
PLAN_WEIGHTS = Steps(plan_weights)
