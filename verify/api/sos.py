"""``verify sos "POLY" --on CONSTRAINTS``: prove a polynomial nonnegative with an exact SOS certificate.

A report over :func:`verify._sos.prove.prove_nonnegative` (imported on call, so that nothing else
loads the solver).  Exit codes carried by the verdict: 0 certified, 3 refuted (a rational point
of the set where the polynomial is negative), 4 inconclusive.  The float SDP solution is only a
hint: "holds" means an exact rational certificate passed its re-check.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Sequence

from theorems.errors import InvalidInput
from verify.outputs import Target, check_targets, write_all
from verify.report import Report

from ._options import check_bool, check_path, int_range, is_int, keyword

MAX_DEGREE = 200
"""Largest ``degree`` accepted before parsing (the search also bounds every Gram block)."""
MAX_CONSTRAINTS = 64
MAX_PRODUCT_CONSTRAINTS = 10
"""``products`` forms up to 2^m products of the m constraints: refused above this many (and a
product of K factors needs K inequalities, so ``products=K`` is at most this too)."""
SOLVERS = ("clarabel", "scs")


def sos(polynomial: str, *, on: str | Sequence[str] = (), vars: str | Sequence[str] | None = None,
        degree: int | None = None, products: bool | int = False, solver: str = "clarabel", refute: bool = True,
        save: str | Path | None = None, force: bool = False) -> Report:
    """Prove ``polynomial >= 0`` on ``{g >= 0, h == 0 for the constraints in on}``.

    ``polynomial``: text such as ``"2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4"`` (rational coefficients).
    ``on``: constraints, one string ``"x >= 0, 1 - x^2 - y^2 >= 0, x*y == 1"`` or a list of them.
    ``vars``: the variables in order (``"x,y"`` or a list; default: the names used, sorted).
    ``degree``: relaxation degree (default: the largest input degree, even).  ``products``: add
    products of the inequality constraints (``True`` all, an integer K between 2 and
    :data:`MAX_PRODUCT_CONSTRAINTS` at most K factors).
    ``solver``: ``"clarabel"`` or ``"scs"``.  ``refute``: first look for a rational counterexample.
    ``save``: a file receiving the exact certificate (checked before any work; replaced only with
    ``force``).  ``record`` is the :class:`~verify._sos.result.SOSResult`.
    """
    return run(polynomial, on=on, vars=vars, degree=degree, products=products, solver=solver, refute=refute,
               save=save, force=force)


def run(polynomial: str, *, on: str | Sequence[str] = (), vars: str | Sequence[str] | None = None,
        degree: int | None = None, products: bool | int = False, solver: str = "clarabel", refute: bool = True,
        save: str | Path | None = None, force: bool = False, name: Callable[[str], str] = keyword) -> Report:
    """:func:`sos`, its errors naming the options with ``name`` (the CLI passes ``flag``)."""
    from verify._sos.parse import parse_constraints, parse_polynomial
    from verify._sos.prove import prove_nonnegative

    degree = check_degree(degree, name=name)
    solver = check_solver(solver, name)
    refute, force = check_bool(name("refute"), refute), check_bool(name("force"), force)
    products = check_products(products, name)
    shown = save_shown(save, name)
    targets = save_targets(check_path(name("save"), save), force, name)
    if not isinstance(polynomial, str):
        raise InvalidInput(name("polynomial"), "a polynomial as text, such as 'x^2 - 2*x*y + 3'", polynomial)
    constraints = constraint_text(on, name)
    symbols = resolve_variables(vars, [polynomial, constraints], name)
    p = parse_polynomial(polynomial, symbols, name("polynomial"))
    ineqs, eqs = parse_constraints(constraints, symbols, name("on"))
    count = len(ineqs) + len(eqs)
    if count > MAX_CONSTRAINTS:
        raise InvalidInput(name("on"), f"at most {MAX_CONSTRAINTS} constraints", f"{count} constraints")
    if products and len(ineqs) > MAX_PRODUCT_CONSTRAINTS:
        raise InvalidInput(name("products"), f"at most {MAX_PRODUCT_CONSTRAINTS} inequality constraints (it forms "
                           "products of every subset)", f"{len(ineqs)} inequalities")
    result = prove_nonnegative(p, symbols, ineqs, eqs, degree=degree, products=products, solver=solver.upper(),
                               refute=refute)
    files, saved = save_certificate(targets, result.certificate, force, shown)
    payload = result.to_json() | ({"saved": shown} if files else {})
    return Report("sos", payload, sos_text(result, saved), exit_code=int(result.status.exit_code), files=files,
                  record=result)


def sos_text(result, saved: str = "") -> str:
    """The console rendering of an :class:`~verify._sos.result.SOSResult` (and the save line)."""
    s = result.stats
    lines = [f"sos: {result.status.value.upper()}", f"claim: {result.verdict.witness.get('claim', '')}",
             f"reason: {result.verdict.reason}"]
    if result.certificate is not None or s.float_status:
        lines.append(f"times: float solve {s.float_solve_s:.3f} s, margin solve {s.margin_solve_s:.3f} s, "
                     f"exact rounding+check {s.rounding_s:.3f} s; Gram blocks {list(s.gram_blocks)}")
    if saved:
        lines.append(saved)
    return "\n".join(lines)


def constraint_text(on: str | Sequence[str] | None, name: Callable[[str], str] = keyword) -> str:
    """``on`` as the one comma-separated string the constraint parser reads."""
    if on is None or isinstance(on, str):
        return on or ""
    parts = list(on) if isinstance(on, (list, tuple)) else None
    if parts is None or not all(isinstance(c, str) for c in parts):
        raise InvalidInput(name("on"), "constraints as one string 'x >= 0, y <= 1' or a list of such strings", on)
    return ", ".join(parts)


def resolve_variables(vars_arg, texts, name: Callable[[str], str] = keyword):
    """Symbols from ``vars_arg``, or (``None``, ``""`` or an empty list) every identifier used in
    ``texts`` sorted by name."""
    from verify._sos.parse import parse_polynomial, symbols_from_names

    field = name("vars")
    if vars_arg is not None and not (isinstance(vars_arg, (str, list, tuple)) and not vars_arg):
        return symbols_from_names(vars_arg, field)
    names = set()
    for text in texts:
        for part in re.split(r"[<>=,]+", text):
            if part.strip():
                names |= {s.name for s in parse_polynomial(part, None, f"{name('polynomial')} or {name('on')}").free_symbols}
    if not names:
        raise InvalidInput(field, f"variable names (the polynomial uses none; pass {_example(name)} to name one)", "")
    return symbols_from_names(sorted(names), field)


def _example(name: Callable[[str], str]) -> str:
    """How to name one variable, as the caller spells options: ``--vars x`` or ``vars="x"``."""
    return "--vars x" if name("vars") == "--vars" else f'{name("vars")}="x"'


def check_products(value: Any, name: Callable[[str], str] = keyword) -> bool | int:
    """``False`` (none), ``True`` (all products) or K between 2 and :data:`MAX_PRODUCT_CONSTRAINTS`
    (products of at most K constraints)."""
    if isinstance(value, bool):
        return value
    if not is_int(value) or not 2 <= value <= MAX_PRODUCT_CONSTRAINTS:
        raise InvalidInput(name("products"), f"{int_range(2, MAX_PRODUCT_CONSTRAINTS)} (most factors in a product)",
                           value)
    return int(value)


def check_degree(degree: Any, low: int = 0, name: Callable[[str], str] = keyword) -> int | None:
    """``degree`` as an ``int`` in ``[low, MAX_DEGREE]`` (``None``: the default degree)."""
    if degree is None:
        return None
    if not is_int(degree) or not low <= degree <= MAX_DEGREE:
        raise InvalidInput(name("degree"), int_range(low, MAX_DEGREE), degree)
    return int(degree)


def check_solver(solver: Any, name: Callable[[str], str] = keyword) -> str:
    solver_name = solver.lower() if isinstance(solver, str) else solver
    if solver_name not in SOLVERS:
        raise InvalidInput(name("solver"), f"one of {', '.join(SOLVERS)}", solver)
    return solver_name


def save_shown(save: Any, name: Callable[[str], str] = keyword) -> str:
    """The certificate path as the caller spelled it (for the report's save line), checked."""
    return "" if check_path(name("save"), save) is None else os.fspath(save)


def save_targets(save: Path | None, force: bool, name: Callable[[str], str] = keyword) -> list[Target]:
    """The certificate file (from :func:`~verify.api._options.check_path`), checked before any work
    (see :mod:`verify.outputs`)."""
    targets = [Target(name("save"), save)] if save is not None else []
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
