"""Taylor coefficients of the schedules ``P^h(t0 + s)`` and ``U^h(t0 + s)`` in ``s``, in fixed point.

* :class:`~theorems.matrices.ConstantMatrix`: one coefficient, exact when the data are exact.
* :class:`~theorems.matrices.LayerStack`: on the current layer the schedule is a polynomial
  (degree 0 for ``"constant"``, 1 for ``"linear"`` interpolation); the returned ``horizon`` is
  the time to the next layer boundary, where the series stops being valid and a step must end.
* :class:`~theorems.matrices.SymbolicMatrix`: each non-constant entry is lambdified onto a
  private ``mpmath`` context and expanded with ``ctx.taylor`` (numerical differentiation at
  raised precision; accurate but the slowest case).

Times are exact dyadic rationals (``Fraction``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import final

import mpmath
import numpy as np
import sympy

from theorems.errors import InvalidInput
from theorems.expressions import t as t_symbol
from theorems.matrices import ConstantMatrix, LayerStack, MatrixSchedule, SymbolicMatrix

from .fixed_point import to_fixed_array, to_fixed_scalar, zeros


@final
@dataclass(frozen=True)
class SeriesPiece:
    """``coefficients[k]`` is the ``(d, d)`` fixed-point coefficient of ``s^k``; a constant
    schedule has exactly one coefficient. ``horizon`` bounds the step (``None``: unbounded)."""

    coefficients: tuple[np.ndarray, ...]
    horizon: Fraction | None

    @property
    def constant(self) -> bool:
        return len(self.coefficients) == 1


def _constant_values(m: ConstantMatrix) -> np.ndarray:
    if m.exact is not None:
        return np.array(m.exact.tolist(), dtype=object)
    return np.array([[float(v) for v in row] for row in m.array], dtype=object)


@final
@dataclass(frozen=True, eq=False)
class ScheduleSeries:
    """Expansion of one schedule at working precision ``prec`` up to ``order``."""

    schedule: MatrixSchedule
    prec: int
    order: int

    @cached_property
    def _constant(self) -> np.ndarray | None:
        if isinstance(self.schedule, ConstantMatrix):
            return to_fixed_array(_constant_values(self.schedule), self.prec)
        if isinstance(self.schedule, SymbolicMatrix) and not self.schedule.expr.free_symbols:
            return to_fixed_array(np.array(self.schedule.expr.tolist(), dtype=object), self.prec)
        return None

    @cached_property
    def _layers(self) -> list[np.ndarray]:
        return [to_fixed_array(_constant_values(m), self.prec) for m in self.schedule.layers]

    @cached_property
    def _context(self) -> mpmath.MPContext:
        ctx = mpmath.MPContext()
        ctx.prec = self.prec + 32
        return ctx

    @cached_property
    def _entry_functions(self):
        ctx = self._context
        names = {"sin": ctx.sin, "cos": ctx.cos, "tan": ctx.tan, "exp": ctx.exp, "log": ctx.log,
                 "sqrt": ctx.sqrt, "tanh": ctx.tanh, "atan": ctx.atan, "sinh": ctx.sinh, "cosh": ctx.cosh,
                 "fabs": ctx.fabs, "mpf": ctx.mpf, "pi": ctx.pi, "e": ctx.e, "E": ctx.e}
        return [[None if not v.free_symbols else sympy.lambdify(t_symbol, v, modules=[names, "mpmath"])
                 for v in self.schedule.expr.row(i)] for i in range(self.schedule.dim)]

    def at(self, t0: Fraction) -> SeriesPiece:
        """The expansion of the schedule around ``t0``."""
        if self._constant is not None:
            return SeriesPiece((self._constant,), None)
        if isinstance(self.schedule, LayerStack):
            return self._stack(t0)
        if isinstance(self.schedule, SymbolicMatrix):
            return self._symbolic(t0)
        raise InvalidInput("schedule", "a ConstantMatrix, LayerStack or SymbolicMatrix", type(self.schedule).__name__)

    def _stack(self, t0: Fraction) -> SeriesPiece:
        stack = self.schedule
        dt = Fraction(stack.dt)
        n = len(stack.layers)
        k = math.floor(t0 / dt)
        horizon = (k + 1) * dt - t0
        if stack.periodic:
            i, j = k % n, (k + 1) % n
        elif k >= n - 1:
            return SeriesPiece((self._layers[n - 1],), None)
        else:
            i, j = k, k + 1
        if stack.interpolation == "constant":
            return SeriesPiece((self._layers[i],), horizon)
        frac = (t0 - k * dt) / dt
        base = np.vectorize(lambda a, b: a + round((b - a) * frac), otypes=[object])(self._layers[i], self._layers[j])
        slope = np.vectorize(lambda a, b: round((b - a) / dt), otypes=[object])(self._layers[i], self._layers[j])
        coefficients = (base, slope) + tuple(zeros(base.shape) for _ in range(max(0, self.order - 1)))
        return SeriesPiece(coefficients[: self.order + 1], horizon)

    def _symbolic(self, t0: Fraction) -> SeriesPiece:
        ctx = self._context
        d = self.schedule.dim
        x0 = ctx.mpf(t0.numerator) / t0.denominator
        coefficients = [zeros((d, d)) for _ in range(self.order + 1)]
        for i, row in enumerate(self._entry_functions):
            for j, fn in enumerate(row):
                if fn is None:
                    coefficients[0][i, j] = to_fixed_scalar(self.schedule.expr[i, j], self.prec)
                    continue
                for k, c in enumerate(ctx.taylor(fn, x0, self.order)):
                    coefficients[k][i, j] = to_fixed_scalar(ctx.mpf(c), self.prec)
        return SeriesPiece(tuple(coefficients), None)
