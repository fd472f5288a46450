"""Open hemisphere: some ``z`` with ``<z, x_i> > 0`` for every token (Theorem 3.2, docs/model.md §6).

A linear program gives the hint (:mod:`theorems.hemisphere_margin`, the one hemisphere
computation and the one definition of its margin); the proof is exact.  Either

* **holds** with ``z`` (rational): ``min_i <z, x_i> > 0`` re-checked in exact rational arithmetic
  (float tokens are read as the rationals they hold), or
* **fails** with a Farkas witness: ``lambda >= 0``, ``sum lambda_i = 1``, ``sum lambda_i x_i = 0``,
  solved exactly on the support of the LP's vertex solution and re-checked exactly.  Then no
  ``z`` can exist: ``sum lambda_i <z, x_i> = 0`` with every term ``> 0`` is impossible.

When neither exact check succeeds the verdict is unknown with the float residuals; a tolerance
never decides.  Irrational exact tokens (``sqrt(2)/2``) are compared through 40-digit enclosures
(``exact=False``).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import flint
import numpy as np
import sympy

from ..errors import InvalidInput
from ..hemisphere_margin import farkas_lp, hemisphere_lp
from ..system import AttentionSystem
from ..verdict import Verdict, fails, holds, unknown
from ._rational import enclose, fstr, rational_direction, to_fraction
from ._min_norm import min_norm_point
from .base import Predicate

MAX_EXACT_SUPPORT = 400
_ID = "open_hemisphere"


def _exact_rows(points: np.ndarray, exact_points) -> tuple[list[list[Any]], bool, bool]:
    """Rows as Fractions (rational data or float values) or SymPy numbers; flags: all rational, and
    whether the rows are rational positive multiples of the tokens (:func:`rational_direction`)."""
    if exact_points is None:
        return [[Fraction(float(v)) for v in row] for row in points], True, False
    rows = [list(r) for r in (exact_points.tolist() if hasattr(exact_points, "tolist") else exact_points)]
    if all(all(sympy.sympify(v).is_Rational for v in row) for row in rows):
        return [[to_fraction(v) for v in row] for row in rows], True, False
    directions = [rational_direction(row) for row in rows]  # same hemisphere question, rational data
    if all(d is not None for d in directions):
        return directions, True, True
    out, rational = [], True
    for row in rows:
        new = []
        for v in row:
            try:
                new.append(to_fraction(v))
            except TypeError:
                new.append(sympy.sympify(v))
                rational = False
        out.append(new)
    return out, rational, False


def _sign(value: Any) -> int:
    """Sign of an exact number (Fraction exactly; SymPy numbers through an enclosure); 0 if undecided."""
    if isinstance(value, Fraction):
        return (value > 0) - (value < 0)
    value = sympy.Rational(value) if isinstance(value, sympy.Float) else sympy.simplify(value)  # exact, never a guess
    if value == 0:
        return 0
    lo, hi = enclose(value)
    return 1 if lo > 0 else (-1 if hi < 0 else 0)


def _is_zero(value: Any) -> bool:
    if isinstance(value, Fraction):
        return value == 0
    return sympy.simplify(value) == 0


def _show(value: Any) -> str:
    return fstr(value) if isinstance(value, Fraction) else str(sympy.simplify(value))


def _check_z(z: Sequence[Fraction], rows: list[list[Any]]) -> tuple[bool, Any, int]:
    inners = [sum((zj * xj for zj, xj in zip(z, row)), Fraction(0)) for row in rows]
    signs = [_sign(v) for v in inners]
    if any(s <= 0 for s in signs):
        return False, None, -1
    if all(isinstance(v, Fraction) for v in inners):
        i = min(range(len(inners)), key=lambda k: inners[k])
    else:
        i = min(range(len(inners)), key=lambda k: float(sympy.N(inners[k])))
    return True, inners[i], i


def _solve_exact(columns: list[int], rows: list[list[Any]], rational: bool) -> list[Any] | None:
    """Exact solution of ``sum_{i in S} lambda_i x_i = 0, sum lambda_i = 1`` (unique or None)."""
    d = len(rows[0])
    if rational:
        return _solve_rational(columns, rows)
    conv = lambda v: sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v  # noqa: E731
    A = sympy.Matrix(d + 1, len(columns), lambda r, c: conv(rows[columns[c]][r]) if r < d else 1)
    b = sympy.Matrix([0] * d + [1])
    try:
        sol, params = A.gauss_jordan_solve(b)
    except ValueError:
        return None
    if params.shape[0]:
        sol = sol.subs({p: 0 for p in params})
    return [to_fraction(v) if rational else sympy.simplify(v) for v in sol]


def _solve_rational(columns: list[int], rows: list[list[Fraction]]) -> list[Fraction] | None:
    """Same system over the rationals with python-flint (reduced row echelon form)."""
    d, n = len(rows[0]), len(columns)
    entries = []
    for r in range(d + 1):
        for c in range(n):
            v = rows[columns[c]][r] if r < d else Fraction(1)
            entries.append(flint.fmpq(v.numerator, v.denominator))
        entries.append(flint.fmpq(1 if r == d else 0))
    R, rank = flint.fmpq_mat(d + 1, n + 1, entries).rref()
    solution = [Fraction(0)] * n
    for r in range(rank):
        lead = next(c for c in range(n + 1) if R[r, c] != 0)
        if lead == n:
            return None  # inconsistent: a row 0 = 1
        value = R[r, n]
        solution[lead] = Fraction(int(value.p), int(value.q))
    return solution


def hemisphere_verdict(points: Any, exact_points: Any = None) -> Verdict:
    """Decide whether the rows of ``points`` (``N x d``) lie in an open hemisphere.

    ``exact_points`` (optional, same shape: SymPy matrix, Fractions or strings-as-SymPy numbers)
    are the exact data; without them the float values are used as exact rationals.  Witness keys:
    ``z``, ``min_inner``, ``argmin`` (holds); ``lambda`` (index -> exact weight), ``support``
    (fails); ``margin`` (the LP candidate's margin, :func:`theorems.hemisphere_margin.margin_at`) and
    ``farkas_residual`` (floats, always when computed).
    """
    X = np.asarray(points, dtype=float)
    if X.ndim != 2 or X.shape[0] < 1 or not np.all(np.isfinite(X)):
        raise InvalidInput("points", "an N x d array of finite numbers with N >= 1", X.shape)
    N, d = X.shape
    rows, rational, scaled = _exact_rows(X, exact_points)
    lp = hemisphere_lp(X)
    info: dict[str, Any] = {"margin": lp.margin}
    if scaled:  # the witness below is about these rows: each a positive multiple of its token, exactly
        info["token_directions"] = [[fstr(v) for v in row] for row in rows]
    if lp.z is not None and lp.lp_value > 0:
        for z in ([Fraction(float(v)).limit_denominator(10 ** 6) for v in lp.z],
                  [Fraction(float(v)) for v in lp.z]):
            ok, m, i = _check_z(z, rows)
            if ok:
                return holds(_ID, f"all {N} tokens satisfy <z, x_i> > 0 (minimum ~{float(m):.6g} at token {i})",
                             {"z": [fstr(v) for v in z], "min_inner": _show(m), "argmin": i, **info}, rational)
    lam_float = farkas_lp(X)
    if lam_float is not None:
        info["farkas_residual"] = float(np.abs(X.T @ lam_float).max())
        support = [int(i) for i in np.flatnonzero(lam_float > 1e-12)]
        if 0 < len(support) <= MAX_EXACT_SUPPORT:
            lam = _solve_exact(support, rows, rational)
            if lam is not None and _farkas_ok(lam, support, rows):
                weights = {str(i): _show(v) for i, v in zip(support, lam)}
                return fails(_ID, f"0 is a convex combination of tokens {support}: no open hemisphere",
                             {"lambda": weights, "support": support, **info,
                              "check": "lambda_i >= 0, sum lambda_i = 1, sum lambda_i x_i = 0 (exact)"}, rational)
    exact = _nearest_point_verdict(rows, info) if rational else None
    if exact is not None:
        return exact
    return unknown(_ID, "the LP hint could not be turned into an exact witness either way "
                   "(tokens on or near the boundary of a hemisphere)", info, False)


def _nearest_point_verdict(rows: list[list[Fraction]], info: dict[str, Any]) -> Verdict | None:
    """The exact decision on rational rows (:mod:`._min_norm`, Wolfe's nearest point), each witness
    re-checked exactly here; None above its size limit."""
    found = min_norm_point(rows)
    if found is None:
        return None
    p, weights = found
    if any(v != 0 for v in p):
        ok, m, i = _check_z(p, rows)
        if ok:
            return holds(_ID, f"all {len(rows)} tokens satisfy <z, x_i> > 0 for z the nearest point of their convex "
                         f"hull to 0 (exact; minimum ~{float(m):.6g} at token {i})",
                         {"z": [fstr(v) for v in p], "min_inner": _show(m), "argmin": i, **info,
                          "method": "exact nearest point of the convex hull (Wolfe), re-checked"}, True)
        return None
    support = sorted(weights)
    lam = [weights[i] for i in support]
    if _farkas_ok(lam, support, rows):
        return fails(_ID, f"0 is a convex combination of tokens {support}: no open hemisphere",
                     {"lambda": {str(i): fstr(v) for i, v in zip(support, lam)}, "support": support, **info,
                      "check": "lambda_i >= 0, sum lambda_i = 1, sum lambda_i x_i = 0 (exact)",
                      "method": "exact nearest point of the convex hull (Wolfe): 0, with these weights"}, True)
    return None


def _farkas_ok(lam: list[Any], support: list[int], rows: list[list[Any]]) -> bool:
    if any(_sign(v) < 0 or (_sign(v) == 0 and not _is_zero(v)) for v in lam):
        return False
    if not _is_zero(sum(lam, Fraction(0)) - 1):
        return False
    d = len(rows[0])
    return all(_is_zero(sum((lv * rows[i][r] for lv, i in zip(lam, support)), Fraction(0))) for r in range(d))


class OpenHemisphere(Predicate):
    """The initial tokens lie in an open hemisphere (see :func:`hemisphere_verdict`)."""
    reads = ("tokens",)

    id = _ID
    statement = "the initial tokens lie in an open hemisphere: some z has <z, x_i> > 0 for all i"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        return hemisphere_verdict(system.tokens, system.tokens_exact)


__all__ = ["OpenHemisphere", "hemisphere_verdict"]
