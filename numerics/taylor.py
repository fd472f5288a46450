"""Arbitrary-precision Taylor-series integrator (automatic differentiation of eq. 5).

Around each step's start the solution is expanded, ``X(t0 + s) = sum_k X_k s^k``, and the
coefficients follow from the field by the classical recurrences of automatic differentiation
(Moore; Jorba & Zou, *Exp. Math.* 14, 2005): for every head ``h``

    Y_k = sum_m X_m (beta P_{k-m})^T              S_k = sum_m X_m Y_{k-m}^T      (S_ij = beta <x_i, P x_j>)
    E_0 = exp(S_0),  E_k = (1/k) sum_{m=1..k} m S_m o E_{k-m}                      (E = exp S, elementwise)
    Z_k = sum_j E_k[:, j],  T_k = sum_m E_m W_{k-m}  with W = X U^T
    G_k = (T_k - sum_{m=1..k} Z_m G_{k-m}) / Z_0                                  (G = E W / Z: the softmax)
    F_k = sum_h G^h_k - sum_m X_m o R_{k-m},  R_k = sum_m <X_m, G_{k-m}> row-wise  (the projection)
    X_{k+1} = F_k / (k + 1).

Arithmetic is binary fixed point on exact Python integers (:mod:`numerics.fixed_point`) with
``prec`` fractional bits, so precision is an explicit argument and is recorded in the result;
``mpmath`` (gmpy2 backend when installed) is used only for ``exp`` and conversions, through
private contexts.  High orders, whose terms are below ``eps^(1/2)`` or so, need only float64
accuracy and are computed in float64 (:mod:`numerics.taylor_recurrence` explains why this is
safe); this halves the cost at 30 digits and matters less as digits grow.  The step is Jorba–Zou's: ``h = min_j (eps / |X_j|)^(1/j)`` over the last two
orders, so the last term kept is about ``eps``; steps also end at sample times and layer
boundaries.  After each step every token is renormalised at working precision.

Error estimate: with ``check=True`` (default) the run is repeated with 8 more digits and a higher
order, and the estimate is the largest difference at the samples; otherwise the sum of the
local truncation estimates (last terms kept).  Both are estimates, not enclosures: an
enclosure would need interval arithmetic (python-flint's ``arb``), which this module does not do.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final

import mpmath
import numpy as np

from theorems.errors import InvalidInput
from theorems.system import AttentionSystem

from .fixed_point import log2_size, max_abs, renormalize_rows, to_fixed_array, to_fixed_scalar, to_float_array, to_mpf_array
from .schedule_series import ScheduleSeries
from .taylor_recurrence import float_switch, float_tail_to_fixed, taylor_coefficients
from .trajectory import Integrator, Precision, Progress, RunStatus, Stats, Trajectory, as_systems, sample_times

_LN10 = math.log(10.0)


def default_order(digits: int) -> int:
    """Jorba–Zou's optimal order for local tolerance ``10^-(digits+2)``: about ``ln(1/eps)/2``."""
    return max(8, math.ceil((digits + 2) * _LN10 / 2) + 2)


def working_bits(digits: int, order: int, N: int, d: int) -> int:
    """Fraction bits: the requested digits plus guard bits for rounding in the recurrences."""
    return math.ceil(digits * math.log2(10)) + 24 + math.ceil(math.log2(order * N * d + 2))


def _head_series(P_coeffs, beta_fix: int, prec: int):
    return tuple(np.ascontiguousarray(((c * beta_fix) >> prec).T) for c in P_coeffs)


def _horner(exact: np.ndarray, tail: np.ndarray | None, switch: int, h_fix: int, prec: int) -> np.ndarray:
    """``sum_k X_k h^k``: exact orders by Horner in fixed point, float64 orders summed in float64
    (their total is below ``eps^(switch/K)``) and converted exactly."""
    acc = exact[-1].copy()
    for k in range(exact.shape[0] - 2, -1, -1):
        acc = exact[k] + ((acc * h_fix) >> prec)
    if tail is not None:
        hx = h_fix / (1 << prec)
        powers = hx ** np.arange(switch, switch + tail.shape[0])
        acc = acc + float_tail_to_fixed(np.tensordot(powers, tail, axes=1), prec)
    return acc


