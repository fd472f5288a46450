"""Proof plans for symmetric value maps: ``4.4-sym`` (first token) and ``grad-energy``.

``4.4-sym``: ``db/dt = (lambda_1 - x_1^T U x_1) b`` (symbolic) and ``lambda_1 - x^T U x >= gap (1 - b^2)``
in eigen-coordinates (certificate), so ``|<v, x_1>|`` increases to 1 unless it starts at 0.
The certificate is built for the extreme spectrum ``(lambda_1, lambda_2, ..., lambda_2)``; the
instance's own spectrum only adds the nonnegative terms ``(lambda_2 - lambda_k) y_k^2``.  When the
eigenvalues are irrational the shifted spectrum ``(0, -g, ..., -g)`` with the proven rational
lower bound ``g`` of the gap is used (the inequality is shift-invariant on the sphere).
Later tokens are **not claimed**: the first reading of docs/model.md §2 (every token converges to ``v`` or ``-v``) is
contradicted by ``examples/counterexample_4_4_sym.json``; same-sign consensus is not claimed either.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, final

from theorems.catalogue.base import HypothesisReport
from theorems.predicates.evidence import TopEigen
from theorems.system import AttentionSystem
from theorems.verdict import Status, holds
from verify.certificates import certify_first_token_alignment

from . import symbolic
from .obligations import ob
from .plan import Outcome, ProofPlan, Remarks, Steps
from .report import ProofStep
from .steps import certificate_step, cited_step, symbolic_step

_RATIONAL = re.compile(r"^-?\d+(/\d+)?$")


def spectrum_of(hypotheses: HypothesisReport, d: int) -> tuple[list[Fraction], str] | None:
    """The spectrum the certificate is built for: the exact ``(lambda_1, lambda_2, ..., lambda_2)`` when
    both are plain rationals, else the shifted ``(0, -g, ..., -g)`` with the proven rational lower bound
    ``g`` of the gap.  Eigenvalue strings are never "simplified" into numbers."""
    top = hypotheses.evidence(TopEigen)
    if top is None:
        return None
    l1, l2 = top.lambda_1, str(top.lambda_2 or "")
    if _RATIONAL.match(l1) and _RATIONAL.match(l2):
        return [Fraction(l1)] + [Fraction(l2)] * (d - 1), f"lambda_1 = {l1}, lambda_2 = {l2} (exact)"
    g = top.gap_lower_bound
    return [Fraction(0)] + [-g] * (d - 1), f"shifted spectrum, proven gap >= {g}"


def plan_4_4_sym(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    steps = [symbolic_step("first_eigen_coordinate", "b = <v,x_1>: db/dt = (lambda_1 - x_1^T U x_1) b (from eq. 5)",
                           symbolic.first_eigen_coordinate)]
    if system.d == 1:
        steps.append(ProofStep("one_dimensional", "symbolic", "in d = 1 the sphere is {v, -v}: x_1 is aligned at all times",
                               holds("one_dimensional", "S^0 = {-1, 1} = {v, -v}; nothing to certify")))
        return steps
    spectrum = spectrum_of(hypotheses, system.d)
    if spectrum is None:
        return steps
    values, how = spectrum
    gap = values[0] - values[1]
    steps.append(certificate_step(
        "first_token_alignment",
        f"lambda_1 - x^T U x >= {gap} (1 - b^2) on the sphere ({how}); so d(b^2)/dt >= 2 gap b^2 (1 - b^2) and "
        "x_1 -> sign(<v,x_1(0)>) v unless <v,x_1(0)> = 0",
        lambda: certify_first_token_alignment(eigenvalues=values)))
    return steps


def plan_grad_energy(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    """The identity is proved in general (dimension-free, every N); the N = 2, d = 2 coordinate check is
    kept as an independent cross-check.  Convergence is LaSalle's (cited, with its obligations)."""
    from . import symbolic_causal
    from .symbolic_energy import energy_identity_general

    return [
        symbolic_step("energy_derivative", "dE/dt = 2 beta sum_i Z_i |Proj_{x_i} F_i|^2, cross-check in coordinates: "
                      "N = 2 tokens on S^1 with a generic symmetric P (one instance of the general identity below)",
                      symbolic.energy_derivative),
        symbolic_step("energy_identity_general", "dE/dt = 2 beta sum_i Z_i |Proj_{x_i} F_i|^2 >= 0 for every N and d "
                      "(abstract symmetric bilinear form: pair cancellation for every N, full sums for N = 2..5)",
                      energy_identity_general),
        symbolic_step("sphere_invariant", "d|x_i|^2/dt = 0: the state space (S^{d-1})^N is compact and invariant",
                      symbolic_causal.sphere_invariant),
        cited_step("lasalle", "E is continuous on the compact invariant state space and nondecreasing along solutions: "
                   "trajectories approach the largest invariant set in {dE/dt = 0} = {Proj_{x_i} F_i = 0 for all i}, "
                   "the equilibria (Z_i > 0, beta > 0)",
                   "LaSalle's invariance principle (H. K. Khalil, Nonlinear Systems, 3rd ed., Thm 4.4)",
                   [ob("the system is autonomous (P and U = P constant)", "hypothesis:P_time_invariant"),
                    ob("the state space is compact and positively invariant", "sphere_invariant"),
                    ob("dE/dt >= 0, with equality exactly at equilibria", "energy_identity_general"),
                    ob("U = P, so F_i = sum_j a_ij P x_j", "hypothesis:U_equals_P"),
                    ob("P symmetric (used by the identity)", "hypothesis:P_symmetric")]),
    ]


