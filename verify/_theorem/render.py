"""The console text of a :class:`~verify._theorem.report.TheoremReport` (``verify theorem``), read from the record.

The hypotheses, each proof step with its verdict (a cited step with its obligations and what
discharges each), the numerical evidence (never part of the proof) and the verdict.
"""
from __future__ import annotations

from typing import Any

from theorems.render import instance_line, verdict_lines

PAD = " " * 16


def render_theorem(report: Any, skipped: str | None = None, rate_line: str | None = None) -> str:
    """The text of ``report``; ``skipped``: why the evidence was not simulated; ``rate_line``: the
    certified rate of ``verify depth`` (``--certified-rate``)."""
    th = report.theorem
    lines = [f"{th.kind.capitalize()} {th.id}: {th.title}", f"  conclusion: {th.conclusion}",
             instance_line(report.hypotheses.system), "hypotheses:", *verdict_lines(report.hypotheses.verdicts)]
    if report.steps:
        lines.append("proof:")
    for step in report.steps:
        lines += _step_lines(step)
    if skipped:
        lines.append(f"numerical evidence skipped: {skipped}")
    ev = report.evidence
    if ev:
        fin = ev.get("final", {})
        lines.append(f"numerical evidence (not a proof): {ev['integrator']['method']} to t={fin.get('t')}: "
                     f"E_first({ev.get('E_variant')})={fin.get('E_first'):.3e}, E_pair={fin.get('E_pair'):.3e}")
        al = ev.get("alignment")
        if al:
            lines.append(f"  signs of <v, x_i(T)>: {al['signs']} ({'same sign' if al['same_sign'] else 'mixed signs'}; "
                         "4.4-sym claims alignment with span(v) only)")
    lines.append(f"verdict: {report.verdict} - {report.explanation}")
    lines.append(f"wall time: {report.provenance['wall_time_s']} s")
    if rate_line:
        lines.append(rate_line)
    return "\n".join(lines)


def _step_lines(step: Any) -> list[str]:
    v = step.verdict
    lines = [f"  [{step.kind:<11}] {step.id} ({v.status.value if v else 'cited'}): {step.statement}"]
    if step.kind == "cited" and step.source:
        lines.append(f"{PAD}source: {step.source}")
    if step.kind == "cited":
        lines += [f"{PAD}- [{o.verdict.value if o.verdict else 'none':<7}] {o.hypothesis}  <= "
                  f"{o.discharged_by or 'NOTHING'}" for o in step.obligations]
    if v and step.kind in ("certificate", "symbolic"):
        lines.append(f"{PAD}{v.reason}")
    return lines



def theorem_figure(report: Any, ax: Any = None, title: str | None = None) -> Any:
    """The numerical evidence of ``report`` drawn again: its instance re-integrated with the
    evidence's own settings (horizon, samples, integrator; deterministic) and checked against the
    recorded final metrics before it is drawn.  Evidence, not proof; ``ax``: an existing Axes."""
    import inspect

    import numpy as np

    from numerics.dop853 import DOP853
    from numerics.evidence import simulate_evidence
    from numerics.metrics import E_first, E_pair
    from numerics.plotting import trajectory_figure
    from numerics.taylor import TaylorMP
    from theorems.errors import InvalidInput
    from verify.limits import MAX_DIGITS, MAX_POINTS, check_range, check_simulation, check_t_end, evidence_skip_reason

    ev, system = report.evidence, report.hypotheses.system
    if not ev:
        raise InvalidInput("plot", "a theorem report with numerical evidence", "no numerical evidence (simulate=False)")
    integ, variant = ev["integrator"], ev["E_variant"]
    digits, where = integ["precision"].get("digits"), "numerical_evidence.integrator"
    check_t_end(integ.get("t_end"), f"{where}.t_end")  # a record's evidence is a dict a caller could edit: in the limits
    check_range(f"{where}.samples", integ.get("samples"), 2, MAX_POINTS)
    check_range(f"{where}.precision.digits", digits, 5, MAX_DIGITS)  # 5: the least TaylorMP takes
    check_simulation(system.N, system.d, system.H, float(integ["t_end"]), None, digits)
    skipped = evidence_skip_reason(system, float(integ["t_end"])) if digits is None else None
    if skipped:
        raise InvalidInput(f"{where}.t_end", "a horizon the theorem check would simulate", integ["t_end"], skipped)
    if digits is None:  # the float64 tolerances simulate_evidence used (the theorem check passes its defaults)
        defaults = inspect.signature(simulate_evidence).parameters
        integrator = DOP853(rtol=defaults["rtol"].default, atol=defaults["atol"].default)
    else:
        integrator = TaylorMP(digits=digits)
    traj = integrator.integrate(system, float(integ["t_end"]), samples=int(integ["samples"]))
    got = {"E_pair": float(E_pair(traj.states[-1, 0])), "E_first": float(E_first(traj.states[-1, 0], variant))}
    for name, value in got.items():
        if not np.isclose(value, ev["final"][name], rtol=1e-9, atol=1e-14):
            raise InvalidInput("plot", f"numerical evidence that re-integrates to its recorded final {name}",
                               f"{value!r} (recorded {ev['final'][name]!r})",
                               hint="the record's instance is not the one the evidence was computed on")
    title = title or f"Theorem {report.theorem.id} evidence (not a proof), {ev.get('instance', system.name)}"
    return trajectory_figure(traj, variant=variant, title=title, mask=system.mask, ax=ax)
