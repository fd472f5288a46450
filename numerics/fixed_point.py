"""Binary fixed-point arithmetic on Python integers, vectorised with numpy object arrays.

A real ``x`` is held as the integer ``round(x 2^prec)``.  Products are formed exactly at scale
``2^(2 prec)`` and summed before one shift back, so a dot product is rounded once.  This is
what makes the Taylor integrator fast: a Cauchy product over a whole matrix is one numpy call
that multiplies exact integers, instead of thousands of ``mpf`` objects that each renormalise.

Precision is a plain argument everywhere; nothing here touches ``mpmath.mp``.  Conversions to
``mpf`` go through a private :class:`mpmath.MPContext` whose precision the caller chooses.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy
from mpmath.libmp import from_man_exp, mpf_exp, to_fixed

from theorems.errors import InvalidInput


def to_fixed_scalar(value: object, prec: int) -> int:
    """``round(value 2^prec)`` for ints, floats (exact binary value), Fractions, SymPy numbers
    (evaluated with enough digits) and ``mpf``."""
    if isinstance(value, (bool, np.bool_)):
        raise InvalidInput("value", "a number", value)
    if isinstance(value, (int, np.integer)):
        return int(value) << prec
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise InvalidInput("value", "a finite number", value)
        return round(Fraction(float(value)) * (1 << prec))
    if isinstance(value, Fraction):
        return round(value * (1 << prec))
    if hasattr(value, "_mpf_"):  # an mpf of any mpmath context
        return int(to_fixed(value._mpf_, prec))
    if isinstance(value, sympy.Basic):
        if isinstance(value, sympy.Rational):
            return round(Fraction(int(value.p), int(value.q)) * (1 << prec))
        scaled = (value * sympy.Integer(2) ** prec).evalf(int(prec * 0.302) + 20)
        if not scaled.is_finite or not scaled.is_real:
            raise InvalidInput("value", "a finite real number", str(value))
        return int(sympy.Integer(sympy.floor(scaled + sympy.Rational(1, 2))))
    raise InvalidInput("value", "a real number", type(value).__name__)


def to_fixed_array(values, prec: int) -> np.ndarray:
    """Elementwise :func:`to_fixed_scalar` into an object array."""
    arr = np.asarray(values, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for idx in np.ndindex(arr.shape):
        out[idx] = to_fixed_scalar(arr[idx], prec)
    return out


def zeros(shape: tuple[int, ...]) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    out.fill(0)
    return out


def fixed_exp(values: np.ndarray, prec: int) -> np.ndarray:
    """Elementwise ``exp`` of a fixed-point array, correctly rounded by mpmath's kernel."""
    out = np.empty(values.shape, dtype=object)
    for idx in np.ndindex(values.shape):
        out[idx] = int(to_fixed(mpf_exp(from_man_exp(int(values[idx]), -prec), prec + 8), prec))
    return out


def renormalize_rows(X: np.ndarray, prec: int) -> np.ndarray:
    """``x / |x|`` for every row of a fixed-point ``(N, d)`` array (exact integer square root,
    so the result has norm 1 to within one unit in the last place)."""
    out = np.empty(X.shape, dtype=object)
    for i in range(X.shape[0]):
        sq = sum(int(v) * int(v) for v in X[i])
        norm = math.isqrt(sq)
        if norm == 0:
            raise InvalidInput(f"tokens[{i}]", "a nonzero vector", "zero at the working precision")
        for a in range(X.shape[1]):
            out[i, a] = (int(X[i, a]) << prec) // norm
    return out


def max_abs(X: np.ndarray) -> int:
    return max((abs(int(v)) for v in X.flat), default=0)


def log2_size(value: int, prec: int) -> float:
    """``log2 |value / 2^prec|`` without overflow (``-inf`` for zero)."""
    if value == 0:
        return -math.inf
    bits = abs(value).bit_length()
    top = abs(value) >> max(bits - 53, 0)
    return math.log2(top) + max(bits - 53, 0) - prec


def to_float_array(X: np.ndarray, prec: int) -> np.ndarray:
    return np.vectorize(lambda v: math.ldexp(float(int(v)), -prec) if abs(int(v)).bit_length() < 1000
                        else float(Fraction(int(v), 1 << prec)), otypes=[float])(X)


def to_mpf_array(X: np.ndarray, prec: int, ctx: mpmath.MPContext) -> np.ndarray:
    out = np.empty(X.shape, dtype=object)
    for idx in np.ndindex(X.shape):
        out[idx] = ctx.mpf((int(X[idx]), -prec))
    return out