def _last_sizes(exact: np.ndarray, tail: np.ndarray | None, order: int, prec: int) -> list[tuple[int, float]]:
    """``(j, log2 |X_j|_max)`` for the last two orders."""
    out = []
    for j in (order - 1, order):
        if tail is not None and j >= order + 1 - tail.shape[0]:
            m = float(np.max(np.abs(tail[j - (order + 1 - tail.shape[0])])))
            out.append((j, math.log2(m) if m > 0 else -math.inf))
        else:
            out.append((j, log2_size(max_abs(exact[j]), prec)))
    return out


@dataclass(frozen=True)
class _Run:
    samples: list
    steps: int
    local_error: float
    prec: int
    status: RunStatus


@final
@dataclass(frozen=True)
class TaylorMP(Integrator):
    """Arbitrary-precision Taylor series integrator of eq. 5 (mpmath, ``digits`` significant digits;
    the Taylor coefficients of the field by the recurrences of :mod:`numerics.taylor_recurrence`),
    adaptive order (default ``order``: from ``digits``) and steps up to ``max_step``. ``check``
    repeats the run with more digits and a higher order and reports the largest difference as the
    error estimate. Not guaranteed: a rigorous enclosure (an estimate from two runs, not a bound)."""
    digits: int = 30
    order: int | None = None
    check: bool = True
    max_steps: int = 100_000
    max_step: float = 1.0
    name: str = "taylor-mp"

    def __post_init__(self) -> None:
        if isinstance(self.digits, bool) or not isinstance(self.digits, int) or not 5 <= self.digits <= 2000:
            raise InvalidInput("digits", "an integer between 5 and 2000", self.digits)
        if self.order is not None and (isinstance(self.order, bool) or not isinstance(self.order, int) or not 2 <= self.order <= 400):
            raise InvalidInput("order", "an integer between 2 and 400, or None for the default", self.order)
        if isinstance(self.max_steps, bool) or not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise InvalidInput("max_steps", "a positive integer", self.max_steps)
        if not (isinstance(self.max_step, (int, float)) and 0 < self.max_step <= 1):
            raise InvalidInput("max_step", "a number in (0, 1] (fixed-point coefficients assume steps <= 1)", self.max_step)

    def _run(self, system: AttentionSystem, grid: np.ndarray, digits: int, order: int,
             progress: Progress | None) -> _Run:
        prec = working_bits(digits, order, system.N, system.d)
        one = 1 << prec
        beta_fix = to_fixed_scalar(system.beta, prec)
        P_series = [ScheduleSeries(h.P, prec, order) for h in system.heads]
        eye = np.eye(system.d)
        U_series = [None if (h.U.time_invariant and np.array_equal(h.U.at(0.0), eye)) else ScheduleSeries(h.U, prec, order)
                    for h in system.heads]
        source = system.tokens_exact.tolist() if system.tokens_exact is not None else system.tokens.tolist()
        X = renormalize_rows(to_fixed_array(source, prec), prec)
        log2_eps = -(digits + 2) * math.log2(10)
        grid_fix = [to_fixed_scalar(float(g), prec) for g in grid]
        t_fix = 0
        samples = [X]
        steps, local_error, status = 0, 0.0, RunStatus.SUCCESS
        max_step_fix = to_fixed_scalar(float(self.max_step), prec)
        cache: dict[int, tuple] = {}
        for target in grid_fix[1:]:
            while t_fix < target:
                if steps >= self.max_steps:
                    return _Run(samples, steps, local_error, prec, RunStatus.MAX_STEPS)
                t0 = Fraction(t_fix, one)
                heads, horizon = [], None
                for h, (ps, us) in enumerate(zip(P_series, U_series)):
                    pp = ps.at(t0)
                    up = None if us is None else us.at(t0)
                    key = h if (pp.constant and (up is None or up.constant) and pp.horizon is None
                                and (up is None or up.horizon is None)) else None
                    if key is not None and key in cache:
                        heads.append(cache[key])
                        continue
                    entry = (_head_series(pp.coefficients, beta_fix, prec),
                             None if up is None else tuple(np.ascontiguousarray(c.T) for c in up.coefficients))
                    if key is not None:
                        cache[key] = entry
                    heads.append(entry)
                    for piece in (pp, up):
                        if piece is not None and piece.horizon is not None:
                            horizon = piece.horizon if horizon is None else min(horizon, piece.horizon)
                exact, tail, switch = taylor_coefficients(X, heads, order, prec, system.mask == "causal",
                                                          float_switch(order, -log2_eps))
                sizes = _last_sizes(exact, tail, order, prec)
                log2_h = min(((log2_eps - size) / j for j, size in sizes if size > -math.inf), default=0.0)
                h_fix = min(int(2.0 ** min(log2_h, 0.0) * 0.95 * one), max_step_fix, target - t_fix)
                if horizon is not None:
                    h_fix = min(h_fix, math.ceil(horizon * one))
                if h_fix <= 0 or (h_fix < one >> (prec - 8) and h_fix < target - t_fix):
                    return _Run(samples, steps, local_error, prec, RunStatus.STEP_TOO_SMALL)
                hx = h_fix / one
                local_error += max(2.0 ** (size + j * math.log2(hx)) for j, size in sizes)
                X = renormalize_rows(_horner(exact, tail, switch, h_fix, prec), prec)
                t_fix += h_fix
                steps += 1
                if progress is not None:
                    progress(min(1.0, t_fix / grid_fix[-1]))
            samples.append(X)
        return _Run(samples, steps, local_error, prec, status)

    def integrate(self, systems: AttentionSystem | Sequence[AttentionSystem], t_end: float, *,
                  samples: int | None = 101, t_eval: Sequence[float] | None = None,
                  progress: Progress | None = None) -> Trajectory:
        start = time.perf_counter()
        batch = as_systems(systems)
        grid = sample_times(t_end, samples, t_eval)
        order = self.order or default_order(self.digits)
        runs = [self._run(s, grid, self.digits, order, progress) for s in batch]
        status = next((r.status for r in runs if r.status is not RunStatus.SUCCESS), RunStatus.SUCCESS)
        reached = min(len(r.samples) for r in runs)
        prec = runs[0].prec
        ctx = mpmath.MPContext()
        ctx.prec = prec
        states = np.stack([np.stack([to_float_array(r.samples[k], prec) for r in runs]) for k in range(reached)])
        states_mp = tuple(np.stack([to_mpf_array(r.samples[k], prec, ctx) for r in runs]) for k in range(reached))
        steps = sum(r.steps for r in runs)
        if self.check and status is RunStatus.SUCCESS:
            fine_digits = self.digits + 8
            fine_order = order + 6
            error = 0.0
            for s, r in zip(batch, runs):
                ref = self._run(s, grid, fine_digits, fine_order, None)
                shift = ref.prec - r.prec
                for a, b in zip(r.samples, ref.samples):
                    diff = max(abs((int(u) << shift) - int(v)) for u, v in zip(a.flat, b.flat))
                    error = max(error, 2.0 ** log2_size(diff, ref.prec) if diff else 0.0)
            kind = f"largest difference from a run with {fine_digits} digits and order {fine_order}"
        else:
            error = max(r.local_error for r in runs)
            kind = "sum of local truncation estimates (last Taylor terms kept)"
        stats = Stats(steps, 0, steps * order, time.perf_counter() - start)
        precision = Precision("fixed-point", prec, self.digits, f"python-int; mpmath {mpmath.__version__} ({mpmath.libmp.BACKEND})")
        return Trajectory(self.name, grid[:reached], states, stats, precision, error, kind, status, states_mp)
