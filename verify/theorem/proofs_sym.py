"""Proof plans for symmetric value maps: ``4.4-sym`` (first token) and ``grad-energy``.

``4.4-sym``: ``db/dt = (lambda_1 - x_1^T U x_1) b`` (symbolic) and ``lambda_1 - x^T U x >= gap (1 - b^2)``
in eigen-coordinates (certificate), so ``|<v, x_1>|`` increases to 1 unless it starts at 0.
The certificate is built for the extreme spectrum ``(lambda_1, lambda_2, ..., lambda_2)``; the
instance's own spectrum only adds the nonnegative terms ``(lambda_2 - lambda_k) y_k^2``.  When the
eigenvalues are irrational the shifted spectrum ``(0, -g, ..., -g)`` with the proven rational
lower bound ``g`` of the gap is used (the inequality is shift-invariant on the sphere).
Later tokens are **not claimed**: SPEC's reading (every token converges to ``v`` or ``-v``) is
contradicted by ``examples/counterexample_4_4_sym.json``; same-sign consensus is not claimed either.
"""
from __future__ import annotations

import re
from fractions import Fraction

from theorems.catalogue.base import HypothesisReport
from theorems.system import AttentionSystem
from verify.certificates import certify_first_token_alignment

from . import symbolic
from .report import ProofStep
from .obligations import ob
from .steps import certificate_step, cited_step, symbolic_step
from theorems.verdict import holds



_RATIONAL = re.compile(r"^-?\d+(/\d+)?$")


def _spectrum(hypotheses: HypothesisReport, d: int) -> tuple[list[Fraction], str] | None:
    """The spectrum the certificate is built for: the exact ``(lambda_1, lambda_2, ..., lambda_2)`` when
    both are plain rationals in the witness, else the shifted ``(0, -g, ..., -g)`` with the proven
    rational lower bound ``g`` of the gap.  Witness strings are never "simplified" into numbers."""
    for v in hypotheses.verdicts:
        if v.name == "U_simple_top_eigenvalue" and v.holds:
            w = v.witness
            l1, l2 = str(w.get("lambda_1", "")), str(w.get("lambda_2", ""))
            if _RATIONAL.match(l1) and _RATIONAL.match(l2):
                return [Fraction(l1)] + [Fraction(l2)] * (d - 1), f"lambda_1 = {l1}, lambda_2 = {l2} (exact)"
            g = Fraction(str(w["gap_lower_bound"]))
            return [Fraction(0)] + [-g] * (d - 1), f"shifted spectrum, proven gap >= {g}"
    return None


def plan_4_4_sym(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
    steps = [symbolic_step("first_eigen_coordinate", "b = <v,x_1>: db/dt = (lambda_1 - x_1^T U x_1) b (from eq. 5)",
                           symbolic.first_eigen_coordinate)]
    if system.d == 1:
        steps.append(ProofStep("one_dimensional", "symbolic", "in d = 1 the sphere is {v, -v}: x_1 is aligned at all times",
                               holds("one_dimensional", "S^0 = {-1, 1} = {v, -v}; nothing to certify")))
        return steps
    spectrum = _spectrum(hypotheses, system.d)
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
