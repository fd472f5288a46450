"""Frozen records returned by the validated integrators: status, per-step enclosures, statistics.

An enclosure is a tuple of ``N`` rows of ``d`` python-flint ``arb`` balls; the true token
``x_i(t)`` has every coordinate inside the matching ball.  Times are exact rationals.  Float
fields (``width``, ``wall_time``) are reports, rounded up where they bound something, and are
never used to decide a claim.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, final

from flint import arb, arb_mat, ctx

from theorems.errors import InvalidInput

from .balls import ball, intersect, max_width, rows, span
from .options import ValidatedOptions
from .step import Dense

Enclosure = tuple[tuple[arb, ...], ...]


class ValidatedStatus(enum.Enum):
    SUCCESS = "success"
    WIDTH_LIMIT = "width_limit"
    STEP_TOO_SMALL = "step_too_small"
    MAX_STEPS = "max_steps"
    NOT_FINITE = "not_finite"

    @property
    def message(self) -> str:
        return {
            ValidatedStatus.SUCCESS: "the enclosure reached the end of the horizon",
            ValidatedStatus.WIDTH_LIMIT: "stopped: some coordinate's enclosure grew wider than max_width; "
                                         "shorten the horizon (or the number of layers), raise prec, or for "
                                         "eq. 5 raise order and lower tol",
            ValidatedStatus.STEP_TOO_SMALL: "stopped: no a-priori enclosure with a step above min_step "
                                            "(the boxes are too wide or the field too stiff); lower min_step or "
                                            "start from narrower boxes",
            ValidatedStatus.MAX_STEPS: "stopped at max_steps before the horizon; raise max_steps",
            ValidatedStatus.NOT_FINITE: "stopped: an enclosure stopped being finite (overflow); "
                                        "shorten the horizon or raise prec",
        }[self]


@final
@dataclass(frozen=True)
class ValidatedStats:
    """Work done: accepted and rejected steps (or layers), series and tangent runs, wall time."""

    steps: int
    rejected: int
    wall_time: float
    min_step: float
    max_step: float

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "rejected": self.rejected, "wall_time_s": round(self.wall_time, 6),
                "min_step": self.min_step, "max_step": self.max_step}


@final
@dataclass(frozen=True, eq=False)
class StepEnclosure:
    """One accepted step ``[t0, t1]`` of segment ``segment``: ``tube`` encloses every token at
    every time of the step, ``end`` at ``t1``.  ``width`` is the largest width in ``end``,
    ``tube_width`` in ``tube``; ``remainder`` is the width of the Lagrange remainder of the
    solution, ``jacobian_remainder`` the largest absolute row sum of the step Jacobian's one.
    :meth:`at` encloses the tokens at any time (or sub-interval) of the step from ``dense``."""

    t0: Fraction
    t1: Fraction
    segment: int
    tube: Enclosure
    end: Enclosure
    width: float
    tube_width: float
    remainder: float
    jacobian_remainder: float
    dense: Dense
    prec: int

    def at(self, t: Fraction | tuple[Fraction, Fraction]) -> Enclosure:
        """Enclosure at the time ``t`` (or over every time of the interval ``(lo, hi)``) inside the
        step: ``Dense.at`` on the ball ``[lo - t0, hi - t0]`` (clipped at 0: the true offset is
        ``>= 0``), at the step's precision."""
        lo, hi = (t, t) if not isinstance(t, tuple) else t
        lo, hi = Fraction(lo), Fraction(hi)
        if not self.t0 <= lo <= hi <= self.t1:
            raise InvalidInput("t", f"a time in the step [{self.t0}, {self.t1}]", (str(lo), str(hi)))
        with ctx.workprec(self.prec):
            s = span(ball(lo - self.t0), ball(hi - self.t0))
            low = s.lower()
            if low < 0:
                s = span(arb(0), s.upper())
            return rows(self.dense.at(s))


@final
@dataclass(frozen=True, eq=False)
class ValidatedTrajectory:
    """Result of :func:`~.integrate.integrate_validated`.

    ``times`` are ``t_0 = 0, t_1, ..., t_M`` (exact); ``steps[k]`` covers ``[t_k, t_{k+1}]``.
    ``initial`` encloses the initial set.  ``status`` says whether the horizon was reached;
    when not, the steps done so far remain rigorous."""

    status: ValidatedStatus
    message: str
    N: int
    d: int
    times: tuple[Fraction, ...]
    initial: Enclosure
    steps: tuple[StepEnclosure, ...]
    stats: ValidatedStats
    options: ValidatedOptions
    t_end: Fraction

    @property
    def reached(self) -> Fraction:
        return self.times[-1]

    @property
    def final(self) -> Enclosure:
        return self.steps[-1].end if self.steps else self.initial

    @property
    def final_width(self) -> float:
        return max_width(self.final)

    @property
    def widths(self) -> tuple[float, ...]:
        """Largest width at each of ``times``."""
        return (max_width(self.initial),) + tuple(s.width for s in self.steps)

    def enclosure_at(self, t: Fraction) -> Enclosure:
        """Enclosure at an exact time ``t`` in ``[0, reached]`` (intersecting both steps at a step boundary)."""
        t = Fraction(t)
        if t == 0:
            return self.initial
        found = [s for s in self.steps if s.t0 <= t <= s.t1]
        if not found:
            raise InvalidInput("t", f"a time in [0, {self.reached}]", str(t))
        out = found[0].at(t)
        for s in found[1:]:
            with ctx.workprec(self.options.prec):
                a, b = _mat(out), _mat(s.at(t))
                out = rows(intersect(a, b))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status.value, "message": self.message, "N": self.N, "d": self.d,
                "t_end": str(self.t_end), "reached": str(self.reached), "steps": len(self.steps),
                "final_width": self.final_width, "stats": self.stats.to_json(), "options": self.options.to_json()}


def _mat(enc: Enclosure) -> arb_mat:
    return arb_mat(len(enc), len(enc[0]), [x for row in enc for x in row])


__all__ = ["Enclosure", "StepEnclosure", "ValidatedStats", "ValidatedStatus", "ValidatedTrajectory"]
