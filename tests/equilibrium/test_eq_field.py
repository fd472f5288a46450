"""Differential tests of the chart field against the project's float eq. 5 (numerics.field), and of
the arb enclosures against float evaluations."""
from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
from flint import ctx

from eq_helpers import searched
from numerics.field import attention_field
from verify.equilibrium.chart_field import FieldData, chart_field, token_points
from verify.equilibrium.krawczyk import arb_scalars, box_balls, rational_ball
from verify.equilibrium.search import FLOATS


def _random_data(rng, mask):
    d, N = rng.choice([2, 3, 4]), rng.choice([1, 2, 3])
    heads = tuple((tuple(tuple(Fraction(rng.randint(-8, 8), 4) for _ in range(d)) for _ in range(d)),
                   tuple(tuple(Fraction(rng.randint(-8, 8), 4) for _ in range(d)) for _ in range(d)))
                  for _ in range(rng.choice([1, 2])))
    charts = tuple((rng.randrange(d), rng.choice([1, -1])) for _ in range(N))
    return FieldData(d=d, beta=Fraction(rng.randint(1, 6), 3), mask=mask, heads=heads, charts=charts)


def _eq5(data, X):
    P = np.array([[[float(v) for v in row] for row in P] for P, _ in data.heads])[None]
    U = np.array([[[float(v) for v in row] for row in U] for _, U in data.heads])[None]
    return attention_field(X[None], P, U, np.array([float(data.beta)]), data.mask == "causal")[0]


def test_chart_field_is_eq5_pushed_through_the_chart():
    """dy/dt = d/dt (sign x / x_k) without the pivot, from the independent float field of eq. 5."""
    rng = random.Random(7)
    for trial in range(60):
        data = _random_data(rng, rng.choice(["causal", "full"]))
        y = [rng.uniform(-2, 2) for _ in range(data.n)]
        X = np.array(token_points(data, y, FLOATS))
        F = _eq5(data, X)
        expected = []
        for i, (k, sign) in enumerate(data.charts):
            x, f = X[i], F[i]
            expected += [sign * (f[a] * x[k] - x[a] * f[k]) / x[k] ** 2 for a in data.slots(i)]
        values, rows = chart_field(data, y, FLOATS, jacobian=True)
        assert np.allclose(values, expected, rtol=1e-9, atol=1e-10)
        h = 1e-6  # central differences for the Jacobian
        for c in range(data.n):
            up, dn = list(y), list(y)
            up[c] += h
            dn[c] -= h
            fd = (np.array(chart_field(data, up, FLOATS, False)[0]) - np.array(chart_field(data, dn, FLOATS, False)[0])) / (2 * h)
            assert np.allclose(np.array(rows)[:, c], fd, rtol=1e-5, atol=1e-5)


def test_arb_enclosures_contain_float_values():
    rng = random.Random(11)
    for trial in range(20):
        data = _random_data(rng, "causal")
        mid = [Fraction(rng.randint(-512, 512), 256) for _ in range(data.n)]
        rad = [Fraction(1, 2**12)] * data.n
        with ctx.workprec(96):
            vals, rows = chart_field(data, box_balls(mid, rad), arb_scalars(), jacobian=True)
            for _ in range(5):
                y = [float(m) + rng.uniform(-1, 1) * float(r) * 0.99 for m, r in zip(mid, rad)]
                fv, fr = chart_field(data, y, FLOATS, jacobian=True)
                for ball, v in zip(vals, fv):
                    assert ball.overlaps(rational_ball(Fraction(v)))
                for brow, frow in zip(rows, fr):
                    assert all(b.overlaps(rational_ball(Fraction(v))) for b, v in zip(brow, frow))


def test_certified_equilibria_are_zeros_of_eq5():
    for theorem_id in ("4.4-sym-later", "4.4-same-sign"):
        cert = searched(theorem_id).certificate
        X = np.array(token_points(cert.data, [float(v) for v in cert.mid], FLOATS))
        assert np.allclose(np.linalg.norm(X, axis=1), 1)
        assert np.abs(_eq5(cert.data, X)).max() < 1e-9
