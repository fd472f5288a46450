"""``verify sos "POLY" --on CONSTRAINTS``: prove a polynomial nonnegative with an exact SOS certificate.

A report over :func:`verify.sos.prove.prove_nonnegative` (imported on call, so that nothing else
loads the solver).  Exit codes carried by the verdict: 0 certified, 3 refuted (a rational point
of the set where the polynomial is negative), 4 inconclusive.  The float SDP solution is only a
hint: "holds" means an exact rational certificate passed its re-check.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Sequence

from theorems.errors import InvalidInput
from verify.outputs import Target, check_targets, write_all
from verify.report import Report

MAX_DEGREE = 200
"""Largest ``degree`` accepted before parsing (the search also bounds every Gram block)."""
MAX_CONSTRAINTS = 64
MAX_PRODUCT_CONSTRAINTS = 10
"""``products`` forms up to 2^m products of the m constraints: refused above this many."""
SOLVERS = ("clarabel", "scs")


def sos(polynomial: str, *, on: str | Sequence[str] = (), vars: str | Sequence[str] | None = None,
        degree: int | None = None, products: bool | int = False, solver: str = "clarabel", refute: bool = True,
        save: str | Path | None = None, force: bool = False) -> Report:
    """Prove ``polynomial >= 0`` on ``{g >= 0, h == 0 for the constraints in on}``.

    ``polynomial``: text such as ``"2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4"`` (rational coefficients).
    ``on``: constraints, one string ``"x >= 0, 1 - x^2 - y^2 >= 0, x*y == 1"`` or a list of them.
    ``vars``: the variables in order (``"x,y"`` or a list; default: the names used, sorted).
    ``degree``: relaxation degree (default: the largest input degree, even).  ``products``: add
    products of the inequality constraints (``True`` all, an integer K >= 2 at most K factors).
    ``solver``: ``"clarabel"`` or ``"scs"``.  ``refute``: first look for a rational counterexample.
    ``save``: a file receiving the exact certificate (checked before any work; replaced only with
    ``force``).  ``record`` is the :class:`~verify.sos.result.SOSResult`.
    """
    from verify.sos.parse import parse_constraints, parse_polynomial
    from verify.sos.prove import prove_nonnegative

    check_degree(degree)
    solver = check_solver(solver)
    save = save or None
    targets = save_targets(save, force)
    if not isinstance(polynomial, str):
        raise InvalidInput("POLY", "a polynomial as text, such as 'x^2 - 2*x*y + 3'", polynomial)
    constraints = constraint_text(on)
    symbols = resolve_variables(vars, [polynomial, constraints])
    p = parse_polynomial(polynomial, symbols, "POLY")
    ineqs, eqs = parse_constraints(constraints, symbols, "--on")
    count = len(ineqs) + len(eqs)
    if count > MAX_CONSTRAINTS:
        raise InvalidInput("--on", f"at most {MAX_CONSTRAINTS} constraints", f"{count} constraints")
    products = check_products(products)
    if products and len(ineqs) > MAX_PRODUCT_CONSTRAINTS:
        raise InvalidInput("--products", f"at most {MAX_PRODUCT_CONSTRAINTS} inequality constraints (it forms "
                           "products of every subset)", f"{len(ineqs)} inequalities")
    result = prove_nonnegative(p, symbols, ineqs, eqs, degree=degree, products=products, solver=solver.upper(),
                               refute=bool(refute))
    files, saved = save_certificate(targets, result.certificate, force, str(save))
    payload = result.to_json() | ({"saved": str(save)} if files else {})
    return Report("sos", payload, sos_text(result, saved), exit_code=int(result.status.exit_code), files=files,
                  record=result)


def sos_text(result, saved: str = "") -> str:
    """The console rendering of an :class:`~verify.sos.result.SOSResult` (and the save line)."""
    s = result.stats
    lines = [f"sos: {result.status.value.upper()}", f"claim: {result.verdict.witness.get('claim', '')}",
             f"reason: {result.verdict.reason}"]
    if result.certificate is not None or s.float_status:
        lines.append(f"times: float solve {s.float_solve_s:.3f} s, margin solve {s.margin_solve_s:.3f} s, "
                     f"exact rounding+check {s.rounding_s:.3f} s; Gram blocks {list(s.gram_blocks)}")
    if saved:
        lines.append(saved)
    return "\n".join(lines)


def constraint_text(on: str | Sequence[str] | None) -> str:
    """``on`` as the one comma-separated string the constraint parser reads."""
    if on is None or isinstance(on, str):
        return on or ""
    parts = list(on) if isinstance(on, (list, tuple)) else None
    if parts is None or not all(isinstance(c, str) for c in parts):
        raise InvalidInput("--on", "constraints as one string 'x >= 0, y <= 1' or a list of such strings", on)
    return ", ".join(parts)


def resolve_variables(vars_arg, texts, field="--vars"):
    """Symbols from ``vars_arg``, or every identifier used in ``texts`` sorted by name."""
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


def check_products(value: Any) -> bool | int:
    """``False`` (none), ``True`` (all products) or K >= 2 (products of at most K constraints)."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, int) or value < 2:
        raise InvalidInput("--products", "an integer >= 2 (most factors in a product)", value)
    return value


def check_degree(degree: Any, low: int = 0) -> None:
    if degree is None:
        return
    if isinstance(degree, bool) or not isinstance(degree, int) or not low <= degree <= MAX_DEGREE:
        raise InvalidInput("--degree", f"an integer between {low} and {MAX_DEGREE}", degree)


def check_solver(solver: Any) -> str:
    name = solver.lower() if isinstance(solver, str) else solver
    if name not in SOLVERS:
        raise InvalidInput("--solver", f"one of {', '.join(SOLVERS)}", solver)
    return name


def save_targets(save: str | Path | None, force: bool) -> list[Target]:
    """The certificate file, checked before any work (see :mod:`verify.outputs`)."""
    targets = [Target("--save", Path(save))] if save is not None else []
    check_targets(targets, force)
    return targets


def save_certificate(targets: list[Target], certificate, force: bool, shown: str) -> tuple[tuple[str, ...], str]:
    """Write the certificate when there is one: ``(files written, the report's save line)``; ``shown``
    is the path as the caller spelled it."""
    if not targets:
        return (), ""
    if certificate is None:
        return (), f"no certificate to save ({shown} not written)"
    written = write_all([(targets[0], json.dumps(certificate.to_json(), indent=1) + "\n")], force)
    return tuple(str(p) for p in written), f"certificate saved to {shown} (re-check with: verify recheck {shown})"
