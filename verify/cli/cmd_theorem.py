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

from .common import add_force_option, add_format_option, emit
from .limits import MAX_T_END, check_t_end, evidence_skip_reason
from verify.outputs import Target, check_dir, check_targets, write_all
from .render import verdict_lines


def add_parser(sub) -> None:
    p = sub.add_parser("theorem", help="prove a result of the paper on an instance with exact certificates")
    p.add_argument("theorem", metavar="ID", help="result id, e.g. 4.2, 3.2, 4.4-sym (see `verify list`)")
    p.add_argument("--instance", metavar="FILE", help="attention-system JSON file (default: the result's example)")
    p.add_argument("--save", metavar="DIR", help="write the report and every certificate (re-check with `verify recheck`)")
    p.add_argument("--no-simulate", action="store_true", help="skip the numerical evidence")
    p.add_argument("--t-end", type=float, default=20.0,
                   help=f"simulation horizon for the numerical evidence (default 20, at most {MAX_T_END:g})")
    p.add_argument("--certified-rate", action="store_true",
                   help="3.2 / 4.2: add the certified ODE time T(1/100) and rate of `verify depth` (docs/depth.md)")
    add_force_option(p)
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
        for o in step.get("obligations", ()):
            lines.append(f"                - [{o['verdict'] or 'none':<7}] {o['hypothesis']}  <= {o['discharged_by'] or 'NOTHING'}")
        if v and step["kind"] in ("certificate", "symbolic"):
            lines.append(f"                {v['reason']}")
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
    return "\n".join(lines)


def _planned(save: Path, safe: str, force: bool) -> None:
    """Before any work: ``--save`` is a usable directory and holds no file this run would write."""
    check_dir("--save", save)
    names = [f"{safe}__report.json"]
    if save.is_dir():  # certificate names are known only after the proof; any earlier one counts
        names += sorted({p.name for p in save.glob(f"{safe}__*.json")} - set(names))
    check_targets([Target("--save", save / n) for n in names], force)


def run(args) -> int:
    from theorems.catalogue import get  # lazily (cold start: the catalogue imports SymPy)
    from theorems.system_json import load_system
    from verify.theorem.check import check_theorem

    check_t_end(args.t_end, "--t-end")
    theorem = get(args.theorem)
    safe = theorem.id.replace(".", "_")
    save = Path(args.save) if args.save else None
    if save is not None:
        _planned(save, safe, args.force)
    system = load_system(args.instance) if args.instance else theorem.example()
    skipped = None if args.no_simulate else evidence_skip_reason(system, args.t_end)
    report = check_theorem(theorem.id, system, simulate=not args.no_simulate and skipped is None, t_end=args.t_end)
    payload = report.to_json()
    if skipped:
        payload["numerical_evidence_skipped"] = skipped
    if getattr(args, "certified_rate", False):  # optional, issue 11: verify depth's certified rate
        from verify.depth.summary import certified_rate

        payload["certified_rate"] = certified_rate(theorem.id, system)
    if save is not None:  # everything is computed and rendered before anything is written
        files = [(Target("--save", save / f"{safe}__{step_id}.json"), json.dumps(cert.to_json(), indent=1))
                 for step_id, cert in report.certificates]
        files.append((Target("--save", save / f"{safe}__report.json"), json.dumps(payload, indent=1)))
        write_all(files, args.force)
        sys.stderr.write(f"saved the report and {len(report.certificates)} certificate(s) to {save}\n")
    text = _text(payload)
    if payload.get("certified_rate"):
        from verify.depth.summary import text_line

        text += "\n" + text_line(payload["certified_rate"])
    emit(text, payload, args.format)
    return report.status.exit_code
