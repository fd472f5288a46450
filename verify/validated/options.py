"""Options of the validated integrators (one frozen record, validated at construction).

Every option is a proposal parameter: it changes how tight or how fast a run is, never whether
its enclosures are rigorous.  ``prec`` is the arb working precision in bits, scoped per call.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import final

from theorems.errors import InvalidInput, InvalidType


def _int(name: str, value: object, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidType(name, "an integer", value)
    if not lo <= value <= hi:
        raise InvalidInput(name, f"an integer between {lo} and {hi}", value)


def _positive(name: str, value: object, hi: float | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise InvalidType(name, "a positive number", value)
    if not value > 0 or (hi is not None and value > hi):
        raise InvalidInput(name, "a number > 0" + (f" and <= {hi}" if hi is not None else ""), value)


@final
@dataclass(frozen=True)
class ValidatedOptions:
    """``order``: Taylor order ``K`` of the solution (remainder of order ``K + 1``);
    ``jacobian_order``: order ``m`` of the step Jacobian's expansion (its remainder is of order
    ``m + 1``, evaluated over the a-priori box); ``tol``: target width of the Lagrange remainder
    of one step; ``jacobian_tol``: target of the Jacobian remainder's largest absolute row sum (the
relative growth of the width it may cause in one step); ``max_step`` and
    ``min_step``: bounds on the step; ``step``: a fixed step (no adaptation; the last step of a
    segment is cut to its end); ``max_steps``; ``max_width``: the run stops (status
    ``WIDTH_LIMIT``) once some coordinate's enclosure is wider than this; ``prec``: bits;
    ``damping``: integrate the field with the normal damping term of :class:`~.series.Damped`
    (equal to eq. 5 on the sphere; only for runs whose claims concern points on the sphere)."""

    order: int = 20
    jacobian_order: int = 3
    tol: float = 1e-15
    jacobian_tol: float = 1e-2
    max_step: float = 1.0
    min_step: float = 1e-6
    step: Fraction | None = None
    max_steps: int = 10_000
    max_width: float = 1e-2
    prec: int = 128
    damping: bool = False

    def __post_init__(self) -> None:
        _int("order", self.order, 2, 60)
        _int("jacobian_order", self.jacobian_order, 1, 40)
        _positive("tol", self.tol, 1.0)
        _positive("jacobian_tol", self.jacobian_tol, 1.0)
        _positive("max_step", self.max_step)
        _positive("min_step", self.min_step)
        if self.step is not None:
            _positive("step", self.step)
            object.__setattr__(self, "step", Fraction(self.step))
        _int("max_steps", self.max_steps, 1, 10_000_000)
        _positive("max_width", self.max_width)
        _int("prec", self.prec, 53, 4096)
        if not isinstance(self.damping, bool):
            raise InvalidType("damping", "True or False", self.damping)

    def to_json(self) -> dict[str, object]:
        return {"order": self.order, "jacobian_order": self.jacobian_order, "tol": self.tol,
                "jacobian_tol": self.jacobian_tol, "max_step": self.max_step, "min_step": self.min_step,
                "step": None if self.step is None else str(self.step), "max_steps": self.max_steps,
                "max_width": self.max_width, "prec": self.prec} | ({"damping": True} if self.damping else {})


__all__ = ["ValidatedOptions"]
