"""A-priori enclosure of the solution over one step (Picard–Lindelöf in arb balls).

**Lemma** (Lohner 1987, Lemma 1; the Picard–Lindelöf argument).  Let ``Y`` be a box, ``h > 0``
and ``B`` a box with ``Y + [0, h] F(B) ⊂ int B``, where ``F(B)`` is an interval enclosure of the
field over ``B``.  Then for every ``y`` in ``Y`` the solution of ``x' = F(x)``, ``x(0) = y``
exists on ``[0, h]`` and stays in ``B``.  Moreover ``x(t) = y + int_0^t F(x) in Y + [0, h] F(B)``,
so the image ``B' = Y + [0, h] F(B)`` (contained in ``B``) is again an enclosure, and so is
``B' ∩ (Y + [0, h] F(B'))``; :func:`picard_box` applies these two refinements.

``F(B)`` is the mean-value form intersected with the natural extension
(:func:`~.jacobian.centered_field`); the candidate boxes are float-inflated proposals, and only
the containment test, done in arb with ``contains_interior``, decides.  ``F`` is the autonomous
field of one segment (constant ``P``, ``U``, ``beta``).

Not guaranteed: that a box is found (it fails when ``h`` is too large for the Lipschitz constant
of ``F``); the caller then shrinks the step.
"""
from __future__ import annotations

from flint import arb, arb_mat

from .balls import all_finite, contains_interior, inflate, intersect, nonneg_power, unit_interval_times
from .jacobian import centered_field, field_jacobian
from .series import Heads, horner, series

INFLATE_REL = 0.25
RESERVE = 2.0
INFLATE_ABS = 1e-30
MAX_TRIES = 8


def picard_box(Y: arb_mat, h: arb, heads: Heads, causal: bool,
               tries: int = MAX_TRIES) -> tuple[arb_mat, arb_mat] | None:
    """``(B, DF)``: a box ``B`` enclosing every solution from ``Y`` on ``[0, h]`` and an enclosure
    ``DF`` of the field's Jacobian on a box containing ``B``; ``None`` when no box is proved
    (see the module docstring).  ``Y`` is ``N x d``; ``h`` a ball ``> 0``.  The Jacobian is
    computed once on a generous box (``RESERVE`` times the first guess) and reused for every
    candidate inside it."""
    span = unit_interval_times(h)
    B = Y + series(Y, heads, causal, 1).X[1] * span
    reserve = inflate(B, RESERVE, INFLATE_ABS)
    DF_reserve = field_jacobian(reserve, heads, causal)
    for attempt in range(tries):
        candidate = inflate(B, INFLATE_REL * 2 ** attempt, INFLATE_ABS)
        inside = contains_interior(reserve, candidate)
        FB, DF = centered_field(candidate, heads, causal, DF_reserve if inside else None)
        if not all_finite(FB):
            return None
        image = Y + FB * span
        if contains_interior(candidate, image):
            tighter = Y + centered_field(image, heads, causal, DF)[0] * span
            return intersect(image, tighter), DF
        B = image
    return None


def taylor_box(Ycoeffs: list[arb_mat], h: arb, heads: Heads, causal: bool,
               tries: int = MAX_TRIES) -> tuple[arb_mat, arb_mat] | None:
    """``(B, DF)`` from the high-order test (see the module docstring): ``Ycoeffs`` are the
    coefficients ``X_0..X_q`` over ``Y``; ``None`` when no box is proved."""
    q = len(Ycoeffs) - 1
    span = unit_interval_times(h)
    tail = nonneg_power(span, q + 1)
    poly = horner(Ycoeffs, span)
    B = poly
    for attempt in range(tries):
        candidate = inflate(B, INFLATE_REL * 2 ** attempt, INFLATE_ABS)
        top = series(candidate, heads, causal, q + 1).X[q + 1]
        if not all_finite(top):
            return None
        image = poly + top * tail
        if contains_interior(candidate, image):
            return image, field_jacobian(image, heads, causal)
        B = image
    return None


__all__ = ["picard_box", "taylor_box"]
