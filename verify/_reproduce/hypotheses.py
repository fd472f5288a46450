"""Which hypotheses of a catalogue theorem hold on the instances a case used.

The catalogue's predicates (:mod:`theorems.predicates`) are evaluated on every instance and
counted: ``holds`` / ``fails`` / ``unknown`` out of ``instances``, with the reason of the first
instance that did not hold (or of the first instance when all hold).  These are the predicates'
own three-valued verdicts, exact where the data are rational; nothing here rounds a deviation.
"""
from __future__ import annotations

from typing import Any, Sequence

from theorems.catalogue import get
from theorems.system import AttentionSystem
from theorems.verdict import Status


def hypothesis_counts(theorem_id: str, systems: Sequence[AttentionSystem], label: str) -> list[dict[str, Any]]:
    """One entry per hypothesis of ``theorem_id``, counted over ``systems`` (labelled ``label``)."""
    theorem = get(theorem_id)
    rows: dict[str, dict[str, Any]] = {}
    for system in systems:
        for predicate in theorem.hypotheses:
            verdict = predicate.evaluate(system)
            row = rows.setdefault(predicate.id, {"theorem": theorem.id, "instances": label, "predicate": predicate.id,
                                                 "holds": 0, "fails": 0, "unknown": 0, "n": 0, "example": ""})
            row[verdict.status.value] += 1
            row["n"] += 1
            if not row["example"] or (verdict.status is not Status.HOLDS and row["fails"] + row["unknown"] == 1):
                row["example"] = verdict.reason
    return list(rows.values())


def summary(entries: Sequence[dict[str, Any]]) -> str:
    """``"3.2 on X: mask_full 16/16, open_hemisphere 0/16 (fails)"`` for the report table."""
    groups: dict[tuple[str, str], list[str]] = {}
    for e in entries:
        mark = f"{e['predicate']} {e['holds']}/{e['n']}"
        if e["fails"]:
            mark += f" (fails {e['fails']})"
        if e["unknown"]:
            mark += f" (unknown {e['unknown']})"
        groups.setdefault((e["theorem"], e["instances"]), []).append(mark)
    return "; ".join(f"{th} on {inst}: " + ", ".join(marks) for (th, inst), marks in groups.items())
