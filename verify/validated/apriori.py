"""A-priori enclosure of the solution over one step, proved in arb balls.

**Lemma 1** (Lohner 1987; the Picard–Lindelöf argument).  Let ``Y`` be a box, ``h > 0`` and ``B``
a box with ``Y + [0, h] F(B) ⊂ int B``, where ``F(B)`` encloses the field on ``B``.  Then for every
``y`` in ``Y`` the solution of ``x' = F(x)``, ``x(0) = y`` exists on ``[0, h]`` and stays in ``B``.
Moreover ``x(t) = y + int_0^t F(x) in Y + [0, h] F(B)``, so ``B' = Y + [0, h] F(B)`` is again an
enclosure, and so is ``B' ∩ (Y + [0, h] F(B'))``: :func:`picard_box`.  ``F(B)`` is the mean-value
form intersected with the natural extension (:func:`~.jacobian.centered_field`).

**Lemma 2** (high-order enclosure; Nedialkov, Jackson & Pryce, *Reliable Computing* 7, 2001).  Let
``X_j(Y)`` enclose the Taylor coefficients of the solutions through ``Y`` (:mod:`.series`) and
``C = sum_{j<=q} [0, h]^j X_j(Y) + [0, h]^{q+1} X_{q+1}(B) ⊂ int B``.  Then every solution from
``Y`` exists on ``[0, h]`` and stays in ``C``: :func:`taylor_box`.  *Proof.*  ``F`` is analytic on
all of ``R^{N d}`` (the softmax denominators are positive).  Let ``T*`` be the supremum of the
``t <= h`` such that the solution exists on ``[0, t]`` with values in ``B``; ``T* > 0`` because
``y in Y ⊂ C ⊂ int B``.  For ``t < T*``, Taylor's formula with Lagrange remainder, component by
component, gives ``x(t) = sum_{j<=q} t^j X_j(y) + t^{q+1} X_{q+1}(x(xi))`` with ``xi in [0, t]``
(the ``(q+1)``-th coefficient of the autonomous flow restarted at ``x(xi)``) and ``x(xi) in B``,
so ``x(t) in C``.  If ``T* < h``, the solution, confined to the compact ``C``, extends past
``T*`` with ``x(T*) in C ⊂ int B``, hence stays in ``B`` a little longer: a contradiction.  So
``T* = h``, and ``x(h) in C`` by continuity.  ∎

The candidate boxes are float-inflated proposals; only the containment tests, done in arb with
``contains_interior``, decide.  ``F`` is the autonomous field of one segment (constant ``P``,
``U``, ``beta``).

Not guaranteed: that a box is found (it fails when ``h`` is too large for the field's Lipschitz
constant or its Taylor coefficients over ``B``); the caller then shrinks the step.
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
               tries: int = MAX_TRIES, jacobian: bool = True) -> tuple[arb_mat, arb_mat | None] | None:
    """``(B, DF)`` from the high-order test (see the module docstring): ``Ycoeffs`` are the
    coefficients ``X_0..X_q`` over ``Y``; ``None`` when no box is proved.  ``jacobian=False``: ``DF`` is
    None (the caller computes it on ``B`` when it needs it)."""
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
            return image, field_jacobian(image, heads, causal) if jacobian else None
        B = image
    return None


__all__ = ["picard_box", "taylor_box"]
