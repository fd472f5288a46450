"""``verify sos "POLY" [--on CONSTRAINTS]``: prove a polynomial nonnegative with an exact SOS certificate.

A thin renderer over :func:`verify.sos.prove_nonnegative` (imported when the command runs, so
other commands never load the solver).  Exit codes: 0 certified, 2 bad input, 3 refuted (a
rational point of the set where the polynomial is negative), 4 inconclusive.
"""
from __future__ import annotations

import json
import re

from pathlib import Path

from theorems.errors import InvalidInput

from .common import add_force_option, add_format_option, emit
from verify.outputs import Target, check_targets, write_all

MAX_DEGREE = 200
"""Largest ``--degree`` accepted before parsing (the search also bounds every Gram block)."""
MAX_CONSTRAINTS = 64
MAX_PRODUCT_CONSTRAINTS = 10
"""``--products`` forms up to 2^m products of the m constraints: refused above this many."""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("sos", help="prove p >= 0 (on a semialgebraic set) with an exact SOS certificate",
                                   description=__doc__.split("\n\n")[0])
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


def resolve_variables(vars_arg, texts, field="--vars"):
    """Symbols from ``--vars``, or every identifier used in ``texts`` sorted by name."""
    from verify.sos.parse import parse_polynomial, symbols_from_names

    if vars_arg:
        return symbols_from_names(vars_arg, field)
    names = set()
    for text in texts:
        for part in re.split(r"[<>=,]+", text):
            if part.strip():
                names |= {s.name for s in parse_polynomial(part, None, "POLY or --on").free_symbols}
    if not names:
        raise InvalidInput(field, "variable names (the polynomial uses none; pass --vars x to name one)", "")
    return symbols_from_names(sorted(names), field)


def products_option(value: int):
    if value == 0:
        return False
    if value == -1:
        return True
    if value < 2:
        raise InvalidInput("--products", "an integer >= 2 (most factors in a product)", value)
    return value


def check_degree(degree: int | None, low: int = 0) -> None:
    if degree is not None and not low <= degree <= MAX_DEGREE:
        raise InvalidInput("--degree", f"an integer between {low} and {MAX_DEGREE}", degree)


def save_target(args) -> list[Target]:
    """The ``--save`` file, checked before any work (see :mod:`verify.outputs`)."""
    targets = [Target("--save", Path(args.save))] if args.save else []
    check_targets(targets, args.force)
    return targets


def save_certificate(targets: list[Target], certificate, args) -> str:
    if targets and certificate is not None:
        write_all([(targets[0], json.dumps(certificate.to_json(), indent=1) + "\n")], args.force)
        return f"certificate saved to {args.save} (re-check with: verify recheck {args.save})"
    return f"no certificate to save ({args.save} not written)" if targets else ""


def run(args) -> int:
    from verify.sos.parse import parse_constraints, parse_polynomial
    from verify.sos.prove import prove_nonnegative

    check_degree(args.degree)
    targets = save_target(args)
    symbols = resolve_variables(args.vars, [args.polynomial, args.on or ""])
    p = parse_polynomial(args.polynomial, symbols, "POLY")
    ineqs, eqs = parse_constraints(args.on, symbols, "--on")
    count = len(ineqs) + len(eqs)
    if count > MAX_CONSTRAINTS:
        raise InvalidInput("--on", f"at most {MAX_CONSTRAINTS} constraints", f"{count} constraints")
    if args.products and len(ineqs) > MAX_PRODUCT_CONSTRAINTS:
        raise InvalidInput("--products", f"at most {MAX_PRODUCT_CONSTRAINTS} inequality constraints (it forms "
                           "products of every subset)", f"{len(ineqs)} inequalities")
    result = prove_nonnegative(p, symbols, ineqs, eqs, degree=args.degree, products=products_option(args.products),
                               solver=args.solver.upper(), refute=not args.no_refute)
    saved = save_certificate(targets, result.certificate, args)
    payload = result.to_json() | ({"saved": args.save} if args.save and result.certificate else {})
    emit(render(result, saved), payload, args.format)
    return result.status.exit_code


def render(result, saved: str = "") -> str:
    s = result.stats
    lines = [f"sos: {result.status.value.upper()}", f"claim: {result.verdict.witness.get('claim', '')}",
             f"reason: {result.verdict.reason}"]
    if result.certificate is not None or s.float_status:
        lines.append(f"times: float solve {s.float_solve_s:.3f} s, margin solve {s.margin_solve_s:.3f} s, "
                     f"exact rounding+check {s.rounding_s:.3f} s; Gram blocks {list(s.gram_blocks)}")
    if saved:
        lines.append(saved)
    return "\n".join(lines)
