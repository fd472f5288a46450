"""``verify theorem ID``: hypotheses, exact certificates, symbolic steps, cited steps and
numerical evidence, composed into one verdict (:func:`verify.api.theorem.theorem`).

Exit codes: 0 the result holds on the instance (relative to the cited steps it lists), 3 a
hypothesis fails (the result does not apply; nothing claims its conclusion), 4 inconclusive,
2 bad input.
"""
from __future__ import annotations

import sys
from pathlib import Path

from .common import add_force_option, add_format_option, emit
from verify.limits import MAX_T_END


def add_parser(sub) -> None:
    p = sub.add_parser("theorem", help="prove a result of the paper on an instance with exact certificates",
                       description="Prove a result of the paper on an instance: hypotheses, exact certificates, "
                                   "symbolic and cited steps, and numerical evidence (never part of the proof).")
    p.add_argument("theorem", metavar="ID", help="result id, e.g. 4.2, 3.2, 4.4-sym (see 'verify list')")
    p.add_argument("--instance", metavar="FILE", help="attention-system JSON file (default: the result's example)")
    p.add_argument("--save", metavar="DIR", help="write the report and every certificate (re-check with 'verify recheck')")
    p.add_argument("--no-simulate", action="store_true", help="skip the numerical evidence")
    p.add_argument("--t-end", type=float, default=20.0,
                   help=f"simulation horizon for the numerical evidence (default 20, at most {MAX_T_END:g})")
    p.add_argument("--certified-rate", action="store_true",
                   help="3.2 / 4.2: add the certified ODE time T(1/100) and rate of 'verify depth' (docs/depth.md)")
    add_force_option(p)
    add_format_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from verify.api._options import flag
    from verify.api.theorem import run as theorem

    report = theorem(args.theorem, args.instance, simulate=not args.no_simulate, t_end=args.t_end,
                     certified_rate=args.certified_rate, save=args.save, force=args.force, name=flag)
    if args.save:
        sys.stderr.write(f"saved the report and {len(report.files) - 1} certificate(s) to {Path(args.save)}\n")
    emit(report.text, report.to_json(), args.format)
    return report.exit_code
