"""Reading the matrices ``P^h`` and ``U^h`` of an instance (docs/format.md): the one path from JSON
values, and from schedules built in Python (:func:`admit_schedule`), to checked schedules.

A matrix (or a whole layer stack) with any exact entry is exact data: its JSON floats are read as
the binary rationals they denote, never rounded next to an exact entry; an all-float matrix is
float data.  Every string entry goes through the one safe parser and its domain conditions
(:mod:`theorems.expressions`).
"""
from __future__ import annotations

import difflib
import math
from typing import Any

import numpy as np
import sympy

from .errors import InvalidInput, InvalidType
from .expressions import all_float, exact_value, parse_entry
from .matrices import ConstantMatrix, LayerStack, MatrixSchedule, SymbolicMatrix, mark_read, was_read

STACK_KEYS = {"kind", "layers", "dt", "periodic", "interpolation"}
EXPR_KEYS = {"kind", "entries"}


def check_keys(obj: dict, allowed: set[str], field: str) -> None:
    for key in obj:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
            hint = f"Did you mean {close[0]!r}?" if close else f"Allowed keys: {', '.join(sorted(allowed))}"
            raise InvalidInput(f"{field}{'.' if field else ''}{key}", "a known key", key, hint)


def read_schedule(value: Any, d: int, field: str) -> MatrixSchedule:
    if isinstance(value, str):
        if value == "identity":
            return mark_read(ConstantMatrix.identity(d))
        if value == "zero":
            return mark_read(ConstantMatrix.from_sympy(sympy.zeros(d, d)))
        raise InvalidInput(field, "a matrix, 'identity', 'zero' or an object with \"kind\"", value)
    if isinstance(value, dict):
        kind = value.get("kind")
        if kind == "stack":
            return _stack(value, d, field)
        if kind in ("expression", "constant"):
            check_keys(value, EXPR_KEYS, field)
            if "entries" not in value:
                raise InvalidInput(f"{field}.entries", "a d x d list of entries", None)
            return _entries(value["entries"], d, f"{field}.entries", not all_float(value["entries"]))
        raise InvalidInput(f"{field}.kind", "'constant', 'expression' or 'stack'", kind)
    return _entries(value, d, field, not all_float(value))


def _entries(value: Any, d: int, field: str, exact: bool) -> MatrixSchedule:
    """A ``d x d`` matrix; ``exact``: the matrix (or its stack) holds an exact entry, so its floats
    are read as the binary rationals they denote (docs/format.md, Numbers)."""
    if not isinstance(value, list) or len(value) != d:
        got = f"{len(value)} rows" if isinstance(value, list) else value
        raise InvalidInput(field, f"a {d}x{d} matrix (list of {d} rows)", got)
    rows = []
    for i, row in enumerate(value):
        if not isinstance(row, list) or len(row) != d:
            got = f"{len(row)} entries" if isinstance(row, list) else row
            raise InvalidInput(f"{field}[{i}]", f"a row of {d} entries", got)
        rows.append([parse_entry(v, f"{field}[{i}][{j}]", exact_floats=exact) for j, v in enumerate(row)])
    m = sympy.ImmutableMatrix([[e for e, _ in row] for row in rows])
    open_conditions = tuple(f"[{i}][{j}]: {c}" for i, row in enumerate(rows) for j, (_, cs) in enumerate(row) for c in cs)
    if m.free_symbols or open_conditions:
        return mark_read(SymbolicMatrix(m, open_conditions))
    return mark_read(ConstantMatrix.from_sympy(m))


def _stack(value: dict, d: int, field: str) -> LayerStack:
    check_keys(value, STACK_KEYS, field)
    layers = value.get("layers")
    if not isinstance(layers, list) or not layers:
        raise InvalidInput(f"{field}.layers", "a non-empty list of d x d matrices", layers)
    mats = []
    exact = not all_float(layers)  # one exact entry anywhere in the stack: every layer is exact data
    for k, layer in enumerate(layers):
        m = _entries(layer, d, f"{field}.layers[{k}]", exact)
        if not isinstance(m, ConstantMatrix):
            raise InvalidInput(f"{field}.layers[{k}]", "a constant matrix (no t in a layer)", layer)
        mats.append(m)
    dt = value.get("dt", 1.0)
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not math.isfinite(dt) or dt <= 0:
        raise InvalidInput(f"{field}.dt", "a positive finite number (layer duration)", dt)
    periodic = value.get("periodic", True)
    if not isinstance(periodic, bool):
        raise InvalidInput(f"{field}.periodic", "true or false", periodic)
    interp = value.get("interpolation", "constant")
    if interp not in ("constant", "linear"):
        raise InvalidInput(f"{field}.interpolation", "'constant' or 'linear'", interp)
    return mark_read(LayerStack(tuple(mats), float(dt), periodic, interp))


def admit_schedule(m: object, d: int, field: str) -> MatrixSchedule:
    """The one constructor path for schedules built in Python (docs/api.md): a schedule the reader
    built is kept; any other is re-read from its exact JSON form through the same reader and domain
    checks as a file (``SymbolicMatrix(sympify("(t^2-1)/(t-1) - t"))`` is refused, as in a file);
    float data are checked for shape, finiteness and magnitude.  Anything else is refused."""
    if was_read(m):
        if m.dim != d:
            raise InvalidInput(field, f"a {d}x{d} matrix", f"{m.dim}x{m.dim}")
        return m
    if isinstance(m, ConstantMatrix) and m.exact is None:
        return _entries(m.array.tolist(), d, field, False)
    if isinstance(m, (ConstantMatrix, SymbolicMatrix, LayerStack)):
        return read_schedule(m.to_json(), d, field)
    if isinstance(m, (list, np.ndarray, sympy.MatrixBase)):
        return read_schedule(plain(m), d, field)
    raise InvalidType(field, "a ConstantMatrix, SymbolicMatrix, LayerStack or a d x d matrix", type(m).__name__)


def plain(x: Any) -> Any:
    """Convert SymPy / numpy data to the JSON-like form the reader accepts."""
    if isinstance(x, (str, int, float, dict)) or x is None:
        return x
    if isinstance(x, sympy.MatrixBase):
        return [[plain(v) for v in x.row(i)] for i in range(x.rows)]
    if isinstance(x, np.ndarray):
        return [plain(v) for v in x.tolist()] if x.dtype == object else x.tolist()
    if isinstance(x, sympy.Integer):
        return int(x)
    if isinstance(x, sympy.Float):  # float data; a Float wider than a double stays exact data
        return float(x) if x._prec <= 53 else str(sympy.Rational(x))
    if isinstance(x, sympy.Basic):
        return str(exact_value(x))  # a Float inside an expression: the binary rational it holds
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, ConstantMatrix):
        return x.to_json()
    return x


__all__ = ["admit_schedule", "check_keys", "plain", "read_schedule"]
