"""Floating-point search for Gram matrices with CVXPY (the only module of ``verify.sos`` that imports it,
and only when a solve runs: the first-order path of :mod:`verify._sos.first_order` never needs it).

Two solves per program (Peyrl & Parrilo, *Computing sum of squares decompositions with rational
coefficients*, TCS 2008):

1. ``solve_plain``: find any ``X_b >= 0`` with ``A z = b`` (zero objective; interior-point solvers
   return a point near the analytic centre of the face they end on);
2. ``solve_margin``: maximise ``t`` subject to ``X_b - t I >= 0`` for every block and ``t <= 1``,
   i.e. move to the interior of the PSD cone so that rounding and exact projection, which perturb
   the matrices by a small amount, keep them PSD.

``accuracy``: :data:`DEFAULT` is the solver's own default tolerances (SCS: tightened to 1e-9);
:data:`LOOSE` (the margin solve only) stops once the duality gap is about 1e-2 and the
residuals about 1e-3: rounding needs a point well inside the cone, not an accurate maximiser, and
its exact projection removes the residual.  Accuracy affects only whether rounding succeeds, never
what is proved.

The result is only a hint: statuses such as "optimal" prove nothing.  The proof is made (or not)
by :mod:`verify._sos.rounding` and :meth:`Certificate.recheck`.
"""
from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, final

import numpy as np
import scipy.sparse as sp

from theorems.errors import InvalidInput

from .options import SOLVERS
from .program import GramProgram, LinearSystem

log = logging.getLogger(__name__)

DEFAULT = "default"
LOOSE = "loose"
_LOOSE_CLARABEL = {"tol_gap_abs": 1e-2, "tol_gap_rel": 1e-2, "tol_feas": 1e-3}
SOLVER_OPTIONS: Mapping[tuple[str, str], Mapping[str, float | int]] = MappingProxyType({
    ("CLARABEL", DEFAULT): MappingProxyType({}),
    ("CLARABEL", LOOSE): MappingProxyType({**_LOOSE_CLARABEL, "max_iter": 50,
                                           **{f"reduced_{k}": v for k, v in _LOOSE_CLARABEL.items()}}),
    ("SCS", DEFAULT): MappingProxyType({"max_iters": 20000, "eps_abs": 1e-9, "eps_rel": 1e-9}),
    ("SCS", LOOSE): MappingProxyType({"max_iters": 5000, "eps_abs": 1e-5, "eps_rel": 1e-5}),
})
"""Solver settings per ``(solver, accuracy)`` (read-only); the loose ones also bound the iterations
(a loose solve that needs more is not the cheap interior point it is meant to be), and Clarabel's
"almost solved" tolerances are set to the loose ones so that they are not the tighter of the two."""


@final
@dataclass(frozen=True)
class FloatSolution:
    """Solver output: Gram matrices (symmetrised), free parameters, status, time, margin ``t``, the
    accuracy asked for and the solver's iteration count (None when it reported none)."""

    grams: tuple[np.ndarray, ...]
    params: np.ndarray
    status: str
    seconds: float
    margin: float | None
    accuracy: str = DEFAULT
    iterations: int | None = None

    @property
    def usable(self) -> bool:
        return self.status in ("optimal", "optimal_inaccurate") and all(np.all(np.isfinite(g)) for g in self.grams)


def _float_matrix(program: GramProgram, system: LinearSystem) -> sp.csr_matrix:
    """``A`` over the full column-major ``vec(X_b)`` of every block, then the free parameters."""
    rows, cols, vals = [], [], []
    column = 0
    offset = 0
    for block in program.blocks:
        size = len(block.basis)
        for i in range(size):
            for j in range(i, size):
                for r, value in system.columns[column]:
                    if i == j:
                        rows.append(r); cols.append(offset + i + j * size); vals.append(float(value))
                    else:
                        half = float(value) / 2.0
                        rows.append(r); cols.append(offset + i + j * size); vals.append(half)
                        rows.append(r); cols.append(offset + j + i * size); vals.append(half)
                column += 1
        offset += size * size
    for _ in program.params:
        for r, value in system.columns[column]:
            rows.append(r); cols.append(offset); vals.append(float(value))
        column += 1
        offset += 1
    return sp.csr_matrix((vals, (rows, cols)), shape=(len(system.rhs), offset))


def _solve(program: GramProgram, system: LinearSystem, solver: str, margin: bool, accuracy: str) -> FloatSolution:
    if solver not in SOLVERS:
        raise InvalidInput("solver", f"one of {', '.join(SOLVERS)}", solver)
    if (solver, accuracy) not in SOLVER_OPTIONS:
        raise InvalidInput("accuracy", f"{DEFAULT!r} or {LOOSE!r}", accuracy)
    start = time.perf_counter()
    import cvxpy as cp  # lazily: importing CVXPY takes about a second

    grams = [cp.Variable((len(b.basis), len(b.basis)), symmetric=True) for b in program.blocks]
    params = cp.Variable(len(program.params)) if program.params else None
    pieces = [cp.vec(X, order="F") for X in grams] + ([params] if params is not None else [])
    A = _float_matrix(program, system)
    b = np.array([float(v) for v in system.rhs])
    z = cp.hstack(pieces) if len(pieces) > 1 else pieces[0]
    constraints = [A @ z == b]
    t = cp.Variable() if margin else None
    for X in grams:
        size = X.shape[0]
        if margin:
            constraints.append(X - t * np.eye(size) >> 0 if size > 1 else X >= t)
        else:
            constraints.append(X >> 0 if size > 1 else X >= 0)
    if margin:
        constraints.append(t <= 1)
        objective = cp.Maximize(t)
    else:
        objective = cp.Minimize(0)
    problem = cp.Problem(objective, constraints)
    options = SOLVER_OPTIONS[(solver, accuracy)]
    try:
        with warnings.catch_warnings():  # "inaccurate" is reported through the status instead
            warnings.simplefilter("ignore", UserWarning)
            problem.solve(solver=solver, **options)
        status = str(problem.status)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - Clarabel's Rust panics surface as a BaseException
        log.info("solver %s failed: %s: %s", solver, type(exc).__name__, exc)
        status = f"solver_error: {type(exc).__name__}: {str(exc)[:200]}"
    seconds = time.perf_counter() - start
    stats = problem.solver_stats  # None when the solver raised
    iterations = int(stats.num_iters) if stats is not None and stats.num_iters is not None else None
    if any(X.value is None for X in grams) or (params is not None and params.value is None):
        return FloatSolution((), np.zeros(0), status, seconds, None, accuracy, iterations)
    values = tuple((np.asarray(X.value) + np.asarray(X.value).T) / 2.0 for X in grams)
    param_values = np.asarray(params.value, dtype=float) if params is not None else np.zeros(0)
    t_value = float(t.value) if (margin and t.value is not None) else None
    return FloatSolution(values, param_values, status, seconds, t_value, accuracy, iterations)


def solve_plain(program: GramProgram, system: LinearSystem, solver: str = "CLARABEL") -> FloatSolution:
    """The plain feasibility SDP at the solver's default accuracy (what a float SOS tool stops at)."""
    return _solve(program, system, solver, margin=False, accuracy=DEFAULT)


def solve_margin(program: GramProgram, system: LinearSystem, solver: str = "CLARABEL",
                 accuracy: str = DEFAULT) -> FloatSolution:
    """The margin SDP (maximise ``t <= 1`` with ``X_b - t I >= 0``) at ``accuracy``."""
    return _solve(program, system, solver, margin=True, accuracy=accuracy)
