"""Records of a theorem check: proof steps, the composed verdict and provenance.

A proof is a list of :class:`ProofStep` s, each of one kind:

* ``hypotheses`` — the catalogue's predicates on the instance;
* ``certificate`` — an exact SOS certificate, re-checked in rational arithmetic;
* ``symbolic`` — an identity proved with SymPy (a residual that reduces to exactly 0);
* ``enclosure`` — a fact proved on a validated enclosure of the trajectory (arb balls), with a
  certificate that re-runs the enclosure (a late entry into a hemisphere);
* ``cited`` — a classical theorem or a lemma of the paper, used but not re-proved here; it lists
  the hypotheses of what it cites as obligations, each discharged by another step
  (:mod:`verify._theorem.obligations`);
* ``numerical`` — a simulation: evidence that is shown, never counted as proof.

The composed verdict: a failing hypothesis makes the result inapplicable (``fails``; no step
claims the conclusion); any certificate or symbolic step that does not hold makes it
``unknown``; so does a cited step with an obligation that is not discharged (or is discharged only
by a numerical step); otherwise ``holds`` *relative to the cited steps*, which the report lists.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from theorems.catalogue.base import HypothesisReport, Theorem
from theorems.provenance import Provenance
from theorems.verdict import Status, Verdict, applicability

from .obligations import Obligation, failures

StepKind = Literal["hypotheses", "certificate", "symbolic", "enclosure", "cited", "numerical"]
COUNTED = ("hypotheses", "certificate", "symbolic", "enclosure")
LATE_STEP = "late_entry"


@dataclass(frozen=True)
class ProofStep:
    id: str
    kind: StepKind
    statement: str
    verdict: Verdict | None = None
    certificate: Any = None  # verify.sos certificate record (has to_json / recheck)
    source: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    obligations: tuple[Obligation, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "statement": self.statement}
        if self.verdict is not None:
            out["verdict"] = self.verdict.to_json()
        if self.kind == "cited":
            out["obligations"] = [o.to_json() for o in self.obligations]
        if self.source:
            out["source"] = self.source
        if self.data:
            out["data"] = self.data
        if self.certificate is not None:
            out["certificate"] = self.certificate.to_json()
        return out


def compose(hypotheses: HypothesisReport, steps: list[ProofStep], late: tuple[str, ...] = ()) -> tuple[Status, str]:
    """The verdict of a theorem check and the sentence explaining it.

    ``late``: the hypotheses the plan's ``late_entry`` step proves at a later time ``t0``
    (:meth:`~verify._theorem.plan.ProofPlan.late_steps`); when every hypothesis that does not hold
    at ``t = 0`` is one of them and that step holds, the result is composed from its steps from ``t0`` on.
    """
    open_ = [v for v in hypotheses.verdicts if v.status is not Status.HOLDS]
    entry = next((s for s in steps if s.id == LATE_STEP), None)
    if late and open_ and all(v.name in late for v in open_):
        names = ", ".join(v.name for v in open_)
        if entry is None or entry.verdict is None or not entry.verdict.holds:
            why = entry.verdict.reason if entry is not None and entry.verdict is not None else "no late-entry step"
            status, text = compose(hypotheses, [])
            return status, f"{text}; no later entry was proved ({why})"
        status, text = compose_steps(steps)
        return status, f"hypothesis {names} does not hold at t = 0 but holds from t0 = {entry.data.get('t0')} " \
                       f"(step {LATE_STEP}); from there: {text}"
    if hypotheses.status is Status.FAILS:
        names = ", ".join(v.name for v in hypotheses.failing)
        return Status.FAILS, f"hypothesis {names} fails on this instance: the result does not apply and nothing claims its conclusion"
    if hypotheses.status is Status.UNKNOWN:
        names = ", ".join(v.name for v in hypotheses.verdicts if v.status is Status.UNKNOWN)
        return Status.UNKNOWN, f"hypothesis {names} could not be decided"
    return compose_steps(steps)


def refuting(steps: list[ProofStep]) -> list[ProofStep]:
    """The counted certificate steps that refute the conclusion (a re-checked counterexample)."""
    return [s for s in steps if s.kind in COUNTED and s.kind == "certificate" and s.certificate is not None
            and s.verdict is not None and s.verdict.status is Status.FAILS]


def compose_steps(steps: list[ProofStep]) -> tuple[Status, str]:
    """The verdict of the proof steps once the hypotheses they need hold."""
    counted = [s for s in steps if s.kind in COUNTED]
    refuted = refuting(steps)
    if refuted:  # a re-checked counterexample certificate (verify/_theorem/proofs_counterexample.py)
        return Status.FAILS, f"the conclusion is refuted (step {refuted[0].id}): {refuted[0].verdict.reason}"
    bad = [s.id for s in counted if s.verdict is None or s.verdict.status is not Status.HOLDS]
    if bad:
        return Status.UNKNOWN, f"step(s) {', '.join(bad)} did not produce an exactly re-checked proof"
    for s in steps:
        if s.kind != "cited":
            continue
        if not s.obligations:
            return Status.UNKNOWN, f"cited step {s.id} lists no obligations: the hypotheses of what it cites are not discharged"
        open_ = failures(s.obligations)
        if open_ or s.verdict is None or s.verdict.status is not Status.HOLDS:
            names = "; ".join(f"'{o.hypothesis}' (by {o.discharged_by or 'nothing'}: "
                              f"{o.verdict.value if o.verdict else 'no verdict'})" for o in open_)
            detail = names or (s.verdict.reason if s.verdict is not None else "no verdict")
            return Status.UNKNOWN, f"cited step {s.id} has undischarged obligation(s): {detail}"
    cited = [s.id for s in steps if s.kind == "cited"]
    tail = f", relative to the cited step(s) {', '.join(cited)}" if cited else ""
    return Status.HOLDS, f"every hypothesis holds and every certificate and symbolic step re-checks exactly{tail}"


def provenance(options: dict[str, Any], started: float) -> dict[str, Any]:
    return Provenance.collect(("consensus-verify", "sympy", "cvxpy", "clarabel", "scs", "numpy", "scipy", "mpmath",
                               "python-flint"), with_machine=True, options=options, started=started).to_json()


@dataclass(frozen=True)
class TheoremReport:
    theorem: Theorem
    hypotheses: HypothesisReport
    steps: tuple[ProofStep, ...]
    status: Status
    explanation: str
    evidence: dict[str, Any] | None
    provenance: dict[str, Any]

    @property
    def verdict(self) -> str:
        """The report's verdict: ``not_applicable`` when a hypothesis fails, ``fails`` only for a
        re-checked counterexample to the conclusion (:func:`theorems.verdict.applicability`)."""
        return applicability(self.status, refuted=bool(refuting(list(self.steps))))

    @property
    def certificates(self) -> list[tuple[str, Any]]:
        return [(s.id, s.certificate) for s in self.steps if s.certificate is not None]

    def render(self, skipped: str | None = None, rate_line: str | None = None) -> str:
        """The console text (:func:`.render.render_theorem`)."""
        from .render import render_theorem
        return render_theorem(self, skipped, rate_line)

    def figure(self, ax: Any = None, *, title: str | None = None) -> Any:
        """The numerical evidence re-integrated and drawn (:func:`.render.theorem_figure`); ``ax``: an existing Axes."""
        from .render import theorem_figure
        return theorem_figure(self, ax, title)

    def to_json(self) -> dict[str, Any]:
        hyp = self.hypotheses.to_json()
        return {
            "verdict": self.verdict,
            "explanation": self.explanation,
            "theorem": hyp["theorem"],
            "instance": hyp["instance"],
            "hypotheses": hyp["hypotheses"],
            "steps": [s.to_json() for s in self.steps],
            "numerical_evidence": self.evidence,
            "provenance": self.provenance,
        }
