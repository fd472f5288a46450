"""The table of proof plans of the built-in catalogue: result id -> :class:`~verify._theorem.plan.ProofPlan`.

The registry points down: this layer knows both the catalogue (:mod:`theorems.catalogue`, which
never names :mod:`verify`) and the proof modules, so the one table lives here.  Adding a result adds
its catalogue entry, its proof module and one row below (docs/adding-a-result.md); a test checks that
every catalogue id has a row and every row a catalogue id.
"""
from __future__ import annotations

from theorems.catalogue.base import Theorem
from theorems.errors import InvalidInput

from .plan import CLAIM, ProofPlan
from .proofs_44_hemisphere import PLAN as PLAN_4_4_HEMISPHERE
from .proofs_causal import PLAN_4_2, PLAN_ISS
from .proofs_counterexample import LATER_TOKEN_ALIGNMENT, SAME_SIGN_CONSENSUS
from .proofs_full import PLAN_3_2, PLAN_WEIGHTS
from .proofs_sym import PLAN_4_4_SYM, PLAN_GRAD_ENERGY

PLANS: dict[str, ProofPlan] = {
    "weights": PLAN_WEIGHTS,
    "3.2": PLAN_3_2,
    "4.2": PLAN_4_2,
    "4.4-sym": PLAN_4_4_SYM,
    "4.4-hemisphere": PLAN_4_4_HEMISPHERE,
    "iss-causal": PLAN_ISS,
    "grad-energy": PLAN_GRAD_ENERGY,
    "D1": CLAIM,
    "LN1": CLAIM,
    "4.4-sym-later": LATER_TOKEN_ALIGNMENT,
    "4.4-same-sign": SAME_SIGN_CONSENSUS,
}

def plan_of(theorem: Theorem) -> ProofPlan:
    """The :class:`ProofPlan` of a catalogue entry: the plan object an added entry carries, else the
    row of the built-in table (:mod:`verify._theorem.plans`)."""
    if theorem.plan is not None:
        if not isinstance(theorem.plan, ProofPlan):
            raise InvalidInput(f"theorem {theorem.id}: plan", "a ProofPlan instance", type(theorem.plan).__name__,
                               "subclass verify._theorem.plan.ProofPlan (see docs/adding-a-result.md)")
        return theorem.plan
    plan = PLANS.get(theorem.id)
    if plan is None:
        raise InvalidInput(f"theorem {theorem.id}: plan", "a proof plan: the entry's own, or a row of "
                           "verify._theorem.plans.PLANS", None, "register the plan (see docs/adding-a-result.md)")
    return plan


__all__ = ["PLANS", "plan_of"]
