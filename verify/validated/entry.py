"""A late entry into an open hemisphere, proved on a validated enclosure of eq. 5.

At the end ``t_1`` of an accepted step the enclosure holds every token ``x_i(t_1)`` in a box
``X_i`` (arb balls).  A rational ``z`` with ``<z, x> > 0`` for every point ``x`` of every box
(checked in arb: the lower end of the ball ``<z, X_i>`` is positive) proves that the true tokens
lie in the open hemisphere ``{x : <z, x> > 0}`` at ``t_1``.  ``z`` is a proposal: Wolfe's
nearest point to 0 of the convex hull of the boxes' (rational) midpoints, or their mean; a poor
proposal costs a later entry time, never soundness.

Not guaranteed: that an entry is found (tokens that never enter, wide enclosures, a horizon
reached first).  What the entry means for all later times is the caller's argument (for constant
``P^h`` and ``U^h = I``, hemisphere invariance: Theorem 3.2 then applies from ``t_1``).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence, final

from flint import arb, ctx

from .record import Enclosure, ValidatedTrajectory

DENOMINATOR = 10 ** 12
"""Denominator bound of the proposed ``z`` (keeps the exact certificate short)."""


@final
@dataclass(frozen=True)
class HemisphereEntry:
    """``<z, x_i(t0)> >= margin > 0`` for every token, proved on the enclosure at ``t0``."""

    t0: Fraction
    z: tuple[Fraction, ...]
    margin: Fraction
    width: float

    def to_json(self) -> dict[str, Any]:
        return {"t0": str(self.t0), "z": [str(v) for v in self.z], "margin": str(self.margin), "width": self.width}


def _proposals(box: Enclosure) -> list[tuple[Fraction, ...]]:
    from theorems.predicates._min_norm import min_norm_point

    mids = [[Fraction(float(c.mid())).limit_denominator(DENOMINATOR) for c in row] for row in box]
    out = []
    found = min_norm_point(mids)
    if found is not None and any(v != 0 for v in found[0]):
        out.append(tuple(v.limit_denominator(DENOMINATOR) for v in found[0]))
    mean = tuple(sum((r[k] for r in mids), Fraction(0)) for k in range(len(mids[0])))
    if any(v != 0 for v in mean):
        out.append(mean)
    return out


def margin_on(box: Enclosure, z: Sequence[Fraction], prec: int) -> Fraction | None:
    """A rational ``m > 0`` with ``<z, x> >= m`` for every point of every row box, or None."""
    with ctx.workprec(prec):
        za = [arb(v.numerator) / v.denominator for v in z]
        lows = []
        for row in box:
            s = sum((a * b for a, b in zip(za, row)), arb(0))
            if not s > 0:
                return None
            lows.append(s.lower())
        low = min(lows, key=lambda b: float(b.mid()))
        m = Fraction(float(low.mid())) * Fraction(1, 2)  # a rational below the arb lower bound, re-checked
        return m if m > 0 and all(arb(m.numerator) / m.denominator <= b for b in lows) else None


def entry_on(box: Enclosure, prec: int) -> tuple[tuple[Fraction, ...], Fraction] | None:
    """``(z, margin)`` proving ``box`` lies in an open hemisphere, or None."""
    for z in _proposals(box):
        m = margin_on(box, z, prec)
        if m is not None:
            return z, m
    return None


def hemisphere_entry(traj: ValidatedTrajectory) -> HemisphereEntry | None:
    """The first step end of ``traj`` (``t = 0`` included) at which the enclosure proves every token
    in one open hemisphere, or None."""
    prec = traj.options.prec
    candidates = [(Fraction(0), traj.initial, 0.0)] + [(s.t1, s.end, s.width) for s in traj.steps]
    for t, box, width in candidates:
        found = entry_on(box, prec)
        if found is not None:
            return HemisphereEntry(t, found[0], found[1], width)
    return None


def proves_margin(box: Enclosure, z: Sequence[Fraction], margin: Fraction, prec: int) -> bool:
    """``<z, x> >= margin`` for every point of every row box (arb lower ends)."""
    with ctx.workprec(prec):
        za = [arb(v.numerator) / v.denominator for v in z]
        m = arb(margin.numerator) / margin.denominator
        return all(sum((a * b for a, b in zip(za, row)), arb(0)) >= m for row in box)


HORIZONS = (Fraction(1, 2), Fraction(2), Fraction(8))
"""Horizons tried in turn (each run restarts at 0: an early entry costs a short run only)."""


def find_entry(field: Any, tokens: Any, horizons: Sequence[Fraction] = HORIZONS
               ) -> tuple[HemisphereEntry | None, ValidatedTrajectory | None, Fraction | None]:
    """``(entry, trajectory, horizon)``: the first proved entry of a validated run to the first
    horizon of ``horizons`` that shows one, or ``(None, last trajectory, last horizon)``."""
    from .integrate import integrate_validated
    from .options import ValidatedOptions

    traj, horizon = None, None
    for horizon in horizons:
        traj = integrate_validated(field, tokens, horizon, options=ValidatedOptions(max_steps=4000))
        entry = hemisphere_entry(traj)
        if entry is not None:
            return entry, traj, horizon
        if traj.reached < horizon:  # the run stopped early: a longer horizon cannot help
            break
    return None, traj, horizon


__all__ = ["HORIZONS", "HemisphereEntry", "entry_on", "find_entry", "hemisphere_entry", "margin_on", "proves_margin"]
