"""Enclosures of the field's Jacobian and of the step Jacobian (Gronwall box, Lagrange remainder).

* :func:`field_jacobian` — ``DF(Z)`` over a box (order-1 tangents, :mod:`.tangent`);
  :func:`centered_field` — the mean-value form ``F(c) + DF(Z) (Z - c)`` (``c`` the midpoint)
  intersected with the natural interval extension ``F(Z)``: both contain ``{F(z) : z in Z}``, and
  the first is much tighter on wide boxes, which the Picard test needs.
* :func:`gronwall_box` — for ``V' = A(s) V``, ``V(0) = I`` with every ``A(s)`` in the interval
  matrix ``DF``: ``|V(s) - I|_max <= ||V(s) - I||_inf <= exp(h mu) - 1``, ``mu = ||DF||_inf``.
* :func:`jacobian_remainder` — the Lagrange remainder of the step Jacobian
  ``D phi_h(y) - sum_{j<=m} h^j D X_j(y)``: entry ``(p, q)`` is the ``(m+1)``-th Taylor
  coefficient of ``V_pq`` at some ``xi in [0, h]`` times ``h^{m+1}``, that coefficient is
  ``(D X_{m+1}(x(xi)) V(xi))_pq`` (the variational flow restarted at ``xi``), and ``x(xi) in B``,
  ``V(xi) in W``; so the entry lies in ``(h^{m+1} D X_{m+1}(B) W)_pq``.

Not guaranteed: tightness (``D X_{m+1}(B)`` over the wide a-priori box is overestimated); the
integrator only needs the remainder's row sums small (they bound the relative growth it causes).
"""
from __future__ import annotations

from flint import arb, arb_mat

from .balls import identity, intersect
from .series import Heads, series
from .tangent import Tangent


def field_jacobian(Z: arb_mat, heads: Heads, causal: bool) -> arb_mat:
    """``DF(Z)`` (``n x n``, ``n = N d``) over the box ``Z``."""
    return Tangent(series(Z, heads, causal, 1), 1).jacobian(1)


def centered_field(Z: arb_mat, heads: Heads, causal: bool,
                   DF: arb_mat | None = None) -> tuple[arb_mat, arb_mat]:
    """``(F(Z) enclosure, DF)``: the mean-value form intersected with the natural one.  ``DF``,
    when given, must enclose the Jacobian on a box containing ``Z`` (it is computed otherwise)."""
    N, d = Z.nrows(), Z.ncols()
    natural = series(Z, heads, causal, 1).X[1]
    c = arb_mat(N, d, [x.mid() for x in Z.entries()])
    Fc = series(c, heads, causal, 1).X[1]
    if DF is None:
        DF = field_jacobian(Z, heads, causal)
    spread = DF * arb_mat(N * d, 1, (Z - c).entries())
    centred = Fc + arb_mat(N, d, spread.entries())
    return intersect(natural, centred), DF


def row_abs_sums(M: arb_mat) -> list[arb]:
    n, m = M.nrows(), M.ncols()
    ent = M.entries()
    return [sum((ent[p * m + q].abs_upper() for q in range(m)), arb(0)) for p in range(n)]


def column_abs_sums(M: arb_mat) -> list[arb]:
    return row_abs_sums(M.transpose())


def gronwall_box(DF: arb_mat, h: arb) -> arb_mat:
    """Enclosure of ``V(s)``, ``s in [0, h]`` (see the module docstring)."""
    n = DF.nrows()
    mu = arb(0)
    for row in row_abs_sums(DF):
        mu = mu.max(row)
    omega = ((h * mu).exp() - 1).abs_upper()
    return identity(n) + arb_mat(n, n, [arb(0, omega)] * (n * n))


def jacobian_remainder(D: arb_mat, W: arb_mat, hpow: arb) -> arb_mat:
    """``hpow D W``: with ``D`` enclosing ``D X_{m+1}`` on ``B`` and ``W`` enclosing ``V`` on ``[0, h]``,
    this encloses the Lagrange remainder of the step Jacobian (``hpow = h^{m+1}``, or the ball
    ``[0, h]^{m+1}`` for every ``s in [0, h]``)."""
    return D * W * hpow


def refined_w(W: arb_mat, taylor_part: arb_mat, D: arb_mat, hpow: arb) -> arb_mat:
    """``W ∩ (sum_{j<=m} [0,h]^j D X_j(Y) + [0,h]^{m+1} D W)``: again an enclosure of ``V`` on ``[0, h]``."""
    return intersect(W, taylor_part + jacobian_remainder(D, W, hpow))


__all__ = ["centered_field", "column_abs_sums", "field_jacobian", "gronwall_box", "jacobian_remainder",
           "refined_w", "row_abs_sums"]
