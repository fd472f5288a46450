"""The console text of a :class:`~verify._depth.certify.DepthReport` (``verify depth``), read from the record.

The bound, the rate and the window are exact rationals shown with a float beside them; the
simulated value is evidence, never part of the bound.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from theorems.verdict import applicability

METRIC = {"3.2": "max_ij (1 - <x_i, x_j>)", "4.2": "max_i (1 - <x_1, x_i>)"}


def _approx(q: Any) -> str:
    return f"{q} (~{float(Fraction(str(q))):.6g})"


def render_depth(report: Any, tau_default: bool = False) -> str:
    """The text of ``report``; ``tau_default``: the layer step was not given (the default 1 is shown as such)."""
    ode = report.model == "ode"
    lines = [f"depth {report.theorem} ({'eq. 5, ODE' if ode else 'eq. 4, layer map'}), "
             f"metric {METRIC[report.theorem]} <= eps = {report.eps}"]
    if not ode:
        lines.append(f"  tau = {report.tau}" + (" (default; set with --tau)" if tau_default else ""))
    lines.append("hypotheses:")
    lines += [f"  [{v.status.value:<7}] {v.name}: {v.reason}" for v in report.hypotheses]
    if report.steps:
        lines.append("rests on:")
    lines += [f"  [{v.status.value:<7}] {v.name}: {v.reason}" for v in report.steps]
    cert, bound = report.certificate, report.bound
    if bound is not None:
        b = Fraction(str(bound))
        lines.append(f"certified {'time T(eps)' if ode else 'layers L(eps)'}: {bound}"
                     + ("" if b.denominator == 1 else f" (~{float(b):.6g})"))
        lines.append(f"certified rate: {_approx(cert.derived['rate'])} per {'unit time' if ode else 'layer'}")
        lines.append(f"claim: {cert.claim}")
    w = report.extra.get("window")
    if w:
        show = lambda q: "not proved" if q is None else _approx(q)  # noqa: E731
        ends = ("T_low", "T_high") if ode else ("L_low", "L_high")
        lines.append(f"certified window (validated enclosure, {w['steps']} {'steps' if ode else 'layers'}, "
                     f"{w['seconds']} s): {ends[0]} = {show(w['T_low'])}, {ends[1]} = {show(w['T_high'])}")
        lines.append(f"  {w['reason']}")
    t2 = report.extra.get("token2")
    if t2:
        lines.append(f"token 2 alone (any a(0) > -1): T_2(eps) = {_approx(t2['bound'])}")
    ev = report.evidence
    if ev:
        obs = ev.get("observed")
        tight = float(Fraction(str(bound))) / obs if obs is not None and bound is not None and obs > 0 else None
        lines.append(f"simulated (evidence, not a proof; {ev['method']}): observed = {obs if obs is not None else 'not reached'}"
                     + (f", tightness = bound / observed = {tight:.4g}" if tight else ""))
    lines.append(f"verdict: {applicability(report.status)} - {report.explanation}")
    return "\n".join(lines)
