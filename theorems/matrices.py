"""Time-dependent matrices ``P^h(t)`` and ``U^h(t)`` of the continuous model (SPEC §1).

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
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import sympy

from .expressions import is_exact, t


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
    return [[int(v) if isinstance(v, sympy.Integer) else str(v) for v in m.row(i)] for i in range(m.rows)]


@dataclass(frozen=True, eq=False)
class ConstantMatrix(MatrixSchedule):
    """A constant matrix. ``exact`` is the SymPy matrix when every entry is exact, else ``None``."""

    array: np.ndarray
    exact: sympy.Matrix | None = None
    kind: str = field(default="constant", init=False)

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
        return {"kind": "expression", "entries": [[str(v) for v in self.expr.row(i)] for i in range(self.dim)]}


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

    @property
    def time_invariant(self) -> bool:
        first = self.arrays[0]
        return all(np.array_equal(first, a) for a in self.arrays[1:]) and all(
            (m.exact is None) == (self.layers[0].exact is None) for m in self.layers)

    def to_json(self) -> object:
        return {"kind": "stack", "dt": self.dt, "periodic": self.periodic,
                "interpolation": self.interpolation, "layers": [m.to_json() for m in self.layers]}
