"""Console text of verdicts and of a :class:`~theorems.catalogue.base.HypothesisReport`, read from the records.

One line per verdict (``[holds  ] name: reason``) and one per witness entry, shortened to 160
characters; ``verify assumptions`` and ``verify theorem`` print them.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from .verdict import applicability

MARK = {"holds": "holds  ", "fails": "FAILS  ", "unknown": "unknown"}


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def verdict_lines(verdicts: Iterable[Any], indent: str = "  ") -> list[str]:
    """Each :class:`~theorems.verdict.Verdict` on one line, its witness (as serialised) below it."""
    lines = []
    for v in verdicts:
        lines.append(f"{indent}[{MARK[v.status.value]}] {v.name}: {v.reason}")
        lines += [f"{indent}            {key} = {_short(value)}" for key, value in (v.to_json()["witness"] or {}).items()]
    return lines


def instance_line(system: Any) -> str:
    return (f"instance {system.name}: d={system.d} N={system.N} H={system.H} mask={system.mask} "
            f"beta={system.beta}")


def render_hypotheses(report: Any) -> str:
    """The text of ``verify assumptions``: the result, the instance, each hypothesis, the verdict."""
    th = report.theorem
    lines = [f"{th.kind.capitalize()} {th.id}: {th.title} ({th.setting})", f"  conclusion: {th.conclusion}",
             f"  source: {th.citation}", f"  reading: {th.reading}", instance_line(report.system),
             "hypotheses:" if report.verdicts else "hypotheses: none on the instance"]
    lines += verdict_lines(report.verdicts)
    if report.proof is not None:
        lines += ["symbolic proof:", *verdict_lines([report.proof])]
    counts = {s: sum(1 for v in report.verdicts if v.status.value == s) for s in ("holds", "fails", "unknown")}
    lines.append(f"verdict: {applicability(report.status)} ({counts['holds']} hold, {counts['fails']} fail, "
                 f"{counts['unknown']} unknown)")
    return "\n".join(lines)
