"""A-priori enclosure of the solution over one step (Picard–Lindelöf in arb balls).

**Lemma** (Lohner 1987, Lemma 1; the Picard–Lindelöf argument).  Let ``Y`` be a box, ``h > 0``
and ``B`` a box with ``Y + [0, h] F(B) ⊂ int B``, where ``F(B)`` is an interval enclosure of the
field over ``B``.  Then for every ``y`` in ``Y`` the solution of ``x' = F(x)``, ``x(0) = y``
exists on ``[0, h]`` and stays in ``B``.  Moreover ``x(t) = y + int_0^t F(x) in Y + [0, h] F(B)``,
so the image ``B' = Y + [0, h] F(B)`` (contained in ``B``) is again an enclosure, and so is
``B' ∩ (Y + [0, h] F(B'))``; :func:`picard_box` applies these two refinements.

The candidate boxes are proposals (inflation factors are floats); only the containment test,
done in arb with ``contains_interior``, decides.  ``F`` is the autonomous field of one segment
(constant ``P``, ``U``, ``beta``).

Not guaranteed: that a box is found (it fails when ``h`` is too large for the Lipschitz constant
of ``F``); the caller then shrinks the step.
"""
from __future__ import annotations

from typing import Callable

from flint import arb, arb_mat

from .balls import all_finite, contains_interior, inflate, intersect, unit_interval_times

FieldFn = Callable[[arb_mat], arb_mat]
INFLATE_REL = 0.25
INFLATE_ABS = 1e-30
MAX_TRIES = 8


def picard_box(Y: arb_mat, h: arb, field: FieldFn, tries: int = MAX_TRIES) -> arb_mat | None:
    """A box ``B`` enclosing every solution from ``Y`` on ``[0, h]``, or ``None`` (see the module
    docstring).  ``Y`` is ``N x d``; ``h`` an exact ball."""
    span = unit_interval_times(h)
    B = Y + field(Y) * span
    for attempt in range(tries):
        candidate = inflate(B, INFLATE_REL * 2 ** attempt, INFLATE_ABS)
        FB = field(candidate)
        if not all_finite(FB):
            return None
        image = Y + FB * span
        if contains_interior(candidate, image):
            tighter = Y + field(image) * span
            return intersect(image, tighter)
        B = image
    return None


__all__ = ["picard_box"]
