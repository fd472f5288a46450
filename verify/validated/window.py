"""Certified depth windows ``[T_low, T_high]`` read off a validated enclosure.

For a metric ``m`` (:mod:`.metrics`) and ``eps > 0``, on a :class:`~.record.ValidatedTrajectory`:

* ``last_gt_step`` / ``T_low``: the last step end (``times[k]``) whose enclosure proves
  ``m > eps`` (ball lower end ``> eps``), then moved right inside the next step by bisection on
  point enclosures (:meth:`~.record.StepEnclosure.at`).  ``m(T_low) > eps`` is proved, so the
  settling time ``T* = inf{T : m(t) <= eps for all t >= T}`` satisfies ``T* > T_low``.
* ``first_le_step``: the first step end whose enclosure proves ``m <= eps``.
* ``T_high``: the smallest time from which the enclosure proves ``m <= eps`` on every step tube up
  to ``reached`` (a tube that does not is split in halves, ``SPLIT`` times; then the start is
  moved left inside the preceding step by bisection on sub-interval enclosures).
  ``m(t) <= eps`` is proved for every ``t in [T_high, reached]``; that ``m`` stays below ``eps``
  after ``reached`` is *not* claimed here: it needs an invariance or monotonicity certificate
  (the hook of ``verify depth``, see the module :mod:`verify.validated`).

:func:`layer_window` is the same for the layer map (integer layers, no refinement).  Status:
``HOLDS`` when both ends were found with ``T_low < T_high``, ``UNKNOWN`` otherwise (with the
reason); nothing here is a float decision.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, final

from flint import ctx

from theorems.errors import UnknownName
from theorems.verdict import Status

from .balls import ball
from .metrics import METRICS, Rows
from .record import ValidatedTrajectory

REFINE = 30
SPLIT = 4
"""A step's tube that does not prove ``<= eps`` is split in halves up to this depth."""


@final
@dataclass(frozen=True)
class DepthWindow:
    """The certified window of one metric and ``eps`` (times exact; layers for the layer map)."""

    status: Status
    reason: str
    metric: str
    eps: Fraction
    T_low: Fraction | None
    T_high: Fraction | None
    last_gt_step: int | None
    first_le_step: int | None
    reached: Fraction

    def to_json(self) -> dict[str, object]:
        show = lambda q: None if q is None else str(q)  # noqa: E731
        return {"status": self.status.value, "reason": self.reason, "metric": self.metric, "eps": str(self.eps),
                "T_low": show(self.T_low), "T_high": show(self.T_high), "last_gt_step": self.last_gt_step,
                "first_le_step": self.first_le_step, "reached": str(self.reached)}


def _metric(name: str) -> Callable[[Rows], object]:
    if name not in METRICS:
        raise UnknownName("metric", name, METRICS)
    return METRICS[name]


def depth_window(traj: ValidatedTrajectory, metric: str, eps: object, refine: int = REFINE) -> DepthWindow:
    """The window for ``metric`` (a name of :data:`~.metrics.METRICS`) and ``eps`` (see the module docstring)."""
    fn = _metric(metric)
    eps_q = Fraction(eps)
    with ctx.workprec(traj.options.prec):
        e = ball(eps_q)
        gt = lambda X: bool(fn(X) > e)   # noqa: E731  (arb: True only when proved)
        le = lambda X: bool(fn(X) <= e)  # noqa: E731
        ends = [traj.initial] + [s.end for s in traj.steps]
        last_gt = next((k for k in range(len(ends) - 1, -1, -1) if gt(ends[k])), None)
        first_le = next((k for k in range(len(ends)) if le(ends[k])), None)
        T_low = None if last_gt is None else traj.times[last_gt]
        if last_gt is not None and last_gt < len(traj.steps):
            step = traj.steps[last_gt]
            lo, hi = step.t0, step.t1
            for _ in range(refine):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if gt(step.at(mid)) else (lo, mid)
            T_low = lo
        s = len(traj.steps)
        while s > 0 and _proves_on(le, traj.steps[s - 1], traj.steps[s - 1].t0, traj.steps[s - 1].t1, SPLIT):
            s -= 1
        T_high = None
        if s < len(traj.steps) or (not traj.steps and le(traj.initial)):
            T_high = traj.times[s]
            if s > 0:
                step = traj.steps[s - 1]
                lo, hi = step.t0, step.t1
                for _ in range(refine):
                    mid = (lo + hi) / 2
                    lo, hi = (lo, mid) if _proves_on(le, step, mid, step.t1, SPLIT) else (mid, hi)
                T_high = hi
    return _verdict(metric, eps_q, T_low, T_high, last_gt, first_le, traj.reached)


def _proves_on(test, step, lo: Fraction, hi: Fraction, depth: int) -> bool:
    """``test`` holds on the enclosure over ``[lo, hi]``, or on both halves (recursively)."""
    if test(step.at((lo, hi)) if (lo, hi) != (step.t0, step.t1) else step.tube):
        return True
    if depth == 0:
        return False
    mid = (lo + hi) / 2
    return _proves_on(test, step, lo, mid, depth - 1) and _proves_on(test, step, mid, hi, depth - 1)


def layer_window(enclosures: list[Rows] | tuple[Rows, ...], metric: str, eps: object, prec: int = 128) -> DepthWindow:
    """The window for a sequence of per-layer enclosures (index = layer; ``T_high`` the first
    layer from which every later one proves ``<= eps``, ``T_low`` the last one proving ``> eps``)."""
    fn = _metric(metric)
    eps_q = Fraction(eps)
    with ctx.workprec(prec):
        e = ball(eps_q)
        values = [fn(X) for X in enclosures]
        last_gt = next((k for k in range(len(values) - 1, -1, -1) if values[k] > e), None)
        first_le = next((k for k in range(len(values)) if values[k] <= e), None)
        s = len(values)
        while s > 0 and values[s - 1] <= e:
            s -= 1
        T_high = Fraction(s) if s < len(values) else None
    T_low = None if last_gt is None else Fraction(last_gt)
    return _verdict(metric, eps_q, T_low, T_high, last_gt, first_le, Fraction(len(values) - 1))


def _verdict(metric, eps, T_low, T_high, last_gt, first_le, reached) -> DepthWindow:
    if T_high is None:
        status, reason = Status.UNKNOWN, f"the enclosure never proves {metric} <= {eps} up to the end (t = {reached})"
    elif T_low is None:
        status, reason = Status.UNKNOWN, f"the enclosure never proves {metric} > {eps}: no lower end"
    elif T_low >= T_high:
        status = Status.UNKNOWN
        reason = f"{metric} is proved > {eps} at {T_low}, after the stretch proved <= {eps} starts"
    else:
        status, reason = Status.HOLDS, (f"{metric} > {eps} is proved at T_low and {metric} <= {eps} on "
                                        f"[T_high, {reached}] (after {reached} only with an invariance certificate)")
    return DepthWindow(status, reason, metric, eps, T_low, T_high, last_gt, first_le, reached)


__all__ = ["DepthWindow", "depth_window", "layer_window"]
