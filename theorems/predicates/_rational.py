"""Exact rational helpers shared by the predicates: rational data, norm bounds, PSD checks.

Floating-point numbers are exact dyadic rationals, so float data can be checked *exactly* too:
``Fraction(0.1)`` is the value the float really holds.  A bound proved here is a statement about
the data as given (the float values), not about whatever real numbers they approximate.

Norm bounds (:func:`spectral_upper`) follow the rule "float hint, exact proof": a float norm is
rounded up to a short rational ``p`` and ``p^2 I - A^T A`` is shown positive definite exactly
(:func:`theorems.psd_flint.is_positive_definite`, python-flint), which proves ``||A||_2 < p``.  Matrices with more than
:data:`EXACT_DIM_LIMIT` columns use the Frobenius norm with a proven float rounding-error bound
instead (recorded as ``exact=False``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import sympy

from ..enclosure import enclose_constant
from ..errors import InvalidInput, InvalidType
from ..matrices import ConstantMatrix
from ..psd_flint import is_positive_definite, to_fmpq_mat

EXACT_DIM_LIMIT = 64
"""Largest dimension for which norm bounds are proved by an exact PSD check."""

RMatrix = list[list[Fraction]]


@dataclass(frozen=True)
class NormBound:
    """A proven upper bound ``p`` (exact rational) on a spectral norm, with how it was proved."""

    p: Fraction
    method: str
    exact: bool


def fstr(q: Fraction) -> str:
    """Exact string of a rational ("3/7", "-2")."""
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def to_fraction(value: object) -> Fraction:
    """Exact rational value of an int, float, Fraction, fmpq or SymPy rational/float."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (bool, np.bool_)):
        raise InvalidType("value", "a number (booleans are not numbers here)", value)
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        return Fraction(float(value))
    if isinstance(value, flint.fmpq):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, sympy.Rational):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, sympy.Float):
        r = sympy.Rational(value)
        return Fraction(int(r.p), int(r.q))
    raise InvalidType("value", "a rational number", value)


def enclose(expr: sympy.Expr) -> tuple[Fraction, Fraction]:
    """Rational interval containing a constant SymPy number (rigorous: the arb engine,
    :func:`theorems.enclosure.enclose_constant`).  Rationals and floats are exact points.
    ``ValueError`` when ``expr`` is not an enclosable real constant."""
    return enclose_constant(expr)


def rational_matrix(m: ConstantMatrix) -> RMatrix | None:
    """Exact rational entries: exact rational data, or the float values themselves.

    ``None`` when the exact data contain irrational numbers (use :func:`enclose_matrix`).
    """
    if m.exact is None:
        return [[Fraction(float(v)) for v in row] for row in m.array]
    if all(isinstance(v, sympy.Rational) for v in m.exact):
        return [[to_fraction(m.exact[i, j]) for j in range(m.exact.cols)] for i in range(m.exact.rows)]
    return None


def enclose_matrix(m: ConstantMatrix) -> tuple[RMatrix, RMatrix]:
    """Entrywise rational enclosure ``(lo, hi)`` of a constant matrix (points for rational data)."""
    exact = rational_matrix(m)
    if exact is not None:
        return exact, exact
    pairs = [[enclose(m.exact[i, j]) for j in range(m.exact.cols)] for i in range(m.exact.rows)]
    return [[p[0] for p in row] for row in pairs], [[p[1] for p in row] for row in pairs]


def _short(x: float, rounding) -> Fraction:
    """``x > 0`` rounded (``math.ceil`` up, ``math.floor`` down) to about 8 significant digits, exactly."""
    scale = 7 - math.floor(math.log10(x))
    value = Fraction(x)
    if scale >= 0:
        return Fraction(rounding(value * 10 ** scale), 10 ** scale)
    return Fraction(rounding(value / 10 ** (-scale)) * 10 ** (-scale))


def rational_upper(x: float) -> Fraction:
    """A short rational ``>= x`` (about 8 significant digits, rounded up)."""
    if x <= 0:
        return Fraction(0) if x == 0 else -rational_lower(-x)
    return _short(x, math.ceil)


def rational_lower(x: float) -> Fraction:
    """A short rational ``<= x``."""
    if x < 0:
        return -rational_upper(-x)
    return Fraction(0) if x == 0 else _short(x, math.floor)


def sqrt_upper(q: Fraction) -> Fraction:
    """A short rational ``r >= sqrt(q)``, checked exactly (``r^2 >= q``)."""
    if q < 0:
        raise InvalidInput("q", "a nonnegative rational (square root)", q)
    if q == 0:
        return Fraction(0)
    approx = math.sqrt(float(q)) if float(q) < 1e300 else float(math.isqrt(math.ceil(q)) + 1)
    r = rational_upper(max(approx, 1e-300) * (1 + 1e-12))
    while r * r < q:
        r = rational_upper(float(r) * (1 + 1e-9)) + Fraction(1, 10 ** 12)
    return r


