"""``verify lyapunov --field "f1, f2" --vars x,y``: find and exactly certify a polynomial Lyapunov function.

A report over :func:`verify._sos.lyapunov.find_lyapunov` (imported on call).  Exit codes carried by
the verdict: 0 certified, 3 refuted (the origin is not an equilibrium), 4 inconclusive.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from theorems.errors import InvalidInput
from verify.report import Report

from ._options import check_bool, check_path, keyword
from .sos import check_degree, check_solver, save_certificate, save_shown, save_targets


def lyapunov(field: str | Sequence[str], *, vars: str | Sequence[str], degree: int = 2, eps: str = "1/100",
             decay: str = "0", solver: str = "clarabel", save: str | Path | None = None,
             force: bool = False) -> Report:
    """Search ``V`` of degree ``degree`` (even) with exact certificates of ``V >= eps |x|^2`` and
    ``dV/dt <= -decay |x|^2`` along ``dx/dt = field(x)``.

    ``field``: the components, one string ``"y, -x - y"`` or a list of strings, one per variable of
    ``vars`` (``"x,y"`` or a list of names).  ``eps``, ``decay``: exact rationals (``"1/100"``).
    ``solver``: ``"clarabel"`` or ``"scs"``.  ``save``: a file receiving the exact certificate
    (checked before any work; replaced only with ``force``).  ``record`` is the
    :class:`~verify._sos.result.LyapunovResult`.
    """
    return run(field, vars=vars, degree=degree, eps=eps, decay=decay, solver=solver, save=save, force=force)


def run(field: str | Sequence[str], *, vars: str | Sequence[str], degree: int = 2, eps: str = "1/100",
        decay: str = "0", solver: str = "clarabel", save: str | Path | None = None, force: bool = False,
        name: Callable[[str], str] = keyword) -> Report:
    """:func:`lyapunov`, its errors naming the options with ``name`` (the CLI passes ``flag``)."""
    from verify._sos.lyapunov import find_lyapunov
    from verify._sos.parse import parse_polynomial, symbols_from_names

    degree = check_degree(degree, low=2, name=name)
    solver = check_solver(solver, name)
    force = check_bool(name("force"), force)
    shown = save_shown(save, name)
    targets = save_targets(check_path(name("save"), save), force, name)
    symbols = symbols_from_names(vars, name("vars"))
    parts = _components(field, name)
    if len(parts) != len(symbols) or not all(parts):
        raise InvalidInput(name("field"), f"{len(symbols)} comma-separated components (one per variable in "
                           f"{name('vars')})", field)
    components = [parse_polynomial(p, symbols, f"{name('field')} component {k + 1}") for k, p in enumerate(parts)]
    result = find_lyapunov(components, symbols, degree=degree, eps=eps, decay=decay, solver=solver.upper())
    files, saved = save_certificate(targets, result.certificate, force, shown)
    return Report("lyapunov", result.to_json(), lyapunov_text(result, saved), exit_code=int(result.status.exit_code),
                  files=files, record=result)


def lyapunov_text(result, saved: str = "") -> str:
    """The console rendering of a :class:`~verify._sos.result.LyapunovResult` (and the save line)."""
    s = result.stats
    lines = [f"lyapunov: {result.status.value.upper()}", f"reason: {result.verdict.reason}"]
    if s.float_status or s.margin_status:  # the plain solve is skipped after a positive margin
        lines.append(f"times: float solve {s.float_solve_s:.3f} s, margin solve {s.margin_solve_s:.3f} s, "
                     f"exact rounding+check {s.rounding_s:.3f} s")
    if saved:
        lines.append(saved)
    return "\n".join(lines)


def _components(field, name: Callable[[str], str] = keyword) -> list[str]:
    if isinstance(field, str):
        return [p.strip() for p in field.split(",")]
    if isinstance(field, (list, tuple)) and all(isinstance(p, str) for p in field):
        return [p.strip() for p in field]
    raise InvalidInput(name("field"), "the components of dx/dt as one string 'y, -x - y' or a list of strings", field)
