"""``verify theorem ID``: hypotheses, exact certificates, symbolic steps, cited steps and numerical
evidence, composed into one verdict (:func:`verify._theorem.check.check_theorem`), as a report.

Exit codes carried by the verdict: 0 the result holds on the instance (relative to the cited steps
it lists), 3 a hypothesis fails (the result does not apply; nothing claims its conclusion), 4
inconclusive.  The simulation is evidence, never part of the proof.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from theorems.errors import InvalidInput
from verify.outputs import Target, check_dir, check_targets, write_all
from verify.report import Report, envelope

from ._inputs import resolve_instance
from ._options import check_bool, check_path, is_number, keyword
from .assumptions import verdict_lines


def theorem(theorem_id: str, instance: Any = None, *, simulate: bool = True, t_end: float = 20.0,
            certified_rate: bool = False, save: str | Path | None = None, force: bool = False) -> Report:
    """Prove result ``theorem_id`` on ``instance`` (default: its built-in example).

    ``instance``: a path, a JSON-like dict or an ``AttentionSystem``.  ``simulate``: attach the
    numerical evidence (integrated to ``t_end``, at most ``MAX_T_END``; skipped, with the reason,
    when its cost estimate is too high).  ``certified_rate`` (3.2 / 4.2): add the certified ODE time
    ``T(1/100)`` and rate of :func:`verify.api.depth.depth`.  ``save``: a directory receiving the
    report and every certificate (re-checked by ``verify recheck``); it is checked before any work
    and an existing file there is replaced only with ``force`` (:mod:`verify.outputs`).
    ``record`` is the :class:`~verify._theorem.report.TheoremReport`.
    """
    return run(theorem_id, instance, simulate=simulate, t_end=t_end, certified_rate=certified_rate, save=save,
               force=force)


def run(theorem_id: str, instance: Any = None, *, simulate: bool = True, t_end: float = 20.0,
        certified_rate: bool = False, save: str | Path | None = None, force: bool = False,
        name: Callable[[str], str] = keyword) -> Report:
    """:func:`theorem`, its errors naming the options with ``name`` (the CLI passes ``flag``)."""
    from theorems.catalogue import get  # lazily (cold start: the catalogue imports SymPy)
    from verify.limits import check_t_end, evidence_skip_reason
    from verify._theorem.check import check_theorem

    simulate, certified_rate = check_bool(name("simulate"), simulate), check_bool(name("certified_rate"), certified_rate)
    force = check_bool(name("force"), force)
    if not is_number(t_end):
        raise InvalidInput(name("t_end"), "a number (the simulation horizon)", t_end)
    check_t_end(t_end, name("t_end"))
    t_end = t_end if isinstance(t_end, (int, float)) else float(t_end)  # a Fraction, a NumPy float32
    if not isinstance(theorem_id, str):
        raise InvalidInput(name("theorem_id"), "a result id as text, such as '4.2' (see 'verify list')", theorem_id)
    th = get(theorem_id)
    safe = th.id.replace(".", "_")
    save = check_path(name("save"), save)
    if save is not None:
        _planned(save, safe, force, name("save"))
    system = resolve_instance(instance, th.example)
    skipped = evidence_skip_reason(system, t_end) if simulate else None
    report = check_theorem(th.id, system, simulate=simulate and skipped is None, t_end=t_end)
    body = report.to_json()
    if skipped:
        body["numerical_evidence_skipped"] = skipped
    if certified_rate:  # optional: verify depth's certified rate
        from verify._depth.summary import certified_rate as rate_entry

        body["certified_rate"] = rate_entry(th.id, system)
    payload = envelope("theorem", body)
    text = theorem_text(payload)
    files: list[Path] = []
    if save is not None:  # everything is computed and rendered before anything is written
        batch = [(Target(name("save"), save / f"{safe}__{step_id}.json"), json.dumps(cert.to_json(), indent=1))
                 for step_id, cert in report.certificates]
        batch.append((Target(name("save"), save / f"{safe}__report.json"), json.dumps(payload, indent=1)))
        files = write_all(batch, force)
    return Report("theorem", payload, text, exit_code=int(report.status.exit_code), files=tuple(files), record=report)


def _planned(save: Path, safe: str, force: bool, option: str = "save") -> None:
    """Before any work: ``save`` is a usable directory and holds no file this run would write."""
    check_dir(option, save)
    names = [f"{safe}__report.json"]
    if save.is_dir():  # certificate names are known only after the proof; any earlier one counts
        names += sorted({p.name for p in save.glob(f"{safe}__*.json")} - set(names))
    check_targets([Target(option, save / n) for n in names], force)


def theorem_text(payload: dict[str, Any]) -> str:
    """The console rendering of a theorem report's payload."""
    th, inst = payload["theorem"], payload["instance"]
    lines = [f"{th['kind'].capitalize()} {th['id']}: {th['title']}",
             f"  conclusion: {th['conclusion']}",
             f"instance {inst['name']}: d={inst['d']} N={inst['N']} H={inst['H']} mask={inst['mask']} beta={inst['beta']}",
             "hypotheses:"]
    lines += verdict_lines(payload["hypotheses"], indent="  ")
    if payload["steps"]:
        lines.append("proof:")
    for step in payload["steps"]:
        lines += _step_lines(step)
    ev = payload.get("numerical_evidence")
    if payload.get("numerical_evidence_skipped"):
        lines.append(f"numerical evidence skipped: {payload['numerical_evidence_skipped']}")
    if ev:
        fin = ev.get("final", {})
        lines.append(f"numerical evidence (not a proof): {ev['integrator']['method']} to t={fin.get('t')}: "
                     f"E_first({ev.get('E_variant')})={fin.get('E_first'):.3e}, E_pair={fin.get('E_pair'):.3e}")
        al = ev.get("alignment")
        if al:
            lines.append(f"  signs of <v, x_i(T)>: {al['signs']} ({'same sign' if al['same_sign'] else 'mixed signs'}; "
                         "4.4-sym claims alignment with span(v) only)")
    lines.append(f"verdict: {payload['verdict']} - {payload['explanation']}")
    lines.append(f"wall time: {payload['provenance']['wall_time_s']} s")
    if payload.get("certified_rate"):
        from verify._depth.summary import text_line

        lines.append(text_line(payload["certified_rate"]))
    return "\n".join(lines)


def _step_lines(step: dict[str, Any]) -> list[str]:
    v = step.get("verdict")
    lines = [f"  [{step['kind']:<11}] {step['id']} ({v['verdict'] if v else 'cited'}): {step['statement']}"]
    if step["kind"] == "cited" and step.get("source"):
        lines.append(f"                source: {step['source']}")
    for o in step.get("obligations", ()):
        lines.append(f"                - [{o['verdict'] or 'none':<7}] {o['hypothesis']}  <= {o['discharged_by'] or 'NOTHING'}")
    if v and step["kind"] in ("certificate", "symbolic"):
        lines.append(f"                {v['reason']}")
    return lines
