"""``verify depth ID``: a certified time T(eps) (eq. 5) or number of layers L(eps) (eq. 4)
(:func:`verify.api.depth.depth`).

Exit codes: 0 certified, 3 a hypothesis fails, 4 no bound could be certified, 2 bad input.
"""
from __future__ import annotations

import sys
from pathlib import Path

from verify.api.depth import MAX_ENTRY_BUDGET  # the module imports NumPy and SymPy only when called

from .common import add_force_option, add_format_option, emit

DESCRIPTION = ("verify depth ID: a certified time T(eps) (eq. 5) or number of layers L(eps) (eq. 4) after which "
               "every token is within eps of consensus, with the certified rate, the hypotheses and certificates "
               "it rests on, and the simulated value beside it (evidence, not a proof).")


def add_parser(sub) -> None:
    p = sub.add_parser("depth", help="certified time / number of layers until every token is within eps of consensus",
                       description=DESCRIPTION)
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
    p.add_argument("--no-window", action="store_true", help="skip the validated enclosure: no [T_low, T_high] window "
                   "and no late entry by enclosure (closed form only)")
    p.add_argument("--save", metavar="DIR", help="write the report and the depth certificate (verify recheck)")
    add_force_option(p)
    add_format_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from verify.api._options import flag
    from verify.api.depth import run as depth

    report = depth(args.theorem, model=args.model, tau=args.tau, eps=args.eps, instance=args.instance,
                   entry_budget=args.entry_budget, simulate=not args.no_simulate, window=not args.no_window,
                   save=args.save, force=args.force,
                   name=flag)
    if args.save:
        certificate = " and the depth certificate" if report.record.certificate is not None else ""
        sys.stderr.write(f"saved the report{certificate} to {Path(args.save)}\n")
    emit(report.text, report.to_json(), args.format)
    return report.exit_code