ALIGNED = 1e-6
"""A token counts as aligned with span(v) at the horizon when 1 - |<v, x_i(T)>| < ALIGNED."""


def later_tokens_note(alignment: dict[str, Any] | None) -> str:
    """What the simulation shows about the later tokens, which 4.4-sym does not claim (numbers never
    add to or remove from the verdict here; they are reported)."""
    if not alignment:
        return ""
    off = [i for i, c in enumerate(alignment["inner_with_v"]) if 1 - abs(c) >= ALIGNED]
    if not off:
        return "; the simulation ends with every token aligned with span(v) (not claimed beyond x_1)"
    worst = min(abs(alignment["inner_with_v"][i]) for i in off)
    return (f"; the simulation ends (t = {alignment['t_end']}) with token(s) {off} off span(v) (min |<v, x_i>| = "
            f"{worst:.4g}): later tokens are not claimed to align (see the counterexample in the catalogue)")


def first_token_orthogonal(system: AttentionSystem, hypotheses: HypothesisReport) -> bool:
    """Exactly ``<v, x_1(0)> = 0`` when both ``v`` and the tokens are exact; False when undecidable."""
    import sympy

    top = hypotheses.evidence(TopEigen, holding=False)
    if top is None or top.v is None or system.tokens_exact is None:
        return False
    inner = sum(sympy.sympify(c) * system.tokens_exact[0, k] for k, c in enumerate(top.v))
    return sympy.simplify(inner) == 0


def alignment(system: AttentionSystem, hypotheses: HypothesisReport, t_end: float) -> dict[str, Any] | None:
    """Signs of ``<v, x_i(t_end)>``: 4.4-sym predicts alignment with ``span(v)``, not a common sign."""
    import numpy as np

    from numerics.dop853 import DOP853

    top = hypotheses.evidence(TopEigen, holding=False)
    if top is None or top.v_float is None:
        return None
    final_state = DOP853().integrate(system, t_end, samples=2).final[0]
    inner = final_state @ np.asarray(top.v_float, dtype=float)
    signs = [int(s) for s in np.sign(inner)]
    return {"t_end": t_end, "v": [float(c) for c in top.v_float], "inner_with_v": [float(c) for c in inner],
            "signs": signs, "same_sign": len(set(signs) - {0}) <= 1,
            "note": "alignment with span(v) is the claim; same-sign consensus is not implied (docs/model.md §2)"}


@final
class _Plan44Sym(ProofPlan):
    """4.4-sym; the report adds what the simulation shows about the later tokens (not claimed) and
    flags the exceptional start ``<v, x_1(0)> = 0``."""

    def steps(self, system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
        return plan_4_4_sym(system, hypotheses)

    def remarks(self, outcome: Outcome) -> Remarks:
        note, extra = "", {}
        if outcome.evidence is not None and outcome.status is not Status.FAILS:
            extra["alignment"] = alignment(outcome.system, outcome.hypotheses, outcome.t_end)
            note += later_tokens_note(extra["alignment"])
        if outcome.status is Status.HOLDS and first_token_orthogonal(outcome.system, outcome.hypotheses):
            note += ("; note: <v, x_1(0)> = 0 exactly, the exceptional start of the certified statement: "
                     "x_1 need not align for this instance")
        return Remarks(note, extra)


PLAN_4_4_SYM = _Plan44Sym()
PLAN_GRAD_ENERGY = Steps(plan_grad_energy)
