"""The Lohner frame's inverse for large systems (verify.validated.lohner.orthogonal_inverse): an enclosure of
``Q^{-1}`` from one product, checked against the exact rational inverse; a matrix that is not nearly orthogonal
gets None (the caller then inverts in arb)."""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest
from flint import arb, ctx, fmpq, fmpq_mat

from verify.validated.balls import from_floats
from verify.validated.lohner import ORTHOGONAL_FROM, LohnerSet, orthogonal_inverse


def _exact(M: np.ndarray) -> fmpq_mat:
    n = M.shape[0]
    return fmpq_mat(n, n, [fmpq(*Fraction(float(x)).as_integer_ratio()) for x in M.ravel()])


@pytest.mark.parametrize("seed", [0, 1])
def test_the_enclosure_contains_the_exact_inverse(seed):
    n = ORTHOGONAL_FROM
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
    with ctx.workprec(128):
        inv = orthogonal_inverse(from_floats(q))
        exact = _exact(q).inv()
        assert inv is not None
        assert all(inv[i, j].contains(arb(exact[i, j])) for i in range(n) for j in range(n))
        assert max(float(inv[i, j].rad()) for i in range(n) for j in range(n)) < 1e-12


def test_a_matrix_far_from_orthogonal_is_refused():
    n = ORTHOGONAL_FROM
    q, _ = np.linalg.qr(np.random.default_rng(2).standard_normal((n, n)))
    with ctx.workprec(128):
        assert orthogonal_inverse(from_floats(2 * q)) is None          # Q^T Q = 4 I
        near = q + 0.01 * np.eye(n)                                    # not orthogonal: enclosed or refused
        inv = orthogonal_inverse(from_floats(near))
        if inv is not None:
            exact = _exact(near).inv()
            assert all(inv[i, j].contains(arb(exact[i, j])) for i in range(n) for j in range(n))
        skew = q.copy()
        skew[:, 0] = skew[:, 1]                                         # singular: must be refused
        assert orthogonal_inverse(from_floats(skew)) is None


def test_a_lohner_step_of_a_large_set_stays_rigorous():
    """``advance`` with ``n >= ORTHOGONAL_FROM`` (the new inverse): a linear map ``phi(x) = J x`` with exact ``J``;
    every image of sampled points of the set lies in the new set's hull."""
    n = ORTHOGONAL_FROM
    rng = np.random.default_rng(3)
    J = np.eye(n) + 0.05 * rng.standard_normal((n, n))
    with ctx.workprec(128):
        box = flint.arb_mat(n, 1, [arb(float(v), 1e-3) for v in rng.standard_normal(n)])
        S = LohnerSet.from_box(box)
        Ja = flint.arb_mat(n, n, [arb(float(x)) for x in J.ravel()])
        image = Ja * S.xhat
        new = S.advance(image, Ja)
        for _ in range(20):
            x = np.array([float(box[i, 0].mid()) for i in range(n)]) + rng.uniform(-1e-3, 1e-3, n)
            y = _exact(J) * fmpq_mat(n, 1, [fmpq(*Fraction(float(v)).as_integer_ratio()) for v in x])
            assert all(new.box[i, 0].contains(arb(y[i, 0])) for i in range(n))
