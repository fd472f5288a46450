"""``verify assumptions ID``: every hypothesis of a result with its verdict on an instance.

Also the plain-text rendering of serialised verdicts that ``verify theorem`` shares.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from theorems.errors import InvalidInput
from verify.report import Report

from ._inputs import resolve_instance

_MARK = {"holds": "holds  ", "fails": "FAILS  ", "unknown": "unknown"}


def assumptions(theorem_id: str, instance: Any = None) -> Report:
    """Evaluate every hypothesis of ``theorem_id`` on ``instance`` (default: the result's example).

    ``instance``: a path, a JSON-like dict or an ``AttentionSystem`` (:func:`._inputs.resolve_instance`).
    The verdict is the three-valued conjunction of the hypotheses (and of a claim's symbolic
    proof): exit code 0 all hold, 3 some fails (its witness is in the entry), 4 some unknown.
    ``record`` is the :class:`~theorems.catalogue.base.HypothesisReport`.
    """
    from theorems.catalogue import get  # lazily: the catalogue imports SymPy (cold start)

    if not isinstance(theorem_id, str):
        raise InvalidInput("theorem_id", "a result id as text, such as '4.2' (see 'verify list')", theorem_id)
    theorem = get(theorem_id)
    report = theorem.check(resolve_instance(instance))
    payload = report.to_json()
    return Report("assumptions", payload, hypothesis_report_text(payload), exit_code=int(report.status.exit_code),
                  record=report)


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def verdict_lines(entries: Iterable[dict[str, Any]], indent: str = "  ") -> list[str]:
    """Render serialised verdicts (``Verdict.to_json()`` dicts), one line each plus their witness."""
    lines = []
    for v in entries:
        lines.append(f"{indent}[{_MARK[v['verdict']]}] {v['name']}: {v['reason']}")
        for key, value in (v.get("witness") or {}).items():
            lines.append(f"{indent}            {key} = {_short(value)}")
    return lines


def hypothesis_report_text(payload: dict[str, Any]) -> str:
    th, inst = payload["theorem"], payload["instance"]
    lines = [
        f"{th['kind'].capitalize()} {th['id']}: {th['title']} ({th['setting']})",
        f"  conclusion: {th['conclusion']}",
        f"  source: {th['citation']}",
        f"  reading: {th['reading']}",
        f"instance {inst['name']}: d={inst['d']} N={inst['N']} H={inst['H']} mask={inst['mask']} beta={inst['beta']}",
        "hypotheses:" if payload["hypotheses"] else "hypotheses: none on the instance",
    ]
    lines += verdict_lines(payload["hypotheses"])
    if "proof" in payload:
        lines.append("symbolic proof:")
        lines += verdict_lines([payload["proof"]])
    counts = {s: sum(1 for v in payload["hypotheses"] if v["verdict"] == s) for s in ("holds", "fails", "unknown")}
    lines.append(f"verdict: {payload['verdict']} ({counts['holds']} hold, {counts['fails']} fail, {counts['unknown']} unknown)")
    return "\n".join(lines)
