"""``verify depth ID``: a certified time ``T(eps)`` (eq. 5) or number of layers ``L(eps)`` (eq. 4).

Prints the certified bound, the certified rate, the hypotheses and certificates it rests on, and
the simulated value beside it (``observed``, evidence only) with ``tightness = bound / observed``.
Exit codes: 0 certified, 3 a hypothesis fails, 4 no bound could be certified, 2 bad input.
"""
from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

from theorems.errors import InvalidInput

from .common import add_force_option, add_format_option, emit
from .outputs import Target, check_dir, check_targets, write_all

MAX_ENTRY_BUDGET = 1000


def add_parser(sub) -> None:
    p = sub.add_parser("depth", help="certified time / number of layers until every token is within eps of consensus",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("theorem", metavar="ID", help="3.2 (full attention) or 4.2 (causal attention)")
    p.add_argument("--instance", metavar="FILE", help="attention-system JSON file (default: the built-in instance)")
    p.add_argument("--eps", default="1/100", help="target: metric <= eps, a rational in (0, 1) such as 1/100 or 0.01 "
                   "(metric: max_ij (1 - <x_i, x_j>) for 3.2, max_i (1 - <x_1, x_i>) for 4.2; default 1/100)")
    p.add_argument("--model", choices=("ode", "layers"), default="ode",
                   help="ode: eq. 5 (a time T); layers: eq. 4 with step tau (a number of layers L)")
    p.add_argument("--tau", default=None, help="layer step of eq. 4, a positive rational (default 1 with --model layers)")
    p.add_argument("--entry-budget", type=int, default=64,
                   help=f"layers evaluated in balls to find a late hemisphere entry (3.2 layers; at most {MAX_ENTRY_BUDGET})")
    p.add_argument("--no-simulate", action="store_true", help="skip the simulation (observed = null)")
    p.add_argument("--save", metavar="DIR", help="write the report and the depth certificate (verify recheck)")
    add_force_option(p)
    add_format_option(p)
    p.set_defaults(run=run)


def _rational(text: str, option: str, low_open: Fraction, high_open: Fraction | None) -> Fraction:
    try:
        q = Fraction(str(text).strip())
    except (ValueError, ZeroDivisionError):
        raise InvalidInput(option, "a rational such as 1/100 or 0.01", text) from None
    if not (q > low_open and (high_open is None or q < high_open)):
        raise InvalidInput(option, f"a rational in ({low_open}, {high_open if high_open is not None else 'oo'})", text)
    if max(abs(q.numerator), q.denominator) > 10 ** 60:
        raise InvalidInput(option, "a rational with at most 60 digits", text)
    return q


def _text(payload: dict, tau_defaulted: bool) -> str:
    kind = payload["bound_kind"]
    lines = [f"depth {payload['theorem']} ({'eq. 5, ODE' if payload['model'] == 'ode' else 'eq. 4, layer map'}), "
             f"metric {payload['metric']} <= eps = {payload['eps']}"]
    if payload["model"] == "layers":
        lines.append(f"  tau = {payload['tau']}" + (" (default; set with --tau)" if tau_defaulted else ""))
    lines.append("hypotheses:")
    for v in payload["hypotheses"]:
        lines.append(f"  [{v['verdict']:<7}] {v['name']}: {v['reason']}")
    if payload["steps"]:
        lines.append("rests on:")
    for v in payload["steps"]:
        lines.append(f"  [{v['verdict']:<7}] {v['name']}: {v['reason']}")
    if payload["bound"] is not None:
        b = Fraction(payload["bound"])
        lines.append(f"certified {kind}: {payload['bound']}" + ("" if b.denominator == 1 else f" (~{float(b):.6g})"))
        lines.append(f"certified rate: {payload['rate']} (~{float(Fraction(payload['rate'])):.6g}) per "
                     f"{'unit time' if payload['model'] == 'ode' else 'layer'}")
        lines.append(f"claim: {payload['claim']}")
    t2 = payload.get("token2")
    if t2:
        lines.append(f"token 2 alone (any a(0) > -1): T_2(eps) = {t2['bound']} (~{float(Fraction(t2['bound'])):.6g})")
    ev = payload.get("evidence")
    if ev:
        obs = payload["observed"]
        lines.append(f"simulated (evidence, not a proof; {ev['method']}): observed = {obs if obs is not None else 'not reached'}"
                     + (f", tightness = bound / observed = {payload['tightness']:.4g}" if payload["tightness"] else ""))
    lines.append(f"verdict: {payload['verdict']} - {payload['explanation']}")
    return "\n".join(lines)


def run(args) -> int:
    from verify.depth import certify_depth
    from verify.depth.defaults import default_instance
    from theorems.system_json import load_system

    if args.theorem not in ("3.2", "4.2"):
        raise InvalidInput("ID", "3.2 or 4.2", args.theorem, "verify depth certifies Theorem 3.2 and Theorem 4.2")
    eps = _rational(args.eps, "--eps", Fraction(0), Fraction(1))
    tau = None if args.tau is None else _rational(args.tau, "--tau", Fraction(0), Fraction(10 ** 6))
    if args.tau is not None and args.model != "layers":
        raise InvalidInput("--tau", "only with --model layers", args.tau)
    if not 0 <= args.entry_budget <= MAX_ENTRY_BUDGET:
        raise InvalidInput("--entry-budget", f"an integer between 0 and {MAX_ENTRY_BUDGET}", args.entry_budget)
    safe = f"{args.theorem.replace('.', '_')}__depth_{args.model}"
    save = Path(args.save) if args.save else None
    if save is not None:
        check_dir("--save", save)
        check_targets([Target("--save", save / f"{safe}.json"), Target("--save", save / f"{safe}__report.json")],
                      args.force)
    system = load_system(args.instance) if args.instance else default_instance(args.theorem)
    report = certify_depth(args.theorem, system, eps, args.model, tau, simulate=not args.no_simulate,
                           entry_budget=args.entry_budget)
    payload = report.to_json()
    payload["instance"] = {"name": system.name, "N": system.N, "d": system.d, "H": system.H, "mask": system.mask,
                           "beta": str(system.beta)}
    if args.model == "layers":
        payload["tau_default"] = tau is None
    if save is not None:
        files = [(Target("--save", save / f"{safe}__report.json"), json.dumps(payload, indent=1))]
        if report.certificate is not None:
            files.insert(0, (Target("--save", save / f"{safe}.json"), json.dumps(report.certificate.to_json(), indent=1)))
        write_all(files, args.force)
        sys.stderr.write(f"saved the report{' and the depth certificate' if report.certificate else ''} to {save}\n")
    emit(_text(payload, tau is None), payload, args.format)
    return report.status.exit_code
