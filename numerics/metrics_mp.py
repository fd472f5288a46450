"""The metrics of docs/model.md §4 in arbitrary precision, from the ``mpf`` states of a Taylor run.

A float64 metric of a state near consensus is round-off: ``E_pair = 1 - |mean_i y_i|^2`` of
tokens that agree to 20 digits is ``0`` or a multiple of ``2^-53``.  These functions take the
states that :class:`numerics.taylor.TaylorMP` keeps at working precision
(``Trajectory.states_mp``) and evaluate the same quantities in a private
:class:`mpmath.MPContext` of ``prec`` bits (nothing touches ``mpmath.mp``), written in forms that
do not cancel: with ``y_i = x_i / |x_i|``,

* ``1 - cos(y_a, y_j) = |y_a - y_j|^2 / 2`` and ``1 - |cos(y_a, y_j)| = min(|y_a - y_j|^2, |y_a + y_j|^2) / 2``,
  so ``E_first = mean_j`` of those;
* ``E_pair = 1 - |ybar|^2 = (1/N) sum_i |y_i - ybar|^2`` (``ybar`` the mean of the unit tokens);
* ``V = sum_i |y_1 - y_i|^2 / 2`` (Theorem 4.2's Lyapunov function).

Not guaranteed: the digits are those of the states, which carry the integrator's error estimate
(``Trajectory.error_estimate``, an estimate, not an enclosure); a metric of size ``m`` built from
differences of size ``sqrt(m)`` is accurate to about ``error_estimate * sqrt(m)`` absolutely.
:func:`decimal` prints a value with the run's decimal digits.
"""
from __future__ import annotations

from typing import Sequence

import mpmath
import numpy as np
from mpmath.libmp import to_str

from theorems.errors import InvalidInput

from .evidence import RunSummary
from .metrics import Variant, first_time, first_time_below, fit_rate, hemisphere_margins
from .trajectory import Trajectory


def _context(prec: int) -> mpmath.MPContext:
    if isinstance(prec, bool) or not isinstance(prec, int) or prec < 53:
        raise InvalidInput("prec", "an integer number of bits >= 53", prec)
    ctx = mpmath.MPContext()
    ctx.prec = prec
    return ctx


def _unit_rows(X, ctx: mpmath.MPContext) -> list[list]:
    rows = [[ctx.mpf(v) for v in row] for row in np.asarray(X, dtype=object)]
    if not rows or any(len(r) != len(rows[0]) for r in rows) or not rows[0]:
        raise InvalidInput("X", "one state of shape (N, d) (numbers or mpf)", np.shape(X))
    out = []
    for i, row in enumerate(rows):
        norm = ctx.sqrt(ctx.fsum(v * v for v in row))
        if norm == 0:
            raise InvalidInput(f"X[{i}]", "a nonzero token (cosines are undefined for zero vectors)", "a zero token")
        out.append([v / norm for v in row])
    return out


def _sq_dist(ctx: mpmath.MPContext, a: Sequence, b: Sequence, sign: int = -1):
    return ctx.fsum((u + sign * v) ** 2 for u, v in zip(a, b))


def E_first_mp(X, variant: Variant = "cos", anchor: int = 0, *, prec: int):
    """``E_first`` of one state ``(N, d)`` with ``prec`` bits (module docstring)."""
    if variant not in ("cos", "abs"):
        raise InvalidInput("variant", "'cos' or 'abs'", variant)
    ctx = _context(prec)
    Y = _unit_rows(X, ctx)
    if isinstance(anchor, bool) or not isinstance(anchor, int) or not -len(Y) <= anchor < len(Y):
        raise InvalidInput("anchor", f"a token index below N={len(Y)}", anchor)
    a = Y[anchor]
    if variant == "cos":
        terms = [_sq_dist(ctx, a, y) for y in Y]
    else:
        terms = [min(_sq_dist(ctx, a, y), _sq_dist(ctx, a, y, +1)) for y in Y]
    return ctx.fsum(terms) / (2 * len(Y))


