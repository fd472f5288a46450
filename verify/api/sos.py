"""``verify sos "POLY" --on CONSTRAINTS``: prove a polynomial nonnegative with an exact SOS certificate.

Prove ``polynomial >= 0`` on ``{g >= 0, h == 0 for the constraints in on}`` (rational coefficients) with
:func:`verify._sos.prove.prove_nonnegative` (imported on call: nothing else loads the solver).  ``on`` and
``vars`` take one comma-separated string or a list of strings; ``products`` is ``True`` (all products of
the inequality constraints) or K, the most factors in a product.  ``record`` is the
:class:`~verify._sos.result.SOSResult`.  Exit codes carried by the verdict: 0 certified, 3 refuted (a
rational point of the set where the polynomial is negative), 4 inconclusive.  The float SDP solution is
only a hint: "holds" means an exact rational certificate passed its re-check.
"""
from __future__ import annotations

import json
import re
from typing import Any, Sequence

from verify.outputs import Target, file_target, write_all
from verify.report import Report

from ._table import FORCE, REQUIRED, Command, Option, OptionError, api, int_range, is_int

MAX_DEGREE = 200
"""Largest ``degree`` accepted before parsing (the search also bounds every Gram block)."""
MAX_CONSTRAINTS = 64
MAX_PRODUCT_CONSTRAINTS = 10
"""``products`` forms up to 2^m products of the m constraints: refused above this many (and a
product of K factors needs K inequalities, so ``products=K`` is at most this too)."""
SOLVER = Option("solver", "choice", "clarabel", choices=("clarabel", "scs"), help="SDP solver (default clarabel)")
SAVE = Option("save", "path", metavar="FILE", help="write the exact certificate (JSON) to FILE")
"""Options ``verify lyapunov`` shares."""
COMMAND = Command(
    "sos", "sos", "prove p >= 0 (on a semialgebraic set) with an exact SOS certificate",
    'verify sos "POLY" [--on CONSTRAINTS]: prove a polynomial nonnegative (on a semialgebraic set) with an exact SOS '
    "certificate. The SDP solver only proposes; the certificate is rounded to rationals and re-checked exactly, and "
    "a failed rounding is 'unknown', never 'holds'.",
    None,
    (Option("polynomial", "text", REQUIRED, flag="POLY", positional=True,
            expected="a polynomial as text, such as 'x^2 - 2*x*y + 3'",
            help="the polynomial, e.g. '2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4'"),
     Option("on", default=(), help="constraints, e.g. 'x >= 0, 1 - x^2 - y^2 >= 0, x*y == 1'", cli={"default": ""}),
     Option("vars", help="variables in order, e.g. x,y (default: the names used, sorted)"),
     Option("degree", "int", low=0, high=MAX_DEGREE, help="relaxation degree (default: the largest input degree, even)"),
     Option("products", default=False, metavar="K", cli={"nargs": "?", "type": int, "const": True},
            help="add products of constraints (Schmuedgen-type); K = most factors (default all)"),
     SOLVER, Option("refute", "bool", True, help="skip the search for a rational counterexample"), SAVE, FORCE))


def _sos(polynomial: str, on: str | Sequence[str], vars: Any, degree: int | None, products: bool | int, solver: str,
         refute: bool, save: str | None, force: bool) -> Report:
    from verify._sos.parse import parse_constraints, parse_polynomial
    from verify._sos.prove import prove_nonnegative
    from verify._sos.render import render_sos

    if not isinstance(products, bool) and not (is_int(products) and 2 <= products <= MAX_PRODUCT_CONSTRAINTS):
        raise OptionError("products", f"{int_range(2, MAX_PRODUCT_CONSTRAINTS)} (most factors in a product)", products)
    targets = file_target("save", save, force)
    constraints = constraint_text(on)
    symbols = resolve_variables(vars, [polynomial, constraints])
    p = parse_polynomial(polynomial, symbols, "polynomial")
    ineqs, eqs = parse_constraints(constraints, symbols, "on")
    if len(ineqs) + len(eqs) > MAX_CONSTRAINTS:
        raise OptionError("on", f"at most {MAX_CONSTRAINTS} constraints", f"{len(ineqs) + len(eqs)} constraints")
    if products and len(ineqs) > MAX_PRODUCT_CONSTRAINTS:
        raise OptionError("products", f"at most {MAX_PRODUCT_CONSTRAINTS} inequality constraints (it forms products of "
                          "every subset)", f"{len(ineqs)} inequalities")
    result = prove_nonnegative(p, symbols, ineqs, eqs, degree=degree,
                               products=products if isinstance(products, bool) else int(products), solver=solver.upper(), refute=refute)
    files, saved = save_certificate(targets, result.certificate, force, save)
    return Report("sos", result.to_json() | ({"saved": save} if files else {}), render_sos(result, saved),
                  exit_code=int(result.status.exit_code), files=files, record=result)


def constraint_text(on: str | Sequence[str] | None) -> str:
    """``on`` as the one comma-separated string the constraint parser reads."""
    if on is None or isinstance(on, str):
        return on or ""
    parts = list(on) if isinstance(on, (list, tuple)) else None
    if parts is None or not all(isinstance(c, str) for c in parts):
        raise OptionError("on", "constraints as one string 'x >= 0, y <= 1' or a list of such strings", on)
    return ", ".join(parts)


def resolve_variables(vars_arg, texts):
    """Symbols from ``vars_arg``, or (``None``, ``""`` or an empty list) every identifier used in
    ``texts`` sorted by name."""
    from verify._sos.parse import parse_polynomial, symbols_from_names

    if vars_arg is not None and not (isinstance(vars_arg, (str, list, tuple)) and not vars_arg):
        return symbols_from_names(vars_arg, "vars")
    names = set()
    for text in texts:
        for part in re.split(r"[<>=,]+", text):
            if part.strip():
                names |= {s.name for s in parse_polynomial(part, None, "polynomial or on").free_symbols}
    if not names:
        raise OptionError("vars", "variable names (the polynomial uses none; name one with {vars})", "")
    return symbols_from_names(sorted(names), "vars")


def save_certificate(targets: list[Target], certificate, force: bool, shown: str | None) -> tuple[tuple[str, ...], str]:
    """Write the certificate when there is one: ``(files written, the report's save line)``; ``shown``
    is the path as the caller spelled it."""
    if not targets:
        return (), ""
    if certificate is None:
        return (), f"no certificate to save ({shown} not written)"
    written = write_all([(targets[0], json.dumps(certificate.to_json(), indent=1) + "\n")], force)
    return tuple(str(p) for p in written), f"certificate saved to {shown} (re-check with: verify recheck {shown})"


sos = api(COMMAND, _sos, __name__)
