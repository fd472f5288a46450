"""The margin SDP in conic form, handed to SCS directly (a first-order method; no CVXPY).

Large Gram blocks make an interior-point method expensive: Clarabel's Newton system for a PSD
block of size ``s`` is dense in the ``s (s + 1) / 2`` entries of its triangle, so memory grows like
``s^4`` (4.6 GB at ``s = 136`` through CVXPY; ``s = 165`` ran out of memory).  SCS (O'Donoghue,
Chu, Parikh & Boyd, *Conic optimization via operator splitting and homogeneous self-dual
embedding*, JOTA 2016) needs one eigendecomposition of each block per iteration and a sparse
factorisation of the data, so it scales to the blocks of :data:`verify._sos.prove.MAX_GRAM`.

The program is the margin SDP of :mod:`verify._sos.solve`, written out once as SCS's standard form
``min c^T x  s.t.  A x + s = b,  s in K`` with ``x = (z, t)`` (``z`` the upper triangles of the
Gram blocks in :meth:`GramProgram.system` column order, then the free parameters):

* zero cone: the coefficient equations ``A_eq z = b_eq`` (the exact system, read as floats);
* nonnegative cone: ``1 - t >= 0`` and ``X_b - t >= 0`` for every 1 x 1 block;
* PSD cones: ``svec(X_b - t I)`` per larger block (SCS's order: lower triangle by columns,
  off-diagonal entries scaled by ``sqrt 2``).

The Gram matrices returned are read from the cone slack ``s`` (``X_b = smat(s_b) + t I``, PSD with
margin ``t`` in floating point), not from ``x``: the slack lies in the cone by construction and the
exact projection of :mod:`verify._sos.rounding` removes the equation residual.  As everywhere in
the search, the result is a hint: SCS's status proves nothing; rounding and the exact re-check
decide.  Accuracy presets: :data:`FIRST_ORDER_SETTINGS`.
"""
from __future__ import annotations

import logging
import math
import time
from types import MappingProxyType
from typing import Mapping, final

import numpy as np
import scipy.sparse as sp

from .threads import one_blas_thread

from .program import GramProgram, LinearSystem
from .solve import FloatSolution

log = logging.getLogger(__name__)

LOOSE = "scs-loose"
TIGHT = "scs-tight"
FIRST_ORDER_SETTINGS: Mapping[str, Mapping[str, float | int]] = MappingProxyType({
    LOOSE: MappingProxyType({"eps_abs": 1e-5, "eps_rel": 1e-5, "max_iters": 4000}),
    TIGHT: MappingProxyType({"eps_abs": 1e-8, "eps_rel": 1e-8, "max_iters": 20000}),
})
"""SCS settings per accuracy (read-only).  The loose point is well inside the cone on the programs
this path serves (margin of order 1 against residuals of order ``1e-5`` relative); the tight one
is the refinement when it does not round, warm-started from the loose one."""

_STATUS = {"solved": "optimal", "solved_inaccurate": "optimal_inaccurate"}


Warm = tuple[np.ndarray, np.ndarray, np.ndarray]
"""SCS's ``(x, y, s)``: the primal point, the dual point and the slack of a solve."""


