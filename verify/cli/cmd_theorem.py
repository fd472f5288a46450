"""``verify theorem ID``: hypotheses, exact certificates, symbolic steps, cited steps and
numerical evidence, composed into one verdict.

Exit codes: 0 the result holds on the instance (relative to the cited steps it lists), 3 a
hypothesis fails (the result does not apply; nothing claims its conclusion), 4 inconclusive,
2 bad input.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from theorems.system_json import load_system

from .common import UsageError, add_format_option, emit, write_atomic
from .render import verdict_lines


def add_parser(sub) -> None:
    p = sub.add_parser("theorem", help="prove a result of the paper on an instance with exact certificates")
    p.add_argument("theorem", metavar="ID", help="result id, e.g. 4.2, 3.2, 4.4-sym (see `verify list`)")
    p.add_argument("--instance", metavar="FILE", help="attention-system JSON file (default: the result's example)")
    p.add_argument("--save", metavar="DIR", help="write the report and every certificate (re-check with `verify recheck`)")
    p.add_argument("--no-simulate", action="store_true", help="skip the numerical evidence")
    p.add_argument("--t-end", type=float, default=20.0, help="simulation horizon for the numerical evidence (default 20)")
    add_format_option(p)
    p.set_defaults(run=run)


def _text(payload: dict) -> str:
    th, inst = payload["theorem"], payload["instance"]
    lines = [f"{th['kind'].capitalize()} {th['id']}: {th['title']}",
             f"  conclusion: {th['conclusion']}",
             f"instance {inst['name']}: d={inst['d']} N={inst['N']} H={inst['H']} mask={inst['mask']} beta={inst['beta']}",
             "hypotheses:"]
    lines += verdict_lines(payload["hypotheses"], indent="  ")
    if payload["steps"]:
        lines.append("proof:")
    for step in payload["steps"]:
        v = step.get("verdict")
        mark = v["verdict"] if v else "cited"
        lines.append(f"  [{step['kind']:<11}] {step['id']} ({mark}): {step['statement']}")
        if step["kind"] == "cited" and step.get("source"):
            lines.append(f"                source: {step['source']}")
        if v and step["kind"] in ("certificate", "symbolic"):
            lines.append(f"                {v['reason']}")
    ev = payload.get("numerical_evidence")
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
    return "\n".join(lines)


def run(args) -> int:
    from verify.theorem.check import check_theorem

    if args.t_end <= 0:
        raise UsageError(f"--t-end: expected a positive number, got {args.t_end}")
    save = Path(args.save) if args.save else None
    if save is not None and save.exists() and not save.is_dir():
        raise UsageError(f"--save: expected a directory, got the file {save}")
    system = load_system(args.instance) if args.instance else None
    report = check_theorem(args.theorem, system, simulate=not args.no_simulate, t_end=args.t_end)
    payload = report.to_json()
    if save is not None:  # everything is computed before anything is written
        safe = report.theorem.id.replace(".", "_")
        for step_id, cert in report.certificates:
            write_atomic(save / f"{safe}__{step_id}.json", json.dumps(cert.to_json(), indent=1))
        write_atomic(save / f"{safe}__report.json", json.dumps(payload, indent=1))
        sys.stderr.write(f"saved the report and {len(report.certificates)} certificate(s) to {save}\n")
    emit(_text(payload), payload, args.format)
    return report.status.exit_code
