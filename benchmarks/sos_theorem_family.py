"""The ``theorem`` family of ``bench_sos_scale.py``: the first-token inequality of result 4.4-sym at high degree.

``lambda_1 - x^T U x - gap (1 - b^2) >= 0`` on the sphere ``|x|^2 = 1`` in ``d`` variables, with
eigenvalues ``(1, -1/2, -1, ..., -(d-1)/2)`` (gap ``3/2``) and ``b = <v, x>``:

* ``eigen``: in eigen-coordinates (``U`` diagonal, ``v = e_1``), as the theorem plan poses it;
* ``rotated``: ``U = R diag(...) R`` and ``v = R e_1`` for a rational Householder reflection ``R``
  (the same inequality in coordinates with no sign symmetry).

Term sparsity splits neither: the sphere's free multiplier reaches every monomial of degree up to
``degree - 2``, which joins every pair of the Gram block.

The polynomial vanishes on the circle ``{x in span(v, v_2), |x| = 1}`` (``v_2`` the second
eigenvector), so every Gram matrix of a certificate is singular there; ``zeros`` are 25 exact
rational points of that circle (stereographic parameters ``t = k / 7``).  At degree 8 in ``d = 7``
variables the SOS multiplier's Gram block has ``C(7 + 4, 4) = 330`` monomials.
"""
from __future__ import annotations

from fractions import Fraction


def householder(d: int, rotated: bool) -> list[list[Fraction]]:
    if not rotated:
        return [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    w = [1, 2, 0, 1, -1, 1, 3, 2, -2, 1][:d]
    ww = sum(x * x for x in w)
    return [[Fraction(int(i == j)) - Fraction(2 * w[i] * w[j], ww) for j in range(d)] for i in range(d)]


def sym44(d: int = 7, rotated: bool = False):
    """``(p, sphere, zeros, names)`` as exact polynomial dicts and rational points."""
    from verify._sos import poly

    eig = [Fraction(1)] + [Fraction(-k, 2) for k in range(1, d)]
    R = householder(d, rotated)
    gap = eig[0] - max(eig[1:])
    e = lambda i: tuple(int(k == i) for k in range(d))  # noqa: E731
    p: dict = {(0,) * d: eig[0] - gap}
    for i in range(d):
        for j in range(d):
            u = sum(R[i][k] * eig[k] * R[j][k] for k in range(d))
            if u:
                poly.add_into(p, {poly.mono_mul(e(i), e(j)): -u})
    b = {e(i): R[i][0] for i in range(d) if R[i][0]}
    poly.add_into(p, poly.scale(poly.mul(b, b), gap))
    p = {m: c for m, c in p.items() if c}
    sphere = poly.add({poly.mono_mul(e(i), e(i)): Fraction(1) for i in range(d)}, {(0,) * d: Fraction(-1)})
    zeros = []
    for t in [Fraction(k, 7) for k in range(-12, 13)]:
        c, s = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)
        zeros.append(tuple(c * R[i][0] + s * R[i][1] for i in range(d)))
    return p, sphere, zeros, tuple(f"x{i}" for i in range(d))
