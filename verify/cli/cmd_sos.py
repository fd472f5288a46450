"""``verify sos "POLY" [--on CONSTRAINTS]``: prove a polynomial nonnegative with an exact SOS
certificate (:func:`verify.api.sos.sos`).

Exit codes: 0 certified, 2 bad input, 3 refuted (a rational point of the set where the polynomial
is negative), 4 inconclusive.
"""
from __future__ import annotations

from .common import add_force_option, add_format_option, emit

DESCRIPTION = ('verify sos "POLY" [--on CONSTRAINTS]: prove a polynomial nonnegative (on a semialgebraic set) '
               "with an exact SOS certificate. The SDP solver only proposes; the certificate is rounded to "
               "rationals and re-checked exactly, and a failed rounding is 'unknown', never 'holds'.")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("sos", help="prove p >= 0 (on a semialgebraic set) with an exact SOS certificate",
                                   description=DESCRIPTION)
    parser.add_argument("polynomial", help="the polynomial, e.g. '2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4'")
    parser.add_argument("--on", default="", help="constraints, e.g. 'x >= 0, 1 - x^2 - y^2 >= 0, x*y == 1'")
    parser.add_argument("--vars", default=None, help="variables in order, e.g. x,y (default: the names used, sorted)")
    parser.add_argument("--degree", type=int, default=None, help="relaxation degree (default: the largest input degree, even)")
    parser.add_argument("--products", nargs="?", type=int, const=-1, default=0, metavar="K",
                        help="add products of constraints (Schmuedgen-type); K = most factors (default all)")
    parser.add_argument("--solver", choices=("clarabel", "scs"), default="clarabel", help="SDP solver (default clarabel)")
    parser.add_argument("--no-refute", action="store_true", help="skip the search for a rational counterexample")
    parser.add_argument("--save", default=None, metavar="FILE", help="write the exact certificate (JSON) to FILE")
    add_force_option(parser)
    add_format_option(parser)
    parser.set_defaults(run=run)


def products_option(value: int) -> bool | int:
    """``--products``: absent (0) none, bare (-1) all, K at most K factors (the API checks K >= 2)."""
    return {0: False, -1: True}.get(value, value)


def run(args) -> int:
    from verify.api._options import flag
    from verify.api.sos import run as sos

    report = sos(args.polynomial, on=args.on, vars=args.vars, degree=args.degree,
                 products=products_option(args.products), solver=args.solver, refute=not args.no_refute,
                 save=args.save, force=args.force, name=flag)
    emit(report.text, report.to_json(), args.format)
    return report.exit_code
