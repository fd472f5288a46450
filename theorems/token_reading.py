"""Reading the initial tokens of an instance (docs/format.md, Numbers): one exact reading.

* **Float data** (every entry of the token list a JSON float): the float array as given; a token
  must have ``| |x|^2 - 1 | <= TOKEN_NORM_TOL`` (decimal round-off), decisions read the floats
  as the binary rationals they hold, and no witness about them is labelled exact.
* **Exact data** (any int or string anywhere in the list): every entry is exact, a float as the
  binary rational it denotes, and every decision runs on those values.  An all-exact token must
  have norm exactly 1.  A token that contains a float and is within ``TOKEN_NORM_TOL`` of the
  sphere without being on it exactly (``[0.6, 0.8, 0]``: ``0.6^2 + 0.8^2 != 1`` in binary) is
  the direction written: it is divided by its exact norm (an algebraic number), never rounded,
  and its index is recorded in ``rescaled``.
* ``"normalize_tokens": true`` rescales every token, exactly for exact data.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from .errors import InvalidInput
from .expressions import all_float, parse_entry
from .system import TOKEN_NORM_TOL


@dataclass(frozen=True)
class TokensRead:
    array: np.ndarray
    exact: sympy.ImmutableMatrix | None
    rescaled: tuple[int, ...] = ()
    """0-based tokens of exact data divided by their exact norm (written with floats, off the
    sphere by at most ``TOKEN_NORM_TOL``)."""


def unit_direction(row: list[sympy.Expr]) -> list[sympy.Expr]:
    """``x / |x|`` exactly (``|x|`` an algebraic number; never rounded)."""
    norm = sympy.sqrt(sum((v ** 2 for v in row), sympy.Integer(0)))
    return [sympy.radsimp(v / norm) for v in row]


def read_tokens(value: Any, d: int, normalize: bool) -> TokensRead:
    if not isinstance(value, list) or not value:
        raise InvalidInput("tokens", "a non-empty list of vectors", value)
    exact = not all_float(value)
    rows, has_float = [], []
    for i, x in enumerate(value):
        if not isinstance(x, list) or len(x) != d:
            got = f"{len(x)} entries" if isinstance(x, list) else x
            raise InvalidInput(f"tokens[{i}]", f"a vector of length d={d}", got)
        row = []
        for j, v in enumerate(x):
            expr, open_conditions = parse_entry(v, f"tokens[{i}][{j}]", exact_floats=exact)
            if open_conditions:
                raise InvalidInput(f"tokens[{i}][{j}]", "an expression proven defined", v,
                                   "Open: " + "; ".join(open_conditions))
            if expr.free_symbols:
                raise InvalidInput(f"tokens[{i}][{j}]", "a number (tokens do not depend on t)", v)
            row.append(expr)
        if all(e == 0 for e in row):
            raise InvalidInput(f"tokens[{i}]", "a nonzero vector", x)
        rows.append(row)
        has_float.append(any(isinstance(v, float) for v in x))
    if not exact:
        arr = np.array([[float(v) for v in row] for row in rows], dtype=float)
        if normalize:
            arr /= np.linalg.norm(arr, axis=1, keepdims=True)
        return TokensRead(arr, None)
    rescaled = []
    for i, row in enumerate(rows):
        if normalize:
            rows[i] = unit_direction(row)
        elif has_float[i] and _near_unit_not_unit(row):
            rows[i] = unit_direction(row)
            rescaled.append(i)
    m = sympy.ImmutableMatrix(rows)
    arr = np.array(m.evalf(20).tolist(), dtype=float)
    return TokensRead(arr, m, tuple(rescaled))


def _near_unit_not_unit(row: list[sympy.Expr]) -> bool:
    """A row of rationals whose exact ``|x|^2`` is not 1 but within ``TOKEN_NORM_TOL`` of it.
    Rows with irrational entries are left to the exact unit check of :class:`AttentionSystem`."""
    if not all(isinstance(v, sympy.Rational) for v in row):
        return False
    n2 = sum((v * v for v in row), sympy.Integer(0))
    return n2 != 1 and abs(n2 - 1) <= sympy.Rational(TOKEN_NORM_TOL)


__all__ = ["TokensRead", "read_tokens", "unit_direction"]
