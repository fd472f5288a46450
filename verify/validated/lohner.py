"""Wrapping control: Lohner's QR-preconditioned parallelepiped representation of a set of states.

A :class:`LohnerSet` stands for ``{xhat + A r : r in R}`` with ``xhat`` an exact point, ``A`` an
exact (float-proposed) ``n x n`` matrix and ``R`` a box centred at 0, together with ``box``, an
interval hull of the set.  For a map ``phi`` (one ODE step or one layer) with

* ``image`` a ball vector containing ``phi(xhat)``, and
* ``jac`` an interval matrix containing ``D phi(y)`` for every ``y`` in ``box``,

the mean-value theorem (applied to each component along the segment ``[xhat, x]``, which lies in
the convex ``box``) gives ``phi(xhat + A r) in image + jac A r``.  :meth:`LohnerSet.advance`
re-represents this set (Lohner 1987; Nedialkov & Jackson 1999, the QR method):

    xhat' = mid(image),   z = image - xhat' (recentred),   M = jac A  (interval product),
    A'    = Q from a float QR of mid(M) with columns sorted by |M_col| rad(R_col) (proposal),
    R'    = (A'^{-1} M) R + A'^{-1} z,  with A'^{-1} enclosed in arb (:func:`orthogonal_inverse`
            from ``n >= 64``, else ``arb_mat.inv``),
    box'  = (xhat' + A' R') ∩ (image + M R).

Every step is an interval-arithmetic inclusion, so the new set contains ``phi`` of the old one
whatever ``Q`` the float QR proposes; the proposal only decides how tight it stays.  Rotating the
frame with the flow keeps the box of ``R`` from wrapping (the growth of a plain box is by
``|jac|``, which compounds; the parallelepiped grows only by the true stretching plus the widths
of ``jac`` and ``image``).

Not guaranteed: tightness when ``jac`` is wide (wide boxes) or when ``A'`` is ill conditioned
(then ``arb_mat.inv`` fails and :meth:`advance` falls back to ``A' = I``, a plain box).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import final

import numpy as np
from flint import arb, arb_mat

from .balls import centered, from_floats, identity, intersect, mid_floats, midpoint


def _rad_floats(v: arb_mat) -> np.ndarray:
    return np.array([float(x.rad()) for x in v.entries()], dtype=float)


@final
@dataclass(frozen=True, eq=False)
class LohnerSet:
    """``{xhat + A r : r in R}`` with hull ``box`` (all ``n x 1`` except ``A``, ``n x n``)."""

    xhat: arb_mat
    A: arb_mat
    R: arb_mat
    box: arb_mat

    @staticmethod
    def from_box(box: arb_mat) -> "LohnerSet":
        """The box itself (``A = I``), centred at its exact midpoint."""
        xhat = midpoint(box)
        return LohnerSet(xhat, identity(box.nrows()), centered(box - xhat), box)

    def advance(self, image: arb_mat, jac: arb_mat) -> "LohnerSet":
        """The set containing ``phi`` of this one (see the module docstring)."""
        xhat = midpoint(image)
        z = centered(image - xhat)
        M = jac * self.A
        Q, Qinv = _frame(M, self.R)
        R = centered(Qinv * M * self.R + Qinv * z)
        direct = image + M * self.R
        box = intersect(xhat + Q * R, direct)
        return LohnerSet(xhat, Q, R, box)


def _frame(M: arb_mat, R: arb_mat) -> tuple[arb_mat, arb_mat]:
    """``(Q, enclosure of Q^{-1})``: Q proposed by a float QR of ``mid(M)`` (columns sorted by
    their contribution to the width), checked invertible by arb; ``(I, I)`` if that fails."""
    n = M.nrows()
    Mf = mid_floats(M)
    weight = np.linalg.norm(Mf, axis=0) * _rad_floats(R)
    order = np.argsort(-weight, kind="stable")
    if np.all(np.isfinite(Mf)):
        q, _ = np.linalg.qr(Mf[:, order])
        Q = from_floats(q)
        Qinv = orthogonal_inverse(Q) if n >= ORTHOGONAL_FROM else None
        if Qinv is None:
            try:
                Qinv = Q.inv()
            except ZeroDivisionError:
                Qinv = None
        if Qinv is not None and all(x.is_finite() for x in Qinv.entries()):
            return Q, Qinv
    eye = identity(n)
    return eye, eye


ORTHOGONAL_FROM = 64
"""From this size on the frame's inverse is enclosed by :func:`orthogonal_inverse` (one product, not an
inversion: 0.12 s instead of 0.5-1 s at ``n = 320``, 128 bits)."""


def orthogonal_inverse(Q: arb_mat) -> arb_mat | None:
    """An enclosure of ``Q^{-1}`` for a nearly orthogonal exact ``Q`` (a float QR factor), or None.

    With ``E = I - Q^T Q`` and ``e >= ||E||_inf`` (arb row sums), ``e < 1/2``: ``Q^T Q = I - E`` is
    invertible, so is ``Q``, and ``Q^{-1} = (Q^T Q)^{-1} Q^T = Q^T + F Q^T`` with ``F = sum_{k>=1} E^k``,
    every ``|F_ik| <= ||F||_inf <= e / (1 - e) = eps``; hence ``|(F Q^T)_ij| <= eps sum_k |Q_jk|`` and
    ``Q^{-1}_ij`` lies in ``Q_ji +- eps r_j`` (``r_j`` the absolute row sum of row ``j`` of ``Q``)."""
    n = Q.nrows()
    Qt = Q.transpose()
    E = identity(n) - Qt * Q
    ents = E.entries()
    rows = [sum((abs(x) for x in ents[i * n:(i + 1) * n]), arb(0)).abs_upper() for i in range(n)]
    e = max(rows, key=float)  # exact values (upper bounds); float only picks one, which is then compared exactly
    if not all(r <= e for r in rows) or not e < arb(1) / 2:
        return None
    eps = (e / (1 - e)).abs_upper()
    q = Q.entries()
    radii = [(eps * sum((abs(x) for x in q[j * n:(j + 1) * n]), arb(0))).abs_upper() for j in range(n)]
    qt = Qt.entries()
    return arb_mat(n, n, [qt[i * n + j] + arb(0, radii[j]) for i in range(n) for j in range(n)])


__all__ = ["LohnerSet", "orthogonal_inverse"]
