"""Plain-text rendering of verdicts and hypothesis reports (the CLI's only job besides parsing)."""
from __future__ import annotations

import json
from typing import Any, Iterable

from theorems.verdict import Status

_MARK = {Status.HOLDS: "holds  ", Status.FAILS: "FAILS  ", Status.UNKNOWN: "unknown"}


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def verdict_lines(entries: Iterable[dict[str, Any]], indent: str = "  ") -> list[str]:
    """Render serialised verdicts (``Verdict.to_json()`` dicts)."""
    lines = []
    for v in entries:
        status = Status(v["verdict"])
        lines.append(f"{indent}[{_MARK[status]}] {v['name']}: {v['reason']}")
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
