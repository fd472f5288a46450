"""``verify lyapunov --field "f1, f2" --vars x,y``: find and exactly certify a polynomial Lyapunov function.

A thin renderer over :func:`verify.sos.find_lyapunov` (imported when the command runs).  Exit
codes: 0 certified, 2 bad input, 3 refuted (the origin is not an equilibrium), 4 inconclusive.
"""
from __future__ import annotations

from .cmd_sos import check_degree, save_certificate, save_target
from .common import add_force_option, add_format_option, emit


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("lyapunov", help="find a polynomial Lyapunov function with an exact certificate",
                                   description=__doc__.split("\n\n")[0])
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
    from verify.sos.lyapunov import find_lyapunov
    from verify.sos.parse import parse_polynomial, symbols_from_names

    check_degree(args.degree, low=2)
    targets = save_target(args)
    symbols = symbols_from_names(args.vars, "--vars")
    parts = [p.strip() for p in args.field.split(",")]
    if len(parts) != len(symbols) or not all(parts):
        from theorems.errors import InvalidInput

        raise InvalidInput("--field", f"{len(symbols)} comma-separated components (one per variable in --vars)", args.field)
    field = [parse_polynomial(p, symbols, f"--field component {k + 1}") for k, p in enumerate(parts)]
    result = find_lyapunov(field, symbols, degree=args.degree, eps=args.eps, decay=args.decay,
                           solver=args.solver.upper())
    saved = save_certificate(targets, result.certificate, args)
    s = result.stats
    lines = [f"lyapunov: {result.status.value.upper()}", f"reason: {result.verdict.reason}"]
    if s.float_status or s.margin_status:  # the plain solve is skipped after a positive margin
        lines.append(f"times: float solve {s.float_solve_s:.3f} s, margin solve {s.margin_solve_s:.3f} s, "
                     f"exact rounding+check {s.rounding_s:.3f} s")
    if saved:
        lines.append(saved)
    emit("\n".join(lines), result.to_json(), args.format)
    return result.status.exit_code
