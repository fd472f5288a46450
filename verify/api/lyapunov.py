"""``verify lyapunov --field "f1, f2" --vars x,y``: find and exactly certify a polynomial Lyapunov function.

Search ``V`` of degree ``degree`` (even) with exact certificates of ``V >= eps |x|^2`` and ``dV/dt <= -decay
|x|^2`` along ``dx/dt = field(x)`` (:func:`verify._sos.lyapunov.find_lyapunov`, imported on call); ``field``
is one string ``"y, -x - y"`` or a list of strings, one per variable of ``vars``.  ``record`` is the
:class:`~verify._sos.result.LyapunovResult`.  Exit codes carried by the verdict: 0 certified, 3 refuted
(the origin is not an equilibrium), 4 inconclusive.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from verify.report import Report

from verify.outputs import file_target

from ._table import FORCE, REQUIRED, Command, Option, OptionError, api
from .sos import MAX_DEGREE, SAVE, SOLVER, save_certificate

COMMAND = Command(
    "lyapunov", "lyapunov", "find a polynomial Lyapunov function with an exact certificate",
    'verify lyapunov --field "f1, f2" --vars x,y: find a polynomial Lyapunov function V for dx/dt = f(x) and certify '
    "V >= eps*|x|^2 and dV/dt <= -decay*|x|^2 with exact SOS certificates.",
    None,
    (Option("field", default=REQUIRED, positional=True, flag="--field", help="components of dx/dt, e.g. 'y, -x - y'"),
     Option("vars", default=REQUIRED, help="state variables in order, e.g. x,y"),
     Option("degree", "int", 2, low=2, high=MAX_DEGREE, help="degree of V (even, default 2)"),
     Option("eps", "rational", "1/100", low=0, decimals=False, help="V >= eps*|x|^2 (exact rational, default 1/100)"),
     Option("decay", "rational", "0", low=0, closed=True, decimals=False, help="dV/dt <= -decay*|x|^2 (exact rational, default 0)"),
     SOLVER, SAVE, FORCE))


def _lyapunov(field: str | Sequence[str], vars: str | Sequence[str], degree: int, eps: Fraction, decay: Fraction,
              solver: str, save: str | None, force: bool) -> Report:
    from verify._sos.lyapunov import find_lyapunov
    from verify._sos.parse import parse_polynomial, symbols_from_names
    from verify._sos.render import render_lyapunov

    targets = file_target("save", save, force)
    symbols = symbols_from_names(vars, "vars")
    if isinstance(field, str) or (isinstance(field, (list, tuple)) and all(isinstance(p, str) for p in field)):
        parts = [p.strip() for p in (field.split(",") if isinstance(field, str) else field)]
    else:
        raise OptionError("field", "the components of dx/dt as one string 'y, -x - y' or a list of strings", field)
    if len(parts) != len(symbols) or not all(parts):
        raise OptionError("field", f"{len(symbols)} comma-separated components (one per variable in {{vars}})", field)
    components = [parse_polynomial(p, symbols, f"field component {k + 1}") for k, p in enumerate(parts)]
    result = find_lyapunov(components, symbols, degree=degree, eps=eps, decay=decay, solver=solver.upper())
    files, saved = save_certificate(targets, result.certificate, force, save)
    return Report("lyapunov", result.to_json(), render_lyapunov(result, saved), exit_code=int(result.status.exit_code),
                  files=files, record=result)


lyapunov = api(COMMAND, _lyapunov, __name__)
