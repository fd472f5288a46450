"""``verify lyapunov --field "f1, f2" --vars x,y``: find and exactly certify a polynomial Lyapunov
function (:func:`verify.api.lyapunov.lyapunov`).

Exit codes: 0 certified, 2 bad input, 3 refuted (the origin is not an equilibrium), 4 inconclusive.
"""
from __future__ import annotations

from .common import add_force_option, add_format_option, emit

DESCRIPTION = ('verify lyapunov --field "f1, f2" --vars x,y: find a polynomial Lyapunov function V for dx/dt = f(x) '
               "and certify V >= eps*|x|^2 and dV/dt <= -decay*|x|^2 with exact SOS certificates.")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("lyapunov", help="find a polynomial Lyapunov function with an exact certificate",
                                   description=DESCRIPTION)
    parser.add_argument("--field", required=True, help="components of dx/dt, e.g. 'y, -x - y'")
    parser.add_argument("--vars", required=True, help="state variables in order, e.g. x,y")
    parser.add_argument("--degree", type=int, default=2, help="degree of V (even, default 2)")
    parser.add_argument("--eps", default="1/100", help="V >= eps*|x|^2 (exact rational, default 1/100)")
    parser.add_argument("--decay", default="0", help="dV/dt <= -decay*|x|^2 (exact rational, default 0)")
    parser.add_argument("--solver", choices=("clarabel", "scs"), default="clarabel", help="SDP solver (default clarabel)")
    parser.add_argument("--save", default=None, metavar="FILE", help="write the exact certificate (JSON) to FILE")
    add_force_option(parser)
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from verify.api._options import flag
    from verify.api.lyapunov import run as lyapunov

    report = lyapunov(args.field, vars=args.vars, degree=args.degree, eps=args.eps, decay=args.decay,
                      solver=args.solver, save=args.save, force=args.force, name=flag)
    emit(report.text, report.to_json(), args.format)
    return report.exit_code