@final
class ConicData:
    """The margin SDP of one program in SCS's standard form (built once, solved at several accuracies).

    ``A``, ``b``, ``c``, ``cone``: SCS's data (not modified after construction); ``sizes``: the Gram
    block sizes; ``rows``: the first slack row of each block.
    """

    def __init__(self, program: GramProgram, system: LinearSystem) -> None:
        self.sizes = [len(b.basis) for b in program.blocks]
        self.n_z = program.n_columns
        self.n_params = len(program.params)
        t_col = self.n_z
        n_eq = len(system.rhs)
        rows, cols, vals = [], [], []
        for c, col in enumerate(system.columns):
            for r, value in col:
                rows.append(r); cols.append(c); vals.append(float(value))
        b = [float(v) for v in system.rhs]
        offsets = program.block_offsets()
        # Nonnegative cone: 1 - t >= 0, then x - t >= 0 for each 1 x 1 block (s = b - A x).
        row = n_eq
        rows.append(row); cols.append(t_col); vals.append(1.0); b.append(1.0)
        row += 1
        self.rows: list[int] = []
        for k, size in enumerate(self.sizes):
            if size == 1:
                self.rows.append(row)
                rows += [row, row]; cols += [offsets[k], t_col]; vals += [-1.0, 1.0]; b.append(0.0)
                row += 1
            else:
                self.rows.append(-1)
        n_l = row - n_eq
        psd_sizes = []
        root2 = math.sqrt(2.0)
        for k, size in enumerate(self.sizes):
            if size == 1:
                continue
            self.rows[k] = row
            psd_sizes.append(size)
            index = _triangle_index(size)
            for j in range(size):  # SCS: lower triangle, column by column
                for i in range(j, size):
                    col = offsets[k] + index[j][i]  # the program stores (min, max) = (j, i)
                    if i == j:
                        rows += [row, row]; cols += [col, t_col]; vals += [-1.0, 1.0]
                    else:
                        rows.append(row); cols.append(col); vals.append(-root2)
                    b.append(0.0)
                    row += 1
        self.A = sp.csc_matrix((vals, (rows, cols)), shape=(row, t_col + 1))
        self.b = np.array(b)
        self.c = np.zeros(t_col + 1)
        self.c[t_col] = -1.0
        self.cone = {"z": n_eq, "l": n_l, "s": psd_sizes}

    def grams(self, x: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, ...]:
        """``X_b = smat(s_b) + t I`` for every block (symmetric float matrices)."""
        t = float(x[self.n_z])
        out = []
        for size, row in zip(self.sizes, self.rows):
            if size == 1:
                out.append(np.array([[float(s[row]) + t]]))
                continue
            jj, ii = _scs_order(size)
            values = s[row:row + len(ii)]
            full = np.zeros((size, size))
            full[ii, jj] = values
            full[jj, ii] = values
            full[~np.eye(size, dtype=bool)] /= math.sqrt(2.0)
            full += t * np.eye(size)
            out.append(full)
        return tuple(out)


def _scs_order(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(j, i)`` for SCS's slack order: the lower triangle ``i >= j``, column ``j`` by column."""
    j, i = np.triu_indices(size)  # row-major upper (j <= i) is column-major lower
    return j, i


def _triangle_index(size: int) -> list[list[int]]:
    """``index[i][j]`` (``i <= j``): position of ``X_ij`` in the program's upper-triangle order."""
    index = [[0] * size for _ in range(size)]
    position = 0
    for i in range(size):
        for j in range(i, size):
            index[i][j] = position
            position += 1
    return index


def solve_first_order(data: ConicData, accuracy: str = LOOSE,
                      warm: Warm | None = None) -> tuple[FloatSolution, Warm | None]:
    """Solve the margin SDP with SCS at ``accuracy``, warm-started from ``warm`` if given; returns the
    solution and SCS's final ``(x, y, s)`` (None when it failed) for the next warm start."""
    import scs  # lazily: only a search on a large program needs it

    settings = dict(FIRST_ORDER_SETTINGS[accuracy])
    start = time.perf_counter()
    try:
        # One BLAS thread: SCS's work is one eigendecomposition per block and iteration, and BLAS
        # threads on a shared machine only oversubscribe the cores (:mod:`.threads`).
        with one_blas_thread():
            solver = scs.SCS({"A": data.A, "b": data.b, "c": data.c}, data.cone, verbose=False, **settings)
            if warm is not None:
                x0, y0, s0 = warm
                result = solver.solve(warm_start=True, x=x0, y=y0, s=s0)
            else:
                result = solver.solve(warm_start=False)
        info = result["info"]
        status = _STATUS.get(str(info["status"]), str(info["status"]))
        iterations = int(info["iter"])
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # noqa: BLE001 - a failed solve is a hint that is missing, not an error
        log.info("SCS failed: %s: %s", type(exc).__name__, exc)
        return FloatSolution((), np.zeros(0), f"solver_error: {type(exc).__name__}: {str(exc)[:200]}",
                             time.perf_counter() - start, None, accuracy, None), None
    x, y, s = (np.asarray(result[k], dtype=float) for k in ("x", "y", "s"))
    seconds = time.perf_counter() - start
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(s))):
        return FloatSolution((), np.zeros(0), status, seconds, None, accuracy, iterations), None
    params = x[data.n_z - data.n_params:data.n_z]
    return (FloatSolution(data.grams(x, s), params, status, seconds, float(x[data.n_z]), accuracy, iterations),
            (x, y, s))


def newton_entries(program: GramProgram) -> int:
    """``sum_b (s_b (s_b + 1) / 2)^2``: the size of an interior-point method's dense Newton blocks
    (what decides whether Clarabel fits in memory)."""
    return sum((s * (s + 1) // 2) ** 2 for s in (len(b.basis) for b in program.blocks))
