"""Dormand–Prince 8(5,3) in float64, vectorised over a batch, with per-instance step control.

The tableau and the error norm are those of Hairer's DOP853 (as in SciPy's ``DOP853``), so at
equal ``rtol``/``atol`` the local error control matches SciPy's.  Differences, all deliberate:

* every instance of the batch has its own time and step size; one field evaluation serves all
  instances still running, so a batch costs one vectorised call per stage;
* after each accepted step every token is renormalised, ``x <- x/|x|`` (the exact flow stays on
  the sphere, so this only removes drift);
* steps are shortened to land exactly on the sample times (no dense output).

``error_estimate`` is the sum over accepted steps of the largest local error estimate (the
8th-order/5th-order difference); it is an estimate of the accumulated error, not a bound.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Sequence, final

import numpy as np

from theorems.errors import InvalidInput
from theorems.system import AttentionSystem

from . import _dop853_tableau as tab
from .field import BatchedField, project_to_sphere
from .trajectory import Integrator, Precision, Progress, RunStatus, Stats, Trajectory, as_systems, sample_times

_S = tab.N_STAGES
_A = [np.ascontiguousarray(tab.A[i, :i]) for i in range(_S + 1)]
_C = tab.C[:_S]
_B = tab.B
_E3 = tab.E3[:_S]
_E5 = tab.E5[:_S]
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_EXPONENT = -1.0 / 8.0


@final
@dataclass(frozen=True)
class DOP853(Integrator):
    rtol: float = 1e-10
    atol: float = 1e-12
    max_steps: int = 1_000_000
    first_step: float | None = None
    name: str = "dop853"

    def __post_init__(self) -> None:
        for label, v in (("rtol", self.rtol), ("atol", self.atol)):
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise InvalidInput(label, "a positive finite tolerance", v)
        if self.rtol < 1e-15:
            raise InvalidInput("rtol", "at least 1e-15 (float64 cannot do better; use TaylorMP for more digits)", self.rtol)
        if isinstance(self.max_steps, bool) or not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise InvalidInput("max_steps", "a positive integer", self.max_steps)
        if self.first_step is not None and not (math.isfinite(self.first_step) and self.first_step > 0):
            raise InvalidInput("first_step", "a positive finite number or None", self.first_step)

    def _initial_step(self, field: BatchedField, X: np.ndarray, f0: np.ndarray, t_end: float) -> np.ndarray:
        """Hairer's starting-step heuristic, per instance (as SciPy's ``select_initial_step``)."""
        if self.first_step is not None:
            return np.full(X.shape[0], float(self.first_step))
        n = X.shape[1] * X.shape[2]
        scale = self.atol + np.abs(X) * self.rtol
        d0 = np.sqrt(np.sum((X / scale) ** 2, axis=(1, 2)) / n)
        d1 = np.sqrt(np.sum((f0 / scale) ** 2, axis=(1, 2)) / n)
        h0 = np.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / np.maximum(d1, 1e-300))
        X1 = X + h0[:, None, None] * f0
        f1 = field(h0, X1)
        d2 = np.sqrt(np.sum(((f1 - f0) / scale) ** 2, axis=(1, 2)) / n) / h0
        big = np.maximum(d1, d2)
        h1 = np.where(big <= 1e-15, np.maximum(1e-6, h0 * 1e-3), (0.01 / np.maximum(big, 1e-300)) ** (1 / 8))
        return np.minimum(np.minimum(100 * h0, h1), t_end)

    def integrate(self, systems: AttentionSystem | Sequence[AttentionSystem], t_end: float, *,
                  samples: int | None = 101, t_eval: Sequence[float] | None = None,
                  progress: Progress | None = None) -> Trajectory:
        start = time.perf_counter()
        field = BatchedField.of(as_systems(systems))
        grid = sample_times(t_end, samples, t_eval)
        breaks = field.breakpoints(float(grid[-1]))
        stops = np.union1d(grid, breaks)
        slot = np.searchsorted(grid, stops)
        is_sample = grid[np.minimum(slot, grid.shape[0] - 1)] == stops
        is_break = np.isin(stops, breaks)
        X = project_to_sphere(field.initial_state())
        B, N, d = X.shape
        out = np.empty((grid.shape[0], B, N, d))
        out[0] = X
        nxt = np.ones(B, dtype=int)
        t = np.zeros(B)
        f = field(t, X)
        h = self._initial_step(field, X, f, float(grid[-1]))
        evaluations = 2 * B
        steps = rejected = 0
        step_rejected = np.zeros(B, dtype=bool)
        local_error = 0.0
        status = RunStatus.SUCCESS
        last_report = -1.0
        while True:
            active = np.flatnonzero(nxt < stops.shape[0])
            if active.size == 0:
                break
            if steps + rejected >= self.max_steps:
                status = RunStatus.MAX_STEPS
                break
            idx = None if active.size == B else active
            ta, Xa, fa = (t, X, f) if idx is None else (t[idx], X[idx], f[idx])
            target = stops[nxt[active]]
            room = target - ta
            ha = np.minimum(h[active], room)
            lands = h[active] >= room
            if np.any(ha <= 1e-14 * np.maximum(1.0, np.abs(ta))):
                status = RunStatus.STEP_TOO_SMALL
                break
            # A step ending on a breakpoint must see the schedule of the interval it covers.
            limit = np.where(lands & is_break[nxt[active]], np.nextafter(target, -np.inf), np.inf)
            Ka = np.empty((_S,) + Xa.shape)
            Kf = Ka.reshape(_S, -1)  # a view: stage combinations are one matrix-vector product
            shape = Xa.shape
            Ka[0] = fa
            hb = ha[:, None, None]
            for s in range(1, _S):
                dy = (_A[s] @ Kf[:s]).reshape(shape)
                Ka[s] = field(np.minimum(ta + _C[s] * ha, limit), Xa + hb * dy, idx)
            Xn = Xa + hb * (_B @ Kf).reshape(shape)
            fn = field(np.minimum(ta + ha, limit), Xn, idx)
            evaluations += _S * active.size
            scale = self.atol + np.maximum(np.abs(Xa), np.abs(Xn)) * self.rtol
            err5 = (_E5 @ Kf).reshape(shape)
            err3 = (_E3 @ Kf).reshape(shape)
            e5 = np.sum((err5 / scale) ** 2, axis=(1, 2))
            e3 = np.sum((err3 / scale) ** 2, axis=(1, 2))
            denom = e5 + 0.01 * e3
            norm = np.where(denom > 0, ha * e5 / np.sqrt(np.where(denom > 0, denom, 1.0) * (N * d)), 0.0)
            accept = norm < 1.0
            with np.errstate(divide="ignore"):
                factor = np.where(norm == 0, _MAX_FACTOR, _SAFETY * norm ** _EXPONENT)
            factor = np.where(accept, np.minimum(_MAX_FACTOR, factor), np.maximum(_MIN_FACTOR, factor))
            sr = step_rejected[active]
            factor = np.where(accept & sr, np.minimum(1.0, factor), factor)
            new_h = ha * factor
            new_h = np.where(accept & lands, np.maximum(new_h, np.minimum(h[active], new_h * _MAX_FACTOR)), new_h)
            h[active] = new_h
            step_rejected[active] = ~accept
            acc = active[accept]
            steps += acc.size
            rejected += active.size - acc.size
            if acc.size:
                Xn_acc = project_to_sphere(Xn[accept])
                a5, a3 = np.abs(err5[accept]), np.abs(err3[accept])
                with np.errstate(invalid="ignore", divide="ignore"):
                    size = np.abs(ha[accept])[:, None, None] * np.nan_to_num(a5 * a5 / np.sqrt(a5 * a5 + 0.01 * a3 * a3))
                local_error += float(np.max(size))
                X[acc] = Xn_acc
                f[acc] = fn[accept]
                t[acc] = np.where(lands[accept], target[accept], ta[accept] + ha[accept])
                hit = acc[lands[accept]]
                if hit.size:
                    crossed = hit[is_break[nxt[hit]]]
                    if crossed.size:
                        f[crossed] = field(t[crossed], X[crossed], crossed)
                        evaluations += crossed.size
                    keep = hit[is_sample[nxt[hit]]]
                    out[slot[nxt[keep]], keep] = X[keep]
                    nxt[hit] += 1
            if progress is not None:
                frac = float(np.min(t) / stops[-1])
                if frac - last_report >= 0.01:
                    progress(frac)
                    last_report = frac
        if progress is not None and status is RunStatus.SUCCESS and last_report < 1.0:
            progress(1.0)
        reached = int(np.count_nonzero(is_sample[:int(np.min(nxt))]))
        return Trajectory(self.name, grid[:reached], out[:reached],
                          Stats(steps, rejected, evaluations, time.perf_counter() - start),
                          Precision("float64", 53, None, "numpy"), local_error,
                          "sum of DOP853 local error estimates (not a bound)", status)
