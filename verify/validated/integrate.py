"""``integrate_validated``: rigorous enclosures of the solution of eq. 5 over a horizon.

The initial set (:class:`~.problem.Tokens`: boxes around exact centres) is carried by a Lohner
parallelepiped (:mod:`.lohner`) through validated Taylor steps (:mod:`.step`); a layer stack is
integrated segment by segment, each segment's last step cut to end exactly at its boundary (the
field is analytic inside a segment, not across one).  Everything on the path to an enclosure is
exact rationals or arb balls at ``options.prec`` bits, scoped with ``flint.ctx.workprec`` for the
call only.  Floats propose step sizes and preconditioners; arb checks every proposal.

What the result proves: for every initial point in the boxes, the solution exists on
``[0, reached]`` and, on each step ``[t_k, t_{k+1}]``, every coordinate lies in the step's
``tube`` ball, and at ``t_{k+1}`` in its ``end`` ball.  What it does not: anything after
``reached``, or tightness (widths grow with the horizon, faster near unstable configurations).
"""
from __future__ import annotations

import logging
import math
import time
from fractions import Fraction
from typing import Sequence

from flint import arb, arb_mat, ctx

from theorems.errors import InvalidInput, InvalidType

from .balls import field_data, flat, initial_box, max_width, rows
from .lohner import LohnerSet
from .options import ValidatedOptions
from .problem import Field, Tokens, as_stack
from .record import StepEnclosure, ValidatedStats, ValidatedStatus, ValidatedTrajectory
from .step import validated_step

log = logging.getLogger(__name__)


def integrate_validated(field: Field | Sequence[tuple[object, Field]], tokens: Tokens,
                        t_end: object | None = None, *,
                        options: ValidatedOptions | None = None) -> ValidatedTrajectory:
    """Validated enclosure of eq. 5 from ``tokens`` over ``[0, t_end]``.

    ``field``: one :class:`~.problem.Field` (then ``t_end`` is required) or a layer stack of
    ``(duration, Field)`` pairs (``t_end`` optional, cuts the stack).  Returns a frozen
    :class:`~.record.ValidatedTrajectory`; a run that cannot reach the horizon says why in its
    ``status`` and keeps the steps it proved."""
    opts = options or ValidatedOptions()
    if opts.damping:
        raise InvalidInput("options.damping", "False here (the enclosures cover every state of the initial box, "
                           "not only points on the sphere, and the damped field differs off the sphere)", True)
    if not isinstance(tokens, Tokens):
        raise InvalidType("tokens", "a Tokens record", type(tokens).__name__)
    stack = as_stack(field, t_end, tokens.d)
    horizon = sum((dur for dur, _ in stack), Fraction(0))
    start = time.perf_counter()
    N, d = tokens.N, tokens.d
    steps: list[StepEnclosure] = []
    times = [Fraction(0)]
    rejected = 0
    status = ValidatedStatus.SUCCESS
    detail = ""
    with ctx.workprec(opts.prec):
        centres, radius = initial_box(tokens)
        spread = arb(0, radius.abs_upper())
        initial = arb_mat(N, d, [c + spread for c in centres.entries()])
        S = LohnerSet.from_box(flat(initial))
        t = Fraction(0)
        hint: float | None = None
        for index, (duration, f) in enumerate(stack):
            heads = field_data(f)
            seg_end = t + duration
            while t < seg_end and status is ValidatedStatus.SUCCESS:
                if len(steps) >= opts.max_steps:
                    status = ValidatedStatus.MAX_STEPS
                    break
                out = validated_step(S, N, d, heads, f.causal, seg_end - t, opts, hint)
                rejected += out.rejected
                if out.new is None:
                    status, detail = ValidatedStatus.STEP_TOO_SMALL, out.reason
                    break
                end = out.end
                width = max_width(end)
                t1 = t + out.h
                steps.append(StepEnclosure(t, t1, index, rows(out.dense.tube), rows(end), width,
                                           max_width(out.dense.tube), out.remainder_width,
                                           out.jacobian_width, out.dense, opts.prec))
                times.append(t1)
                log.debug("step %d: t = %s, h = %.4g, width %.3g", len(steps), float(t1), float(out.h), width)
                S, t = out.new, t1
                if t < seg_end:  # a step cut at a boundary says nothing about the next one
                    hint = out.next_hint if out.rejected == 0 else min(out.next_hint, float(out.h))
                if math.isinf(width) or math.isnan(width):
                    status = ValidatedStatus.NOT_FINITE
                elif width > opts.max_width:
                    status = ValidatedStatus.WIDTH_LIMIT
                    detail = f"width {width:.3g} > max_width {opts.max_width:g} at t = {float(t1):.6g}"
            if status is not ValidatedStatus.SUCCESS:
                break
        initial_rows = rows(initial)
    hs = [float(s.t1 - s.t0) for s in steps]
    stats = ValidatedStats(len(steps), rejected, time.perf_counter() - start,
                           min(hs, default=0.0), max(hs, default=0.0))
    message = status.message + (f" ({detail})" if detail else "")
    return ValidatedTrajectory(status, message, N, d, tuple(times), initial_rows, tuple(steps), stats, opts, horizon)


__all__ = ["integrate_validated"]
