"""The theorem checks of ``verify theorem`` for 3.2, 4.2 and 4.4-sym on their built-in examples.

Each check composes the catalogue's hypotheses, exact certificates and symbolic steps
(:func:`verify._theorem.check.check_theorem`, defaults: built-in example, simulation to t = 20).
Measurements: ``holds_<id>`` is 1 when the composed verdict is *holds* (relative to the cited
steps) and 0 when it is *fails*; an *unknown* verdict records no measurement, so the claim row
becomes "not testable here" with the check's explanation.  ``evidence_<id>`` is the simulated
``E_first`` at the end (``|cos|`` for 4.4-sym), numerical evidence shown beside the proof.
"""
from __future__ import annotations

from typing import Any

from numerics.spread import METRIC_RANGES
from theorems.verdict import Status
from verify._theorem.check import check_theorem

from .scale import Scale
from .stats import extreme, indicator
from .tasks import Task

THEOREMS = ("3.2", "4.2", "4.4-sym")


def theorem_tasks(scale: Scale) -> list[Task]:
    """One task per theorem check."""
    return [Task(tid, check_one, (tid,)) for tid in THEOREMS]


def check_one(tid: str) -> dict[str, Any]:
    """``verify theorem tid`` on its built-in example (one task)."""
    out: dict[str, Any] = {"measurements": {}, "hypotheses": [], "figures": [], "details": {}}
    report = check_theorem(tid)
    data = report.to_json()
    out["details"][tid] = {"verdict": data["verdict"], "explanation": data["explanation"],
                           "steps": [{"id": s["id"], "kind": s["kind"], "verdict": s.get("verdict", {}).get("verdict")}
                                     for s in data["steps"]],
                           "instance": data["instance"], "wall_time_s": data["provenance"]["wall_time_s"]}
    for h in data["hypotheses"]:
        out["hypotheses"].append({"theorem": tid, "instances": f"built-in example of {tid}", "predicate": h["name"],
                                  "holds": int(h["verdict"] == "holds"), "fails": int(h["verdict"] == "fails"),
                                  "unknown": int(h["verdict"] == "unknown"), "n": 1, "example": h["reason"]})
    if report.status is not Status.UNKNOWN:
        out["measurements"][f"holds_{tid}"] = indicator(
            report.status is Status.HOLDS, f"verify theorem {tid}: composed verdict is 'holds' (1) or 'fails' (0)")
    ev = data["numerical_evidence"]
    if ev is not None:
        out["measurements"][f"evidence_{tid}"] = extreme(
            [ev["final"]["E_first"]], f"E_first ({ev['E_variant']}) at t = {ev['final']['t']:g} on the example (simulation)",
            value_range=METRIC_RANGES["E_first" if ev["E_variant"] == "cos" else "E_first_abs"])
    return out
