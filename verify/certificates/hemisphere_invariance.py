"""Theorem 3.2, invariance of open hemispheres (docs/model.md §3): ``<z, x_j> - g m >= 0``.

Gram coordinates of ``(z, x_i, x_j)`` with ``z`` normalised to ``|z| = 1`` (the hemisphere
``{x : <z, x> > 0}`` does not depend on ``|z|``): ``m = <z, x_i>`` (the minimum of ``<z, x_l>``
over tokens, attained at ``i``), ``b_j = <z, x_j>`` and ``g = <x_i, x_j>``.  Certified claim:

    b_j - g m  >=  0     on  {b_j - m >= 0, m >= 0, 1 - g >= 0, 1 + g >= 0, Gram(z, x_i, x_j) PSD}

so ``d<z, x_i>/dt = sum_h sum_j a^h_ij (b_j - g m) >= 0`` at a minimising token and the minimum
cannot decrease through 0.  The natural proof ``(b_j - m) + m (1 - g)`` uses the product
``m (1 - g)`` of two constraints, so Schmuedgen-type products are enabled.  Not covered: the
chart identity of the consensus part of Theorem 3.2 (a separate symbolic check).
"""
from __future__ import annotations

from verify._sos.prove import prove_nonnegative
from verify._sos.result import SOSResult

from .gram_set import gram_coordinates, unit_gram_minors


def certify_hemisphere_invariance(solver: str = "CLARABEL") -> SOSResult:
    """Exact certificate of ``b_j - g m >= 0`` on the set above (no parameters)."""
    b_j, m, g = gram_coordinates("b_j", "m", "g")
    ineqs = [b_j - m, m, 1 - g, 1 + g] + unit_gram_minors(m, b_j, g)
    return prove_nonnegative(b_j - g * m, (b_j, m, g), ineqs, degree=2, products=2, solver=solver,
                             label="3.2 hemisphere invariance: <z,x_j> - <x_i,x_j> m >= 0")
