"""Shared building blocks of the theorem proofs: certificate steps and the weight bounds."""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable

import sympy

from theorems.catalogue.base import HypothesisReport
from theorems.predicates.evidence import PBound
from theorems.system import AttentionSystem
from theorems.verdict import fails, holds, unknown

from verify.certificates.weights import exp_bounds
from .obligations import Obligation, ob
from .report import ProofStep

WEIGHTS_SOURCE = "weights lemma of the paper (softmax of exponents in [-beta p, beta p]); docs/model.md §2"


def certificate_step(step_id: str, statement: str, search: Callable[[], object]) -> ProofStep:
    """Run an SOS search and keep its certificate only after an independent exact re-check.

    A certificate shipped for exactly the same claim (package data, :mod:`verify._sos.shipped`) is
    re-checked instead of searching again (a cold search is slow); the step says which was done.
    """
    from verify._sos import shipped

    with shipped.use_shipped(not shipped.recording()):  # writing the package data: always search
        result = search()
    cert = getattr(result, "certificate", None)
    verdict = result.verdict
    origin = "shipped" if dict(verdict.witness or {}).get("origin") == "shipped" else "searched"
    if origin == "searched" and hasattr(result, "stats"):
        verdict = dataclasses.replace(verdict, reason=f"searched: {verdict.reason}")
    if verdict.holds and cert is not None:
        recheck = cert.recheck()  # exact arithmetic only; the search's own check is not trusted alone
        if not recheck.holds:
            verdict = unknown(step_id, f"the certificate failed its exact re-check: {recheck.reason}")
            cert = None
    elif verdict.holds:
        verdict = unknown(step_id, "the search reported success without a certificate")
    data = ({"search_stats": result.stats.to_json(), "origin": origin} if hasattr(result, "stats") else {})
    named = type(verdict)(step_id, verdict.status, verdict.reason, verdict.witness, verdict.exact)
    return ProofStep(step_id, "certificate", statement, named, cert if named.holds else None, data=data)


def bound_p(hypotheses: HypothesisReport) -> Fraction | None:
    """The proven bound ``p >= sup ||P^h(t)||_2`` from the ``P_bounded`` verdict, if it holds."""
    bound = hypotheses.evidence(PBound)
    return bound.p if bound is not None else None


MAX_EXPONENT = 700
"""Above ``2 beta p = 700`` the lower weight bound ``exp(-2 beta p)`` is below 1e-304: no certificate
can use it, and its exact rational would be enormous, so the step reports unknown instead."""


def exact_beta(system: AttentionSystem) -> sympy.Expr:
    """``beta`` as an exact number: float data stand for the binary rational they hold."""
    beta = system.beta
    return sympy.Rational(float(beta)) if beta.has(sympy.Float) else beta


def weights_step(system: AttentionSystem, p: Fraction) -> tuple[ProofStep, Fraction | None, Fraction | None]:
    """Rational enclosures ``lo <= exp(-2 beta p)``, ``hi >= exp(2 beta p)`` (interval arithmetic);
    ``(step, None, None)`` with an unknown verdict when ``2 beta p`` exceeds :data:`MAX_EXPONENT`."""
    beta = exact_beta(system)
    x = 2 * beta * sympy.Rational(p.numerator, p.denominator)
    if float(x) > MAX_EXPONENT:
        return ProofStep("weights", "symbolic", "attention weights bounded below by exp(-2 beta p)/|M(i)|",
                         unknown("weights", f"2 beta p = {float(x):.4g} > {MAX_EXPONENT}: the lower bound exp(-2 beta p) "
                                 "is below 1e-304 and cannot support a certificate", {"beta": str(beta), "p": str(p)})), None, None
    lo, _ = exp_bounds(-x)
    _, hi = exp_bounds(x)
    data = {"beta": str(beta), "p": str(p), "H": system.H, "exp(-2 beta p) >=": str(lo), "exp(2 beta p) <=": str(hi)}
    step = ProofStep("weights", "cited", "exp(-2 beta p)/|M(i)| <= a^h_ij <= exp(2 beta p)/|M(i)| with the proven "
                     "bound p of P_bounded; exp enclosed by rationals with interval arithmetic",
                     holds("weights", f"exp(-2 beta p) >= {lo}, exp(2 beta p) <= {hi}", data), source=WEIGHTS_SOURCE,
                     data=data, obligations=WEIGHTS_OBLIGATIONS)
    return step, lo, hi


def weights_prelude(system: AttentionSystem, hypotheses: HypothesisReport) -> tuple[ProofStep, Fraction | None, Fraction | None]:
    """The weights step from the proven bound ``p``; ``lo`` is None when no usable bound exists (the
    plan then stops with this step, whose verdict says why)."""
    p = bound_p(hypotheses)
    if p is None:
        return missing_bound_step(), None, None
    return weights_step(system, p)


def symbolic_step(step_id: str, statement: str, fn: Callable) -> ProofStep:
    verdict = fn()
    return ProofStep(step_id, "symbolic", statement, verdict)


WEIGHTS_OBLIGATIONS = (
    ob("sup_t ||P^h(t)||_2 <= p for every head h (the proven bound p)", "hypothesis:P_bounded"),
)
"""The weights lemma needs only the bound on ``P``: ``|<x_i, P x_j>| <= ||P||_2`` for unit tokens,
and the sphere is the model's state space (eq. 5 preserves it; tokens are validated as unit vectors)."""


def cited_step(step_id: str, statement: str, source: str, obligations: tuple[Obligation, ...] | list = ()) -> ProofStep:
    """A cited theorem with the hypotheses it needs; :func:`verify._theorem.obligations.resolve` fills the verdicts."""
    return ProofStep(step_id, "cited", statement, None, source=source, obligations=tuple(obligations))


def missing_bound_step() -> ProofStep:
    return ProofStep("weights", "cited", "attention weights bounded below",
                     fails("weights", "no proven bound p on ||P||: the weights lemma cannot be applied"),
                     source=WEIGHTS_SOURCE, obligations=WEIGHTS_OBLIGATIONS)
