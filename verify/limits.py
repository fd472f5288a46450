"""Upper limits on the numeric options of the commands and the API calls, so that every command finishes in bounded time.

The limits are checked before any work starts and refused with exit 2 naming the option and
the limit.  They are set from measurements on 2 CPU cores (README, docs/format.md): a
simulation's cost grows like ``samples * N^2 * d * H`` per step, and the number of steps like
``t_end`` (periodic or rotating dynamics never let the step size grow).
"""
from __future__ import annotations

import math
import numbers

from theorems.errors import InvalidInput

MAX_T_END = 5000.0
"""Largest simulation horizon (``--t-end``) of ``verify simulate`` and ``verify theorem``."""
MAX_DIGITS = 200
"""Largest ``--digits`` of the arbitrary-precision Taylor method."""
MAX_SAMPLES = 10_000
"""Largest ``--samples`` (random initial conditions) of ``verify simulate``."""
MAX_POINTS = 100_000
RATE_BASE, RATE_SAMPLE, RATE_WORK = 5.6e-3, 1.0e-3, 5e-7
"""Worst-case seconds of DOP853 per unit of simulated time: ``RATE_BASE + samples * (RATE_SAMPLE +
RATE_WORK * N^2 d H)``, fitted on 2 CPU cores (shared, so noisy) to the slowest cases, periodic
schedules (their step size never grows): N = 12, d = 3 to t = 10000 took 56 s, to t = 5000 30 s,
with 100 samples to t = 1000 109 s, with 300 samples to t = 100 57 s; preset periodic-random-full
with N = 1000 to t = 20 41 s.  Constant schedules are much faster (the step grows after consensus).
An estimate, not a bound."""
MAX_SIM_SECONDS = 60.0
"""``verify simulate`` refuses a float64 run whose worst-case estimate exceeds this."""
MAX_EVIDENCE_SECONDS = 30.0
"""``verify theorem`` skips its numerical evidence (with the reason) above this estimate."""
MAX_TAYLOR_WORK = 5e6
"""Largest ``N^2 * d * H * t_end * digits^2`` for the Taylor method (one instance; the order and
the cost of each multiplication both grow with the digits).  Measured, N = 12, d = 3: 50 digits to
t = 10 (1.1e7) 81 s; 100 digits to t = 1 (4.3e6) 22 s; 200 digits to t = 1 (1.7e7) over 200 s;
20 digits to t = 1 (1.7e5) 1.6 s."""


def check_t_end(value: float, option: str = "--t-end") -> None:
    """A horizon in ``(0, MAX_T_END]``: a real number (not a bool, a string or a list)."""
    is_number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not (is_number and 0 < value <= MAX_T_END and math.isfinite(value)):  # a huge int: compared before isfinite
        raise InvalidInput(option, f"a positive finite number at most {MAX_T_END:g}", value)


def check_range(option: str, value: int | None, low: int, high: int) -> None:
    """``None`` (not given) or an integer in ``[low, high]`` (not a bool, a float or a string)."""
    is_int = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if value is not None and not (is_int and low <= value <= high):
        raise InvalidInput(option, f"an integer between {low} and {high}", value)


def work(N: int, d: int, H: int, t_end: float, samples: int = 1) -> float:
    """``samples * N^2 * d * H * t_end``: the size of the right-hand side times the horizon."""
    return float(samples) * N * N * d * H * max(t_end, 1.0)


STIFF_SCALE = 4.0
"""``beta * ||P||_2`` up to which the fitted rates hold (the presets and examples have ``beta = 1``,
``||P||_2 <= 3``); above it the step size of an explicit method shrinks like ``1 / (beta ||P||)``."""


def stiffness(system, t_end: float) -> float:
    """``max(1, beta * max_t ||P^h(t)||_2 / STIFF_SCALE)``, ``||P||`` sampled at 5 times in ``[0, t_end]``:
    the factor by which a stiff instance (huge ``beta``) multiplies the number of steps. An estimate
    for the time limits, not a bound (and never part of a proof)."""
    import numpy as np

    times = np.linspace(0.0, max(float(t_end), 0.0), 5)
    p = max(float(np.linalg.norm(system.P_at(float(t)), ord=2, axis=(1, 2)).max()) for t in times)
    with np.errstate(over="ignore", invalid="ignore"):
        factor = system.beta_float * p / STIFF_SCALE
    return float(factor) if np.isfinite(factor) and factor > 1.0 else (1.0 if np.isfinite(factor) else math.inf)


def estimate_seconds(N: int, d: int, H: int, t_end: float, samples: int = 1, stiff: float = 1.0) -> float:
    """Worst-case wall time of a float64 simulation (``RATE_*`` above), times the :func:`stiffness` factor."""
    return stiff * max(t_end, 1.0) * (RATE_BASE + samples * (RATE_SAMPLE + RATE_WORK * N * N * d * H))


def check_simulation(N: int, d: int, H: int, t_end: float, samples: int | None, digits: int | None,
                     stiff: float = 1.0) -> None:
    """Refuse a ``verify simulate`` run whose cost model exceeds the limits above (``stiff``: :func:`stiffness`)."""
    if stiff > 1.0 and (digits is not None or estimate_seconds(N, d, H, t_end, samples or 1, stiff) > MAX_SIM_SECONDS):
        est = estimate_seconds(N, d, H, t_end, samples or 1, stiff)
        raise InvalidInput("beta / P", f"an instance the integrators can follow within {MAX_SIM_SECONDS:g} s "
                           f"(beta ||P||_2 <= {STIFF_SCALE:g} runs at the fitted rates; above it the step size shrinks)",
                           f"beta ||P||_2 ~ {stiff * STIFF_SCALE:.3g}: about {est:.3g} s",
                           "Lower beta or the scale of P, or --t-end")
    if digits is not None:
        w = work(N, d, H, t_end) * digits ** 2
        if w > MAX_TAYLOR_WORK:
            raise InvalidInput("--digits / --t-end", f"N^2*d*H*t_end*digits^2 at most {MAX_TAYLOR_WORK:g} for the "
                               "Taylor method", f"{w:.3g} (N={N}, d={d}, H={H}, t_end={t_end:g}, digits={digits})",
                               "Lower --t-end, --digits or the instance size")
        return
    est = estimate_seconds(N, d, H, t_end, samples or 1, stiff)
    if est > MAX_SIM_SECONDS:
        raise InvalidInput("--t-end / --samples", f"a simulation estimated at most {MAX_SIM_SECONDS:g} s in the worst "
                           "case (verify docs format)", f"about {est:.3g} s (samples={samples or 1}, N={N}, d={d}, H={H}, "
                           f"t_end={t_end:g})", "Lower --t-end, --samples, --tokens or --dim")


def evidence_skip_reason(system, t_end: float) -> str | None:
    """Why ``verify theorem`` attaches no simulation to this instance, or ``None`` when it does."""
    stiff = stiffness(system, t_end)
    est = estimate_seconds(system.N, system.d, system.H, t_end, 1, stiff)
    if est <= MAX_EVIDENCE_SECONDS:
        return None
    why = f", beta ||P||_2 ~ {stiff * STIFF_SCALE:.3g}" if stiff > 1.0 else ""
    return (f"the simulation is estimated at {est:.3g} s in the worst case, above {MAX_EVIDENCE_SECONDS:g} s "
            f"(N={system.N}, d={system.d}, H={system.H}, t_end={t_end:g}{why}); run `verify simulate --instance FILE` "
            "with a shorter --t-end for numbers")
