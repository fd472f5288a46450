"""The optional certified-rate entry of a ``verify theorem`` report (``--certified-rate``).

For 3.2 and 4.2 on the theorem's instance: the certified ODE bound at ``eps = 1/100`` and its rate
(:func:`verify._depth.certify_depth`, no simulation), or the reason none is certified.  Other ids: None.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

EPS = Fraction(1, 100)


def certified_rate(theorem_id: str, system) -> dict[str, Any] | None:
    if theorem_id not in ("3.2", "4.2"):
        return None
    from .certify import certify_depth

    report = certify_depth(theorem_id, system, EPS, "ode", simulate=False)
    j = report.to_json()
    return {"verdict": j["verdict"], "eps": j["eps"], "metric": j["metric"], "T(eps)": j["bound"], "rate": j["rate"],
            "explanation": j["explanation"], "see": "verify depth (verify docs depth)"}


def text_line(entry: dict[str, Any] | None) -> str | None:
    if entry is None:
        return None
    if entry["T(eps)"] is None:
        return f"certified rate: none ({entry['explanation']})"
    return (f"certified rate (eq. 5): {entry['metric']} <= {entry['eps']} for t >= {entry['T(eps)']} "
            f"(~{float(Fraction(entry['T(eps)'])):.4g}), exponential rate {entry['rate']} (verify depth)")
