"""Time-dependent matrices ``P^h(t)`` and ``U^h(t)`` of the continuous model (docs/model.md §1).

Three concrete schedules behind one small interface:

* :class:`ConstantMatrix` — exact (SymPy, rationals or algebraic numbers) or float data;
* :class:`SymbolicMatrix` — entries are SymPy expressions in ``t``;
* :class:`LayerStack` — one constant matrix per layer of duration ``dt``, either held constant on
  each layer or linearly interpolated, and either periodic (cycled for ever, as trained weights
  re-fed through a model) or ending in its last layer.

All classes are final and immutable; heavy work (lambdify) happens lazily on first evaluation.
"""
from __future__ import annotations

import abc
import weakref
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import sympy

from .enclosure import constant_interval
from .expressions import exact_value, is_exact, t

_READ: "weakref.WeakSet[MatrixSchedule]" = weakref.WeakSet()
"""Schedules built by the instance reader (:mod:`theorems.system_json`), whose entries passed its
domain and size checks.  Any other schedule is re-read before an :class:`AttentionSystem` holds it."""


def mark_read(m: "MatrixSchedule") -> "MatrixSchedule":
    """Record that ``m`` was built by the reader (reader use only)."""
    _READ.add(m)
    return m


def was_read(m: object) -> bool:
    return m in _READ


class MatrixSchedule(abc.ABC):
    """A ``d x d`` matrix that may depend on the depth-time ``t >= 0``."""

    kind: str

    @property
    @abc.abstractmethod
    def dim(self) -> int: ...

    @abc.abstractmethod
    def at(self, time: float) -> np.ndarray:
        """Float64 value at ``time``."""

    @property
    def time_invariant(self) -> bool:
        return False

    @abc.abstractmethod
    def to_json(self) -> object: ...


def _matrix_json(m: sympy.Matrix | None, array: np.ndarray) -> list[list[object]]:
    if m is None:
        return array.tolist()
    return [[int(v) if isinstance(v, sympy.Integer) else str(exact_value(v)) for v in m.row(i)] for i in range(m.rows)]


@dataclass(frozen=True, eq=False)
class ConstantMatrix(MatrixSchedule):
    """A constant matrix. ``exact`` is the SymPy matrix when every entry is exact, else ``None``."""

    array: np.ndarray
    exact: sympy.Matrix | None = None
    kind: str = field(default="constant", init=False)

    def __post_init__(self) -> None:
        array = np.array(self.array, dtype=float)  # a private, read-only copy: checks made on it stay true
        array.setflags(write=False)
        object.__setattr__(self, "array", array)

    @classmethod
    def from_sympy(cls, m: sympy.Matrix) -> "ConstantMatrix":
        array = np.array(m.evalf(20).tolist(), dtype=float)
        exact = sympy.ImmutableMatrix(m) if all(is_exact(v) for v in m) else None
        return cls(array=array, exact=exact)

    @classmethod
    def from_array(cls, array: np.ndarray) -> "ConstantMatrix":
        return cls(array=np.array(array, dtype=float))

    @classmethod
    def identity(cls, d: int) -> "ConstantMatrix":
        return cls.from_sympy(sympy.eye(d))

    @property
    def dim(self) -> int:
        return int(self.array.shape[0])

    def at(self, time: float) -> np.ndarray:
        return self.array

    @property
    def time_invariant(self) -> bool:
        return True

    def to_json(self) -> object:
        return _matrix_json(self.exact, self.array)


@dataclass(frozen=True, eq=False)
class SymbolicMatrix(MatrixSchedule):
    """A matrix of SymPy expressions in ``t`` (the symbol :data:`theorems.expressions.t`)."""

    expr: sympy.ImmutableMatrix
    open_conditions: tuple[str, ...] = ()
    """Domain conditions of the entries (as written) that the reader could neither prove nor
    refute on ``[0, oo)``; while any is open, every predicate about this matrix is unknown."""
    kind: str = field(default="expression", init=False)

    @property
    def dim(self) -> int:
        return int(self.expr.rows)

    @cached_property
    def _fn(self):
        # constants become floats first (numerics only): numpy cannot take tan(10**20) of an int
        return sympy.lambdify(t, self.expr.evalf(20), modules="numpy")

    def at(self, time: float) -> np.ndarray:
        return np.array(self._fn(float(time)), dtype=float).reshape(self.dim, self.dim)

    @property
    def time_invariant(self) -> bool:
        return not self.expr.free_symbols

    def to_json(self) -> object:
        return {"kind": "expression", "entries": [[str(exact_value(v)) for v in self.expr.row(i)] for i in range(self.dim)]}


