"""The validated enclosure of eq. 5 run until a test on the enclosure succeeds (or ``t_max``).

The same steps as :func:`verify.validated.integrate_validated` (a Lohner set carried through
:func:`verify.validated.step.validated_step`; every enclosure is arb balls at ``options.prec``
bits), but the run stops at the first step end whose enclosure ``entered`` accepts, so a fate is
not paid for with the rest of the horizon.  The test is called on the initial balls too.  Floats
only propose step sizes and frames; the enclosures are rigorous whatever they propose.

Not guaranteed: that the test ever succeeds (the run then ends at ``t_max``, at the width limit or
when the step becomes too small; ``status`` says which).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, final

from flint import arb, arb_mat, ctx

from theorems.errors import InvalidInput
from verify.validated import Field, Tokens, ValidatedOptions
from verify.validated.balls import field_data, flat, initial_box, max_width, rows
from verify.validated.lohner import LohnerSet
from verify.validated.lognorm import BallSet, ball_step, ball_width
from verify.validated.series import Damped
from verify.validated.step import validated_step

Rows = tuple[tuple[arb, ...], ...]
OPTIONS = ValidatedOptions(order=12, tol=1e-12, max_width=0.5, max_steps=4000)
"""The fate run tolerates wider enclosures than a depth window: a basin may still be entered."""
TIGHT = ValidatedOptions(order=16, tol=1e-18, max_width=0.5, max_steps=20000, prec=192)
"""The second enclosure, for a run whose first one grew too wide: a remainder target six decades
smaller at 192 bits, so the truncation errors that the flow amplifies start smaller (3-5x the time)."""
DAMPED = ValidatedOptions(order=16, tol=1e-18, max_width=0.5, max_steps=20000, prec=192, damping=True)
"""The third enclosure, for a run whose tight one grew too wide: the tight settings on the damped field
(:class:`~verify.validated.series.Damped`: eq. 5 on the sphere, the norm of each token attracted to 1
off it).  With eq. 5 itself an enclosure widens along the normal of token ``i`` at the rate
``-2 <x_i, v_i>`` wherever that is positive (general ``U``), although the solution stays on the sphere."""
ENCLOSURES = {"default": OPTIONS, "tight": TIGHT, "damped": DAMPED}
"""The enclosures a fate certificate may name; its re-check runs the one it names."""


@final
@dataclass(frozen=True, eq=False)
class FlowRun:
    entered: bool
    time: Fraction
    """The entry time when ``entered``, else the last time reached."""
    enclosure: Rows
    steps: int
    status: str
    """``entered``, ``t_max`` (horizon reached without entry), ``width``, ``step_too_small``, ``max_steps``,
    ``deadline`` (:func:`run_balls` only)."""
    width: float


def run_until(field: Field, tokens: Tokens, t_max: Fraction, entered: Callable[[Rows], bool],
              options: ValidatedOptions = OPTIONS) -> FlowRun:
    """Enclose eq. 5 from ``tokens`` until ``entered(enclosure)`` holds at a step end (or at 0)."""
    N, d = tokens.N, tokens.d
    heads = field_data(field)
    if options.damping:
        on_sphere = tokens.normalize or all(sum(v * v for v in row) == 1 for row in tokens.centers)
        if tokens.radius != 0 or not on_sphere:
            raise InvalidInput("tokens", "exact points on the unit sphere (radius 0) for a damped enclosure",
                               f"radius {tokens.radius}, normalize={tokens.normalize}")
        heads = Damped(heads, damping(field))
    with ctx.workprec(options.prec):
        centres, radius = initial_box(tokens)
        spread = arb(0, radius.abs_upper())
        initial = arb_mat(N, d, [c + spread for c in centres.entries()])
        return run_balls(heads, field.causal, initial, t_max, entered, options)


def run_balls(heads, causal: bool, initial: arb_mat, t_max: Fraction, entered: Callable[[Rows], bool],
              options: ValidatedOptions = OPTIONS, deadline: float | None = None) -> FlowRun:
    """:func:`run_until` from an ``N x d`` matrix of balls ``initial`` and per-head ball data ``heads``
    (``((beta P)^T, U^T)``, :func:`~verify.validated.balls.field_data`; any balls that contain the exact
    data: every operation is inclusion isotonic, so the enclosure then holds for the exact field).  Call
    inside ``ctx.workprec(options.prec)``.  ``deadline`` (a ``time.perf_counter()`` value) ends the run
    between steps with status ``deadline``: a wall-clock limit changes how far a run gets, never what it proves."""
    N, d = initial.nrows(), initial.ncols()

    def view(S, out):
        enclosure = rows(initial if out is None else out.end)
        return enclosure, max_width(enclosure)

    return _drive(LohnerSet.from_box(flat(initial)), lambda S, left, hint: validated_step(S, N, d, heads, causal, left,
                  options, hint), view, t_max, entered, options, deadline)


def run_ball_set(heads, causal: bool, initial: arb_mat, t_max: Fraction, entered: Callable[[Rows], bool],
                 options: ValidatedOptions, deadline: float | None = None) -> FlowRun:
    """:func:`run_balls` with the logarithmic-norm step (:func:`verify.validated.lognorm.ball_step`): the set is a
    Euclidean ball around an exact centre, and ``entered`` is asked about its hull (each coordinate
    ``centre +- radius``).  Same statuses; rigorous for the same reasons, no Lohner frame.  A start that is not
    finite is a set of infinite width (status ``width`` at ``t = 0``, ``entered`` never asked)."""
    S = BallSet.from_balls(initial)
    if not all(x.is_finite() for x in initial.entries()):
        return FlowRun(False, Fraction(0), rows(S.hull()), 0, "width", math.inf)
    return _drive(S, lambda S, left, hint: ball_step(S, heads, causal, left, options, hint),
                  lambda S, out: (rows(S.hull()), ball_width(S)), t_max, entered, options, deadline)


def _drive(S, step, view, t_max: Fraction, entered: Callable[[Rows], bool], options: ValidatedOptions,
           deadline: float | None) -> FlowRun:
    """The run loop of both: ``step(S, h_left, hint)`` returns an outcome with ``new`` (None: failed), ``h``,
    ``rejected`` and ``next_hint``; ``view(S, outcome)`` the enclosure rows the test sees and their width
    (``outcome`` None for the start)."""
    enclosure, width = view(S, None)
    if entered(enclosure):
        return FlowRun(True, Fraction(0), enclosure, 0, "entered", width)
    t, hint, steps = Fraction(0), None, 0
    while t < t_max:
        if steps >= options.max_steps:
            return FlowRun(False, t, enclosure, steps, "max_steps", width)
        if deadline is not None and time.perf_counter() > deadline:
            return FlowRun(False, t, enclosure, steps, "deadline", width)
        out = step(S, t_max - t, hint)
        if out.new is None:
            return FlowRun(False, t, enclosure, steps, "step_too_small", width)
        S, t, steps = out.new, t + out.h, steps + 1
        enclosure, width = view(S, out)
        hint = out.next_hint if out.rejected == 0 else min(out.next_hint, float(out.h))
        if entered(enclosure):
            return FlowRun(True, t, enclosure, steps, "entered", width)
        if math.isnan(width) or width > options.max_width:
            return FlowRun(False, t, enclosure, steps, "width", width)
    return FlowRun(False, t, enclosure, steps, "t_max", width)


def damping(field: Field) -> int:
    """The damping constant ``c`` of a damped run: ``ceil(sum_h ||U^h||_F)`` (at least 1), exact.  On the
    sphere ``|<x_i, v_i>| <= |v_i| <= sum_h ||U^h||_2 <= c``, so the norm of every token is attracted to 1
    (:class:`~verify.validated.series.Damped`); any positive ``c`` gives a rigorous enclosure."""
    total = 0
    for U in field.U:
        s = sum((v * v for row in U for v in row), Fraction(0))
        k = math.isqrt(s.numerator // s.denominator)
        while Fraction(k * k) < s:
            k += 1
        total += k
    return max(1, total)


def run_tiered(field: Field, tokens: Tokens, t_max: Fraction, entered: Callable[[Rows], bool]) -> tuple[FlowRun, str]:
    """:func:`run_until` with :data:`OPTIONS`, then, only when that enclosure grew too wide, again
    with :data:`TIGHT`, and after that with :data:`DAMPED`: the run and the name of its enclosure in
    :data:`ENCLOSURES`.  Each is rigorous for the instance's tokens (on the sphere); a later one only
    narrows the enclosure."""
    *first, last = ENCLOSURES
    for name in first:
        run = run_until(field, tokens, t_max, entered, ENCLOSURES[name])
        if run.entered or run.status != "width":
            return run, name
    return run_until(field, tokens, t_max, entered, ENCLOSURES[last]), last


__all__ = ["DAMPED", "ENCLOSURES", "FlowRun", "OPTIONS", "Rows", "TIGHT", "damping", "run_ball_set", "run_balls", "run_tiered", "run_until"]
