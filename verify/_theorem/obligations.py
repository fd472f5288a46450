"""Proof obligations of cited steps (after the Why3 proof-session model).

A cited step uses a theorem that is not re-proved here (Liouville's formula, the comparison lemma,
Moreau's consensus theorem, ...).  It is only as good as the hypotheses of that theorem, so each
cited step lists them as :class:`Obligation` s.  Every obligation names the step that discharges it:

* ``"hypothesis:NAME"`` — a hypothesis predicate of the result, evaluated on the instance;
* the id of an *earlier* step of the same proof: a certificate, a symbolic identity or another
  cited step (whose own obligations are then part of the chain).

:func:`resolve` fills in each obligation's verdict from its discharger and gives every cited step
the verdict of its obligations: ``holds`` only when each obligation is discharged by a step that
holds and is not numerical.  A cited step without obligations, an obligation naming no step, a
step that comes later, or a numerical step make the cited step (and so the theorem) ``unknown``,
with the obligation named.  Nothing here is trusted beyond bookkeeping: the dischargers carry the
proofs.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable

from theorems.verdict import Status, Verdict, holds, unknown

HYPOTHESIS = "hypothesis:"


@dataclass(frozen=True)
class Obligation:
    """One hypothesis of a cited theorem and what discharges it (``verdict`` is set by :func:`resolve`)."""

    hypothesis: str
    discharged_by: str | None
    verdict: Status | None = None
    discharger_kind: str | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hypothesis": self.hypothesis, "discharged_by": self.discharged_by,
                               "verdict": self.verdict.value if self.verdict is not None else None}
        if self.discharger_kind:
            out["discharger_kind"] = self.discharger_kind
        if self.note:
            out["note"] = self.note
        return out


def ob(hypothesis: str, discharged_by: str | None, note: str = "") -> Obligation:
    """An unresolved obligation (shorthand for the proof plans)."""
    return Obligation(hypothesis, discharged_by, note=note)


def failures(obligations: Iterable[Obligation]) -> list[Obligation]:
    """Obligations that do not hold, or hold only through a numerical step."""
    return [o for o in obligations if o.verdict is not Status.HOLDS or o.discharger_kind == "numerical"]


def _lookup(ref: str | None, hypotheses: dict[str, Verdict], done: dict[str, Any]) -> tuple[Status, str | None]:
    if not ref:
        return Status.UNKNOWN, None
    if ref.startswith(HYPOTHESIS):
        v = hypotheses.get(ref[len(HYPOTHESIS):])
        return (v.status, "hypothesis") if v is not None else (Status.UNKNOWN, None)
    step = done.get(ref)
    if step is None or step.verdict is None:
        return Status.UNKNOWN, None
    return step.verdict.status, step.kind


def resolve(steps: Iterable[Any], hypothesis_verdicts: Iterable[Verdict]) -> list[Any]:
    """Steps with every obligation's verdict filled in and cited steps' verdicts derived from them.

    Dischargers must come earlier in the list (no circular citations).  Steps are frozen records;
    resolved copies are returned.
    """
    hyps = {v.name: v for v in hypothesis_verdicts}
    done: dict[str, Any] = {}
    out = []
    for step in steps:
        if step.kind == "cited":
            resolved = []
            for o in step.obligations:
                status, kind = _lookup(o.discharged_by, hyps, done)
                resolved.append(dataclasses.replace(o, verdict=status, discharger_kind=kind))
            step = dataclasses.replace(step, obligations=tuple(resolved), verdict=cited_verdict(step, resolved))
        done[step.id] = step
        out.append(step)
    return out


def cited_verdict(step: Any, obligations: list[Obligation]) -> Verdict:
    """``holds`` iff the list is non-empty and every obligation holds through a non-numerical step.

    A cited step that carries its own failing verdict (e.g. ``weights`` with no usable bound) keeps it.
    """
    own = step.verdict
    if own is not None and own.status is not Status.HOLDS:
        return own
    if not obligations:
        return unknown(step.id, "cited without any obligation: the hypotheses of the cited theorem are not discharged")
    bad = failures(obligations)
    if bad:
        names = "; ".join(f"'{o.hypothesis}' (discharged by {o.discharged_by or 'nothing'}: "
                          f"{o.verdict.value if o.verdict else 'no verdict'}"
                          f"{', numerical' if o.discharger_kind == 'numerical' else ''})" for o in bad)
        return unknown(step.id, f"undischarged obligation(s): {names}",
                       {"undischarged": [o.to_json() for o in bad]})
    reason = own.reason + "; " if own is not None else ""
    return holds(step.id, f"{reason}all {len(obligations)} obligation(s) of the cited theorem are discharged",
                 dict(own.witness) if own is not None else {})