@dataclass(frozen=True, eq=False)
class LayerStack(MatrixSchedule):
    """One matrix per layer; layer ``k`` occupies ``[k dt, (k+1) dt)``.

    ``interpolation="constant"`` holds each layer's matrix (a discontinuous schedule);
    ``"linear"`` joins consecutive layers linearly (Lipschitz with constant
    ``max_k |M_{k+1} - M_k| / dt``).  ``periodic=True`` cycles the stack for ever (the last
    layer joins back to the first); otherwise the last matrix is held after the stack ends.
    """

    layers: tuple[ConstantMatrix, ...]
    dt: float = 1.0
    periodic: bool = True
    interpolation: Literal["constant", "linear"] = "constant"
    kind: str = field(default="stack", init=False)

    @property
    def dim(self) -> int:
        return self.layers[0].dim

    @cached_property
    def arrays(self) -> np.ndarray:
        return np.stack([m.array for m in self.layers])

    def _index(self, time: float) -> tuple[int, int, float]:
        k_float = max(float(time), 0.0) / self.dt
        k = int(np.floor(k_float))
        frac = k_float - k
        n = len(self.layers)
        if self.periodic:
            return k % n, (k + 1) % n, frac
        if k >= n - 1:
            return n - 1, n - 1, 0.0
        return k, k + 1, frac

    def at(self, time: float) -> np.ndarray:
        i, j, frac = self._index(time)
        if self.interpolation == "constant" or i == j:
            return self.arrays[i]
        return (1.0 - frac) * self.arrays[i] + frac * self.arrays[j]

    @cached_property
    def time_invariant(self) -> bool:
        """Every layer equal to the first, exactly (exact data compared as SymPy numbers, float data
        bit for bit; float values next to exact ones as the binary rationals they hold)."""
        first = self.layers[0]
        return all(same_values(first, m) for m in self.layers[1:])

    def to_json(self) -> object:
        return {"kind": "stack", "dt": self.dt, "periodic": self.periodic,
                "interpolation": self.interpolation, "layers": [m.to_json() for m in self.layers]}


def exact_entries(m: ConstantMatrix) -> sympy.ImmutableMatrix:
    """The entries as exact SymPy numbers (float data as the binary rationals they hold)."""
    if m.exact is not None:
        return m.exact
    return sympy.ImmutableMatrix([[sympy.Rational(*float(v).as_integer_ratio()) for v in row] for row in m.array])


def equal_number(x: sympy.Expr, y: sympy.Expr) -> bool | None:
    """Three-valued exact equality of two constants: True (equal exactly: rationals, or a difference
    SymPy simplifies to 0), False (rationals that differ, or an arb enclosure of ``x - y`` excluding
    0), None (undecided)."""
    x, y = exact_value(sympy.sympify(x)), exact_value(sympy.sympify(y))
    if x.is_Rational and y.is_Rational:
        return x == y
    diff = x - y
    if diff == 0:
        return True
    iv = constant_interval(diff)
    if iv is not None and iv.excludes_zero():
        return False
    if sympy.count_ops(diff) <= 60 and sympy.simplify(diff) == 0:
        return True
    return None


def compare_values(a: ConstantMatrix, b: ConstantMatrix) -> tuple[bool | None, tuple[int, int] | None]:
    """Exact comparison of two constant matrices of any kind of data (never after rounding):
    ``(True, None)`` equal, ``(False, (i, j))`` an entry proven different, ``(None, (i, j))`` the
    first undecided entry and none proven different."""
    if a.exact is None and b.exact is None:
        # IEEE equality of finite floats is exact equality of the binary rationals they hold
        diff = np.argwhere(a.array != b.array)
        return (True, None) if len(diff) == 0 else (False, (int(diff[0][0]), int(diff[0][1])))
    ea, eb = exact_entries(a), exact_entries(b)
    undecided = None
    for i in range(ea.rows):
        for j in range(ea.cols):
            same = equal_number(ea[i, j], eb[i, j])
            if same is False:
                return False, (i, j)
            if same is None and undecided is None:
                undecided = (i, j)
    return (True, None) if undecided is None else (None, undecided)


def same_values(a: ConstantMatrix, b: ConstantMatrix) -> bool:
    """True only when ``a == b`` is proven exactly (see :func:`compare_values`)."""
    return compare_values(a, b)[0] is True
