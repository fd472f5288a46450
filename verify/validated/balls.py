"""Small helpers on python-flint ``arb`` balls and ``arb_mat`` matrices for the validated integrators.

Every function that returns balls computes them with arb's outward-rounded operations at the
caller's working precision (callers scope it with ``flint.ctx.workprec``); helpers that return
floats (:func:`mid_floats`, :func:`max_width`) are for proposals and reports only and never feed
a "holds".  A *box* is an ``arb_mat`` whose entries are independent intervals.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np
from flint import arb, arb_mat, fmpq

from .problem import Field, Tokens


def ball(q: Fraction | int) -> arb:
    """A ball containing the rational ``q`` (exact when ``q`` is a short dyadic)."""
    q = Fraction(q)
    return arb(fmpq(q.numerator, q.denominator))


def matrix(rows: Sequence[Sequence[Fraction]], scale: Fraction = Fraction(1)) -> arb_mat:
    r, c = len(rows), len(rows[0])
    return arb_mat(r, c, [ball(scale * v) for row in rows for v in row])


def is_identity(rows: Sequence[Sequence[Fraction]]) -> bool:
    return all(v == (i == j) for i, row in enumerate(rows) for j, v in enumerate(row))


def span(lo: arb, hi: arb) -> arb:
    """A ball containing every number between the balls ``lo`` and ``hi`` (their hull)."""
    return lo.union(hi)


def unit_interval_times(h: arb) -> arb:
    """The ball ``[0, h]`` for a ball ``h >= 0``."""
    return span(arb(0), h)


def ipow(x: arb, n: int) -> arb:
    """``x^n`` for an integer ``n >= 0`` by repeated multiplication.  (python-flint's ``x ** n``
    returns NaN for a ball centred at 0 with a positive radius, so it is never used on balls.)"""
    out, base = arb(1), x
    while n:
        if n & 1:
            out = out * base
        n >>= 1
        if n:
            base = base * base
    return out


def nonneg_power(s: arb, n: int) -> arb:
    """``{x^n : x in s}`` for a ball ``s`` of numbers ``>= 0`` (monotone, so the hull of the end powers)."""
    lo, hi = s.lower(), s.upper()
    if lo < 0:
        lo = arb(0)
    return ipow(lo, n).union(ipow(hi, n))


def field_data(field: Field) -> tuple[tuple[arb_mat, arb_mat | None], ...]:
    """Per head ``((beta P)^T, U^T or None for U = I)`` as ball matrices."""
    return tuple((matrix(P, field.beta).transpose(), None if is_identity(U) else matrix(U).transpose())
                 for P, U in zip(field.P, field.U))


def initial_box(tokens: Tokens) -> tuple[arb_mat, arb]:
    """``(centres, radius)``: the centres as balls (``c/|c|`` when normalising) and the radius ball."""
    rows = []
    for c in tokens.centers:
        vec = [ball(v) for v in c]
        if tokens.normalize:
            norm = sum((v * v for v in vec), arb(0)).sqrt()
            vec = [v / norm for v in vec]
        rows.extend(vec)
    return arb_mat(tokens.N, tokens.d, rows), ball(tokens.radius)


def mid_floats(M: arb_mat) -> np.ndarray:
    """Float midpoints of a matrix of balls (for proposals only)."""
    return np.array([[float(x.mid()) for x in row] for row in M.tolist()], dtype=float)


def from_floats(values: np.ndarray) -> arb_mat:
    """Exact balls from float64 values (every float is a dyadic rational)."""
    values = np.asarray(values, dtype=float)
    r, c = values.shape
    return arb_mat(r, c, [arb(v) for v in values.flat.__array__().tolist()])  # arb(float) is exact


def radius_upper(x: arb) -> float:
    """An upper bound on the radius of ``x`` as a float (rounded up; for reports and step control)."""
    if not x.is_finite():
        return float("inf")
    return float(x.rad().upper()) * (1 + 2 ** -50)


def max_width(M: arb_mat | Sequence[Sequence[arb]]) -> float:
    """Largest entry width (``2 * radius``, rounded up) of a matrix of balls (``inf`` if any is not finite)."""
    entries = M.entries() if isinstance(M, arb_mat) else [x for row in M for x in row]
    return max((2 * radius_upper(x) for x in entries), default=0.0)


def all_finite(M: arb_mat) -> bool:
    return all(x.is_finite() for x in M.entries())


def contains_interior(outer: arb_mat, inner: arb_mat) -> bool:
    """Every entry of ``inner`` lies in the interior of the matching entry of ``outer``."""
    return all(o.contains_interior(i) for o, i in zip(outer.entries(), inner.entries()))


def intersect(a: arb_mat, b: arb_mat) -> arb_mat:
    """Entrywise intersection of two enclosures of the same quantity (a non-finite entry carries no
    information: the other one is kept).  Two enclosures of one value always overlap; disjoint
    finite ones mean a bug, reported as ``ArithmeticError``."""
    out = []
    for x, y in zip(a.entries(), b.entries()):
        if not x.is_finite():
            out.append(y)
        elif not y.is_finite():
            out.append(x)
        else:
            try:
                out.append(x.intersection(y))
            except ValueError:
                raise ArithmeticError("disjoint enclosures of one quantity (an unsound computation)") from None
    return arb_mat(a.nrows(), a.ncols(), out)


def inflate(M: arb_mat, rel: float, absolute: float) -> arb_mat:
    """Each entry ``x`` widened by ``rel * rad(x) + absolute`` on both sides (a proposal for a Picard box)."""
    out = []
    for x in M.entries():
        grow = arb(0, float(x.rad().upper()) * rel + absolute)
        out.append(x + grow)
    return arb_mat(M.nrows(), M.ncols(), out)


def centered(v: arb_mat) -> arb_mat:
    """``[-m, m]`` per entry with ``m >= |v|``: a box centred at 0 containing ``v``."""
    return arb_mat(v.nrows(), v.ncols(), [arb(0, x.abs_upper()) for x in v.entries()])


def midpoint(M: arb_mat) -> arb_mat:
    """The exact midpoints of the entries (radius 0)."""
    return arb_mat(M.nrows(), M.ncols(), [x.mid() for x in M.entries()])


def flat(M: arb_mat) -> arb_mat:
    """``(N, d) -> (N d, 1)`` in row-major order (token-major state vector)."""
    return arb_mat(M.nrows() * M.ncols(), 1, M.entries())


def unflat(v: arb_mat, N: int, d: int) -> arb_mat:
    return arb_mat(N, d, v.entries())


def rows(M: arb_mat) -> tuple[tuple[arb, ...], ...]:
    return tuple(tuple(r) for r in M.tolist())


def diag(values: Sequence[arb]) -> arb_mat:
    n = len(values)
    D = arb_mat(n, n)
    for i, v in enumerate(values):
        D[i, i] = v
    return D


def identity(n: int) -> arb_mat:
    return diag([arb(1)] * n)


__all__ = ["all_finite", "ball", "centered", "contains_interior", "diag", "field_data", "flat", "from_floats",
           "identity", "inflate", "initial_box", "intersect", "ipow", "is_identity", "matrix", "max_width",
           "mid_floats", "midpoint", "nonneg_power", "radius_upper", "rows", "span", "unflat", "unit_interval_times"]
