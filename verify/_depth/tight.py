"""A tight, two-sided depth window for the ODE (eq. 5) from a validated enclosure of the trajectory.

The closed-form bounds of :mod:`.bounds` hold for every start but are loose by about
``exp(2 beta p)``.  Here the actual trajectory is enclosed (:mod:`verify.validated`: arb balls,
Taylor models with a rigorous remainder, Lohner's wrapping control), and

* ``T_low``: a time at which the enclosure proves ``metric > eps``; so the settling time
  ``T* = inf{T : metric(t) <= eps for all t >= T}`` is ``> T_low``;
* ``T_high``: a time from which the metric is ``<= eps`` for **all** later times:

  - ``4.2`` (causal, ``U^h = I``): the cap ``max_i (1 - <x_1, x_i>) = 1 - min_i <x_1, x_i>`` never
    increases once ``min_i <x_1, x_i> > 0`` (the hemisphere-invariance certificate with ``z = x_1``,
    which never moves).  ``T_high`` is the start of the window on which the enclosure proves
    ``cap <= eps`` up to its last step (:func:`verify.validated.depth_window`); monotonicity carries
    it to every later time.
  - ``3.2`` (full, ``U^h = I``): for a rational ``z`` with ``s_i = <z, x_i> > 0``, the chart
    ``y_i = x_i / s_i`` follows a linear consensus protocol (the chart identity), so the chart
    diameter ``D`` never increases and the hemisphere of ``z`` is invariant; and
    ``1 - <x_i, x_j> <= Q = |z|^2 D^2 / 2`` (docs/depth.md, :mod:`.bounds`).  ``T_high`` is the first
    step end at which the enclosure proves ``Q <= eps`` (``z`` proposed by the enclosure's
    midpoints, then every inequality checked in arb).

Only constant rational ``P^h`` and ``beta`` are enclosed here (layer stacks and ``P(t)`` keep the
closed form).  The horizon is proposed by a float simulation (a hint); a run that does not prove
both ends says why, and the closed-form bound stands alone.  Not guaranteed: that the window is
found (wide enclosures, a budget); the report then says so.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from theorems.system import AttentionSystem

from .window_proof import MAX_LAYERS, MAX_STATES, layers_window, ode_window

MAX_SECONDS = 120.0


@dataclass(frozen=True)
class TightWindow:
    T_low: Fraction | None
    T_high: Fraction | None
    reason: str
    steps: int
    reached: Fraction | None
    final_width: float | None
    seconds: float
    certificate: Any = None
    """A :class:`~.window_certificate.WindowCertificate` of the window when ``T_high`` was proved."""

    def to_json(self) -> dict[str, Any]:
        show = lambda q: None if q is None else str(q)  # noqa: E731
        return {"T_low": show(self.T_low), "T_high": show(self.T_high), "reason": self.reason, "steps": self.steps,
                "reached": show(self.reached), "final_width": self.final_width, "seconds": round(self.seconds, 3),
                "method": "validated enclosure of eq. 5 (verify.validated: arb Taylor models, Lohner QR), "
                          "then " + ("the cap's monotonicity" if self.reason.startswith("4.2") else
                                     "the chart diameter's monotonicity") + " for all later times"}


def _problem(theorem_id: str, system: AttentionSystem, tokens: list[list[Fraction]]):
    """``(Field, Tokens)`` of the validated run, or the reason there is none."""
    from verify.validated.from_system import validated_problem

    found = validated_problem(system, "causal" if theorem_id == "4.2" else "full", tokens, MAX_STATES)
    return found + " (closed form only)" if isinstance(found, str) and found.startswith("N d") else found


def _certificate(theorem_id, model, field, init, eps, tau, horizon, layers, low, high, name):
    from .window_certificate import WindowCertificate

    return WindowCertificate(theorem_id, model, field.beta, field.mask, field.P, init.centers, eps, tau, horizon,
                             layers, low, high, label=f"verify depth {theorem_id} --model {model} on {name}")


def tight_window(theorem_id: str, system: AttentionSystem, tokens: list[list[Fraction]], eps: Fraction,
                 horizon_hint: float | None, bound: float | None = None) -> TightWindow:
    """The window of the module docstring (``tokens``: the certificate's rational tokens).
    ``bound``: the closed-form time, if any; without a hint, the float simulation that proposes the
    horizon runs that long (at most 1000; 400 without a closed form: metastable clusters can settle
    long after t = 40)."""
    start = time.perf_counter()
    problem = _problem(theorem_id, system, tokens)
    if isinstance(problem, str):
        return TightWindow(None, None, problem, 0, None, None, time.perf_counter() - start)
    field, init = problem
    if horizon_hint is None:  # a float simulation proposes the horizon (a hint: the enclosure decides)
        from .evidence import ode_observed

        horizon_hint = ode_observed(system, float(eps), min(bound, 1000.0) if bound else 400.0).get("observed")
    horizon = Fraction(max(1.0, 1.5 * (horizon_hint or 10.0) + 0.5)).limit_denominator(64)
    for attempt in range(2):
        t_low, t_high, traj, window = ode_window(theorem_id, field, init, horizon, eps)
        if t_high is not None or time.perf_counter() - start > MAX_SECONDS / 2 or traj.reached < horizon:
            break
        horizon *= 2
    seconds = time.perf_counter() - start
    if t_low is None and t_high is None:
        return TightWindow(None, None, f"{theorem_id}: the enclosure proved neither end ({window.reason}; "
                           f"{traj.status.value}: {traj.message})", len(traj.steps), traj.reached, traj.final_width,
                           seconds)
    why = (f"{theorem_id}: the enclosure proves metric > eps at T_low"
           + (" and metric <= eps from T_high on, for all later times" if t_high is not None else
              f"; no all-time end was proved by t = {traj.reached} ({traj.message or traj.status.value})"))
    cert = None if t_high is None else _certificate(theorem_id, "ode", field, init, eps, None, horizon, None, t_low,
                                                    t_high, system.name)
    return TightWindow(t_low, t_high, why, len(traj.steps), traj.reached, traj.final_width, seconds, cert)


def enclosure_only_window(theorem_id: str, system: AttentionSystem, tokens: list[list[Fraction]], eps: Fraction,
                          model: str = "ode", tau: Fraction | None = None) -> TightWindow | None:
    """The validated window when no closed form applies at the start (a late entry into the cap or
    the chart hemisphere, proved by the enclosure itself), or None when it proves no all-time end."""
    if model == "layers":
        from .evidence import layers_observed  # a float run proposes the number of layers (a hint)

        hint = layers_observed(system, float(eps), float(tau), MAX_LAYERS).get("observed")
        window = tight_layer_window(theorem_id, system, tokens, eps, tau, hint)
    else:
        window = tight_window(theorem_id, system, tokens, eps, None)
    return window if window.T_high is not None else None




def tight_layer_window(theorem_id: str, system: AttentionSystem, tokens: list[list[Fraction]], eps: Fraction,
                       tau: Fraction, layers_hint: int | None) -> TightWindow:
    """The window ``[L_low, L_high]`` of the layer map (eq. 4) from a validated layer-by-layer
    enclosure: the metric is proved ``> eps`` after ``L_low`` layers and ``<= eps`` after ``L_high``
    and every later layer (4.2: the cap never increases under the layer map once every
    ``<x_1, x_i> > 0``, ``x_1`` being fixed; 3.2: the chart diameter never increases, each layer being
    a stochastic matrix in the chart)."""
    start = time.perf_counter()
    problem = _problem(theorem_id, system, tokens)
    if isinstance(problem, str):
        return TightWindow(None, None, problem, 0, None, None, time.perf_counter() - start)
    field, init = problem
    layers = min(MAX_LAYERS, max(8, 2 * int(layers_hint or 50) + 4))
    low, high, traj, window = layers_window(theorem_id, field, init, tau, layers, eps)
    seconds = time.perf_counter() - start
    width = traj.widths[-1] if traj.widths else None
    if high is None:
        return TightWindow(low, None, f"{theorem_id}: no all-layer end proved within {traj.layers} layers "
                           f"({window.reason}; {traj.message or traj.status.value})", traj.layers, Fraction(traj.layers),
                           width, seconds)
    cert = _certificate(theorem_id, "layers", field, init, eps, tau, None, layers, low, high, system.name)
    return TightWindow(low, high, f"{theorem_id}: the enclosure proves metric > eps after L_low layers and "
                       "metric <= eps after L_high layers and every later one", traj.layers, Fraction(traj.layers),
                       width, seconds, cert)

__all__ = ["TightWindow", "enclosure_only_window", "tight_layer_window", "tight_window"]