def spectral_upper(a: RMatrix) -> NormBound:
    """Proven rational upper bound on ``||a||_2`` for exact rational ``a`` (see module doc)."""
    rows, cols = len(a), len(a[0])
    if all(v == 0 for row in a for v in row):
        return NormBound(Fraction(0), "zero matrix", True)
    if max(rows, cols) > EXACT_DIM_LIMIT:
        return frobenius_upper(a)
    floats = np.array([[float(v) for v in row] for row in a])
    gram = to_fmpq_mat(a).transpose() * to_fmpq_mat(a)
    guess = float(np.linalg.norm(floats, 2))
    for attempt in range(8):
        p = rational_upper(guess * (1 + 1e-9 * 10 ** attempt) + 1e-300)
        shifted = gram * -1
        p2 = flint.fmpq(p.numerator, p.denominator) ** 2
        for i in range(cols):
            shifted[i, i] += p2
        if is_positive_definite(shifted):
            return NormBound(p, "p^2 I - A^T A positive definite (exact characteristic polynomial, python-flint)", True)
    return frobenius_upper(a)


def frobenius_upper(a: RMatrix | np.ndarray) -> NormBound:
    """``||a||_2 <= ||a||_F``: an exact sum of squares for small rational data, else (large data or
    a float array) a float sum of squares enlarged by its worst-case rounding error
    ``gamma_{n+1} = (n+1)u / (1-(n+1)u)`` plus an underflow allowance."""
    if isinstance(a, np.ndarray):
        floats = a
    else:
        n = len(a) * len(a[0])
        if n <= EXACT_DIM_LIMIT ** 2:
            return NormBound(sqrt_upper(sum((v * v for row in a for v in row), Fraction(0))),
                             "Frobenius norm (exact sum of squares)", True)
        floats = np.array([[float(v) for v in row] for row in a])
    n = floats.size
    s = Fraction(float(np.sum(floats * floats)))
    gamma = Fraction((n + 1), 2 ** 53) / (1 - Fraction(n + 1, 2 ** 53))
    bound = s * (1 + gamma) / (1 - gamma) + Fraction(n, 2 ** 1074) * 4
    return NormBound(sqrt_upper(bound), "Frobenius norm (float sum with proven rounding-error bound)", False)


def matrix_norm_upper(m: ConstantMatrix) -> NormBound:
    """Proven upper bound on ``||M||_2`` of a constant matrix (exact, float or algebraic data).

    Algebraic entries are enclosed (:func:`enclose`); with midpoints ``R`` and radii ``E``,
    ``||M||_2 <= ||R||_2 + ||E||_F``.
    """
    if m.exact is None and m.dim > EXACT_DIM_LIMIT:
        return frobenius_upper(m.array)
    exact = rational_matrix(m)
    if exact is not None:
        return spectral_upper(exact)
    lo, hi = enclose_matrix(m)
    mid = [[(x + y) / 2 for x, y in zip(rl, rh)] for rl, rh in zip(lo, hi)]
    rad2 = sum(((y - x) / 2) ** 2 for rl, rh in zip(lo, hi) for x, y in zip(rl, rh))
    base = spectral_upper(mid)
    total = base.p + sqrt_upper(rad2)
    p = rational_upper(float(total))
    while p < total:
        p = rational_upper(float(p) * (1 + 1e-9))
    return NormBound(p, base.method + " on arb enclosure midpoints, plus the radius", False)


def entry_sym(m: ConstantMatrix, i: int, j: int) -> sympy.Expr:
    """Entry as an exact SymPy number (a float entry becomes the rational it holds)."""
    return m.exact[i, j] if m.exact is not None else sympy.Rational(float(m.array[i, j]))


def rational_direction(row) -> list[Fraction] | None:
    """A rational vector that is a *positive* multiple of ``row`` (exact SymPy numbers), or None.

    Rational rows are themselves; a row ``c q`` with ``q`` rational and ``c`` one irrational factor
    (a token the reader divided by its exact norm, ``x / sqrt(|x|^2)``) gives ``sign(c) q``: every
    ratio ``row_j / row_k`` is rational exactly and the sign of ``row_k`` is proven by an enclosure.
    Sign questions about a token (hemispheres, ``<v, x> > 0``) depend on its direction only."""
    values = [sympy.sympify(v) for v in row]
    if all(v.is_Rational for v in values):
        return [to_fraction(v) for v in values]
    pivot = next((v for v in values if v != 0), None)
    if pivot is None:
        return None
    ratios = [v / pivot for v in values]
    ratios = [r if r.is_Rational else sympy.radsimp(r) for r in ratios]  # exact rewriting, never a guess
    if not all(r.is_Rational for r in ratios):
        return None
    lo, hi = enclose(pivot)
    if not (lo > 0 or hi < 0):
        return None
    sign = 1 if lo > 0 else -1
    return [sign * to_fraction(r) for r in ratios]


def solve_rational(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """The solution of the square system ``A x = b`` by Gaussian elimination over the rationals
    (exact); None when ``A`` is singular."""
    n = len(A)
    M = [list(row) + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        pivot = next((r for r in range(c, n) if M[r][c] != 0), None)
        if pivot is None:
            return None
        M[c], M[pivot] = M[pivot], M[c]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c] / M[c][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]