def E_pair_mp(X, *, prec: int):
    """``E_pair = (1/N) sum_i |y_i - ybar|^2`` of one state ``(N, d)`` with ``prec`` bits."""
    ctx = _context(prec)
    Y = _unit_rows(X, ctx)
    N, d = len(Y), len(Y[0])
    mean = [ctx.fsum(y[k] for y in Y) / N for k in range(d)]
    return ctx.fsum(_sq_dist(ctx, y, mean) for y in Y) / N


def V_first_mp(X, *, prec: int):
    """Theorem 4.2's ``V = sum_i (1 - cos(x_1, x_i)) = sum_i |y_1 - y_i|^2 / 2`` with ``prec`` bits."""
    ctx = _context(prec)
    Y = _unit_rows(X, ctx)
    return ctx.fsum(_sq_dist(ctx, Y[0], y) for y in Y) / 2


def decimal(value, digits: int) -> str:
    """``value`` (an ``mpf``) with ``digits`` significant decimal digits, trailing zeros kept."""
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise InvalidInput("digits", "a positive integer", digits)
    return to_str(mpmath.mpmathify(value)._mpf_, digits, strip_zeros=False, min_fixed=0, max_fixed=0)


def trajectory_metrics_mp(traj: Trajectory, instance: int = 0, variant: Variant = "cos") -> dict[str, list]:
    """``E_first``, ``E_pair`` and ``V`` (lists of ``mpf``, one per sample time) of one instance of
    a high-precision trajectory, at its working precision ``traj.precision.bits``."""
    if traj.states_mp is None:
        raise InvalidInput("trajectory", "a high-precision run (states_mp; verify simulate --digits D)",
                           f"a {traj.precision.kind} run of {traj.method}")
    prec = int(traj.precision.bits)
    states = [s[instance] for s in traj.states_mp]
    return {"E_first": [E_first_mp(X, variant, prec=prec) for X in states],
            "E_pair": [E_pair_mp(X, prec=prec) for X in states],
            "V": [V_first_mp(X, prec=prec) for X in states]}


def summarize_mp(traj: Trajectory, instance: int = 0, variant: Variant = "cos", eps: float = 1e-6,
                 hemisphere: bool = True) -> RunSummary:
    """The summary of :func:`numerics.evidence.summarize` for a high-precision run: the final
    metrics as decimal strings with the run's ``digits`` significant digits, the events and the
    fitted rate from the high-precision series (read as floats, whose relative accuracy survives
    far below ``2^-53``; the fit ignores values below ``10^-(digits-3)``, the analogue of float64's
    ``1e-13`` floor).  The hemisphere margin is the float64 measurement of :mod:`numerics.metrics`."""
    digits = traj.precision.digits
    if digits is None:
        raise InvalidInput("trajectory", "a run with a number of decimal digits (precision.digits)", traj.precision.kind)
    series = trajectory_metrics_mp(traj, instance, variant)
    times = traj.times
    floats = {k: np.array([float(v) for v in vals]) for k, vals in series.items()}
    hemi = {}
    if hemisphere:
        margins = hemisphere_margins(traj.states[:, instance])
        hemi = {"hemisphere_margin": float(margins[-1]), "hemisphere_entry": first_time(times, margins > 1e-9),
                "resolution": float(times[1] - times[0]) if times.size > 1 else 0.0}
    E_first, E_pair, V = (decimal(series[k][-1], digits) for k in ("E_first", "E_pair", "V"))
    return RunSummary(variant, float(times[-1]), E_first, E_pair, V, eps,
                      first_time_below(times, floats["E_pair"], eps), first_time_below(times, floats["E_first"], eps),
                      fit_rate(times, floats["E_pair"], floor=10.0 ** -(digits - 3)), **hemi,
                      bits=int(traj.precision.bits), digits=digits)
