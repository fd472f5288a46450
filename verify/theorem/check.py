"""``check_theorem``: hypotheses, exact certificates, symbolic steps and numerical evidence,
composed into one :class:`~verify.theorem.report.TheoremReport` (the library call behind
``verify theorem ID``)."""
from __future__ import annotations

import time
from typing import Any, Callable

from theorems.catalogue import get
from theorems.catalogue.base import HypothesisReport
from theorems.system import AttentionSystem
from theorems.verdict import Status

from .proofs_causal import plan_4_2, plan_iss
from .proofs_full import plan_3_2, plan_weights
from .proofs_sym import plan_4_4_sym, plan_grad_energy
from .proofs_44_hemisphere import plan_4_4_hemisphere
from .proofs_counterexample import plan_counterexample
from .obligations import resolve
from .report import ProofStep, TheoremReport, compose, provenance

Plan = Callable[[AttentionSystem, HypothesisReport], list[ProofStep]]


def _claim_plan(theorem_id: str) -> Plan:
    def plan(system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
        proof = hypotheses.proof
        return [ProofStep(theorem_id, "symbolic", hypotheses.theorem.conclusion, proof)]
    return plan


PLANS: dict[str, Plan] = {
    "weights": plan_weights, "3.2": plan_3_2, "4.2": plan_4_2, "iss-causal": plan_iss,
    "4.4-sym": plan_4_4_sym, "4.4-hemisphere": plan_4_4_hemisphere, "grad-energy": plan_grad_energy, "D1": _claim_plan("D1"), "LN1": _claim_plan("LN1"),
    "4.4-sym-later": plan_counterexample("4.4-sym-later"), "4.4-same-sign": plan_counterexample("4.4-same-sign"),
}
EVIDENCE_VARIANT = {"4.4-sym": "abs"}
"""Metric used for the numerical evidence: 4.4-sym predicts alignment, so |cos| (SPEC §4)."""


def check_theorem(theorem_id: str, system: AttentionSystem | None = None, *, simulate: bool = True,
                  t_end: float = 20.0, progress=None) -> TheoremReport:
    """Check ``theorem_id`` on ``system`` (default: the theorem's built-in example)."""
    started = time.perf_counter()
    theorem = get(theorem_id)
    system = system if system is not None else theorem.example()
    hypotheses = theorem.check(system)
    steps: list[ProofStep] = []
    if hypotheses.status is Status.HOLDS:
        steps = resolve(PLANS[theorem.id](system, hypotheses), hypotheses.verdicts)
    status, explanation = compose(hypotheses, steps)
    evidence = _evidence(theorem.id, system, t_end, progress) if simulate else None
    if evidence is not None and theorem.id == "4.4-sym" and status is not Status.FAILS:
        evidence["alignment"] = _alignment(system, hypotheses, t_end)
        explanation += _later_tokens_note(evidence["alignment"])
    if theorem.id == "4.4-sym" and status is Status.HOLDS and _first_token_orthogonal(system, hypotheses):
        explanation += ("; note: <v, x_1(0)> = 0 exactly, the exceptional start of the certified statement: "
                        "x_1 need not align for this instance")
    if theorem.id == "4.2" and status is Status.HOLDS:
        explanation += _exceptional_note(_antipodal_tokens(system))
    options: dict[str, Any] = {"theorem": theorem.id, "simulate": simulate, "t_end": t_end}
    return TheoremReport(theorem, hypotheses, tuple(steps), status, explanation, evidence, provenance(options, started))


def _antipodal_tokens(system: AttentionSystem) -> list[int]:
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


def _exceptional_note(tokens: list[int]) -> str:
    if not tokens:
        return ""
    which = ", ".join(f"x_{i}(0) = -x_1(0)" for i in tokens)
    lead = " (a = -1, where V does not decrease)" if tokens[0] == 2 else ""
    return (f"; note: this instance starts in the exceptional set: {which}{lead}, with every earlier token at "
            "+-x_1(0), an exact equilibrium of eq. 5 for those tokens: they never reach x_1(0); the conclusion holds "
            "for almost every start, not for this one")


ALIGNED = 1e-6
"""A token counts as aligned with span(v) at the horizon when 1 - |<v, x_i(T)>| < ALIGNED."""


def _later_tokens_note(alignment: dict[str, Any] | None) -> str:
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


def _first_token_orthogonal(system: AttentionSystem, hypotheses: HypothesisReport) -> bool:
    """Exactly ``<v, x_1(0)> = 0`` when both ``v`` and the tokens are exact; False when undecidable."""
    import sympy

    v = next((h.witness.get("v") for h in hypotheses.verdicts if h.name == "U_simple_top_eigenvalue"
              and h.witness.get("v_exact")), None)
    if v is None or system.tokens_exact is None:
        return False
    inner = sum(sympy.sympify(c) * system.tokens_exact[0, k] for k, c in enumerate(v))
    return sympy.simplify(inner) == 0


def _alignment(system: AttentionSystem, hypotheses: HypothesisReport, t_end: float) -> dict[str, Any] | None:
    """Signs of ``<v, x_i(t_end)>``: 4.4-sym predicts alignment with ``span(v)``, not a common sign."""
    import numpy as np

    from numerics.dop853 import DOP853

    v = next((h.witness.get("v_float") for h in hypotheses.verdicts if h.name == "U_simple_top_eigenvalue"), None)
    if v is None:
        return None
    final = DOP853().integrate(system, t_end, samples=2).final[0]
    inner = final @ np.asarray(v, dtype=float)
    signs = [int(s) for s in np.sign(inner)]
    return {"t_end": t_end, "v": [float(c) for c in v], "inner_with_v": [float(c) for c in inner], "signs": signs,
            "same_sign": len(set(signs) - {0}) <= 1,
            "note": "alignment with span(v) is the claim; same-sign consensus is not implied (SPEC §2)"}


def _evidence(theorem_id: str, system: AttentionSystem, t_end: float, progress) -> dict[str, Any] | None:
    if theorem_id in ("D1", "LN1"):
        return None
    from numerics.evidence import simulate_evidence

    return simulate_evidence(system, t_end=t_end, variant=EVIDENCE_VARIANT.get(theorem_id, "cos"), progress=progress)
