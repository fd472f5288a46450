"""Soundness: the prover never certifies a box without an equilibrium.

* 120 random boxes (random causal one-head systems, random charts) on which the float field is
  bounded away from zero: sampled at the midpoint, every corner direction and random points, with
  ``|phi|_inf >= MARGIN`` everywhere and a radius so small that the field cannot vary by MARGIN / 2
  inside (checked from the sampled Jacobian);
* boxes next to the certified equilibria, shifted by 3 radii: they exclude the equilibrium, which
  is the only zero in a certified box 8 radii wide (Krawczyk uniqueness), so they contain none.
"""
from __future__ import annotations

import dataclasses
import itertools
import random
from fractions import Fraction

import numpy as np
from flint import ctx

from eq_helpers import CASES, searched
from verify.equilibrium.certificate import EquilibriumCertificate
from verify.equilibrium.chart_field import FieldData, chart_field
from verify.equilibrium.claims import check_hypotheses
from verify.equilibrium.krawczyk import krawczyk
from verify.equilibrium.search import FLOATS
from verify.equilibrium.stability import solve_lyapunov, token_blocks

MARGIN = 1e-2
RAD = Fraction(1, 2**20)


def _random_data(rng: random.Random) -> FieldData:
    d, N = 3, rng.choice([2, 3])
    while True:
        U = [[Fraction(rng.randint(-16, 16), 8) for _ in range(d)] for _ in range(d)]
        U = tuple(tuple(U[min(a, b)][max(a, b)] for b in range(d)) for a in range(d))  # symmetric
        P = tuple(tuple(Fraction(rng.randint(-8, 8), 8) for _ in range(d)) for _ in range(d))
        charts = tuple((rng.randrange(d), rng.choice([1, -1])) for _ in range(N))
        data = FieldData(d=d, beta=Fraction(rng.randint(1, 4), 2), mask="causal", heads=((P, U),), charts=charts)
        if check_hypotheses("later-token-alignment", data)[0]:
            return data


def _no_zero_by_sampling(data: FieldData, mid: list[float], rng: random.Random) -> bool:
    r = float(RAD)
    points = [mid] + [[m + r * s for m, s in zip(mid, signs)] for signs in itertools.islice(
        itertools.product([-1, 1], repeat=len(mid)), 16)] + [[m + rng.uniform(-r, r) for m in mid] for _ in range(8)]
    for y in points:
        values, rows = chart_field(data, y, FLOATS, jacobian=True)
        if max(abs(v) for v in values) < MARGIN:
            return False
        if np.abs(np.array(rows)).sum(axis=1).max() * r * 2 > MARGIN / 2:  # variation across the box
            return False
    return True


def _certificate(data: FieldData, mid, rad) -> EquilibriumCertificate:
    """A certificate for the box with stability data that would pass if the box held an equilibrium."""
    m = data.d - 1
    _, rows = chart_field(data, [float(v) for v in mid], FLOATS, jacobian=True)
    J = np.array(rows)
    blocks = []
    for idx in token_blocks(data.N, m, data.mask):
        A = tuple(tuple(Fraction(round(J[r, c] * 2**32), 2**32) for c in idx) for r in idx)
        S = solve_lyapunov(A)
        if S is None or not all(S[i][i] > 0 for i in range(m)):
            A = tuple(tuple(Fraction(-int(i == j)) for j in range(m)) for i in range(m))
            S = solve_lyapunov(A)
        blocks.append((A, tuple(tuple(r) for r in S)))
    return EquilibriumCertificate(refutes="later-token-alignment", witness=(data.N - 1,), data=data, mid=tuple(mid),
                                  rad=tuple(rad), blocks=tuple(blocks), precision=128, instance_tokens=data.N)


def test_random_boxes_without_equilibrium_are_never_certified():
    rng = random.Random(20260112)
    checked = 0
    while checked < 120:
        data = _random_data(rng)
        mid = [Fraction(rng.randint(-1024, 1024), 1024) for _ in range(data.n)]
        if not _no_zero_by_sampling(data, [float(v) for v in mid], rng):
            continue
        with ctx.workprec(128):
            assert not krawczyk(data, mid, [RAD] * data.n).contained
        verdict = _certificate(data, mid, [RAD] * data.n).recheck()
        assert not verdict.holds and "Krawczyk" in verdict.reason, verdict.reason
        checked += 1
    assert checked == 120


def test_boxes_next_to_a_certified_equilibrium_are_never_certified():
    checked = 0
    for theorem_id in CASES:
        cert = searched(theorem_id).certificate
        r = cert.rad[0]
        with ctx.workprec(cert.precision):  # the equilibrium is the only zero within 8 radii
            assert krawczyk(cert.data, cert.mid, [8 * r] * len(cert.mid)).contained
        for k, shift in itertools.product(range(len(cert.mid)), (-3, 3)):
            mid = list(cert.mid)
            mid[k] += shift * r
            moved = dataclasses.replace(cert, mid=tuple(mid))
            verdict = moved.recheck()
            assert not verdict.holds and "Krawczyk" in verdict.reason
            checked += 1
    assert checked == 2 * (8 + 4)


def test_unstable_equilibrium_is_not_certified_as_stable():
    """(e1, -e1) with P = diag(-3, 0, 0) is still an exact equilibrium, but token 2 now attends mostly
    to token 1 and is pushed away from -e1: unstable (float evidence below).  Krawczyk encloses it; the
    stability data built from its true Jacobian blocks (or the stand-in A = -I) are rejected."""
    cert = searched("4.4-same-sign").certificate
    (P, U), = cert.data.heads
    P = tuple(tuple(-v if (a, b) == (0, 0) else v for b, v in enumerate(row)) for a, row in enumerate(P))
    data = dataclasses.replace(cert.data, heads=((P, U),))
    _, rows = chart_field(data, [0.0] * 4, FLOATS, jacobian=True)
    assert max(np.linalg.eigvals(np.array(rows)[2:, 2:]).real) > 0  # independent float evidence: unstable
    with ctx.workprec(128):
        assert krawczyk(data, cert.mid, cert.rad).contained  # the equilibrium exists
    verdict = _certificate(data, cert.mid, cert.rad).recheck()
    forged = dataclasses.replace(_certificate(data, cert.mid, cert.rad), refutes="same-sign-consensus", witness=(0, 1))
    for v in (verdict, forged.recheck()):
        assert not v.holds and "stability block 1" in v.reason, v.reason
