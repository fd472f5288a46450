"""Soundness: no certified fate for claims built to be false (each false by an independent argument).

* A (driver, 12): ``U = I``, full mask, tokens split exactly between ``e`` and ``-e``: an exact
  equilibrium in no open hemisphere, so "consensus" is false; the driver must not certify a fate.
* B (certificates, 25): a consensus basin around ``e_k`` for ``U = diag(lambda)`` with ``lambda_k`` not the
  largest: ``e_k`` is an exact equilibrium whose linearisation has the eigenvalue
  ``max(lambda) - lambda_k > 0`` (docs/fate.md), so no neighbourhood converges to it.
* C, D, E (certificates, 4 or more each): from certified instances, the basin flipped to ``-x*`` (a valid basin
  the trajectory never enters: the 50-digit oracle converges to ``+x*``), an entry time at which a float
  simulation shows ``V > 2 r`` (V decreases in the basin, so the tokens were never in it before), and the
  fate relabelled (consensus <-> non-consensus).
"""
from __future__ import annotations

import dataclasses
import random
from fractions import Fraction

import numpy as np
import pytest

from fate_cases import eye, oracle, random_problem
from verify._fate import Fate, FateCertificate, FateProblem, certify_fate
from verify._fate.basin import Basin, chart_coordinates
from verify._fate.hints import float_field


def antipodal(seed: int) -> FateProblem:
    rng = random.Random(seed)
    d, N = rng.randint(2, 3), rng.randint(2, 4)
    e = [Fraction(0)] * d
    e[rng.randrange(d)] = Fraction(1)
    toks = [tuple(e), tuple(-v for v in e)] + [tuple(rng.choice((1, -1)) * v for v in e) for _ in range(N - 2)]
    P = tuple(tuple(Fraction(rng.randint(-8, 8), 8) for _ in range(d)) for _ in range(d))
    return FateProblem(Fraction(1), "full", ((P, eye(d)),), tuple(toks), False, f"antipodal-{seed}")


@pytest.mark.parametrize("seed", range(12))
def test_A_antipodal_split_is_never_certified(seed):
    p = antipodal(seed)
    X = p.float_tokens()
    assert np.max(np.abs(float_field(p, X))) == 0  # an exact equilibrium (also exactly in floats)
    report = certify_fate(p, t_max=3)
    assert report.fate is Fate.UNKNOWN and report.certificate is None


def unstable_consensus(seed: int) -> FateCertificate:
    rng = random.Random(100 + seed)
    d, N = rng.randint(2, 4), rng.randint(2, 5)
    lam = rng.sample([Fraction(k, 4) for k in range(-8, 9)], d)
    k = rng.choice([i for i in range(d) if lam[i] != max(lam)])
    U = tuple(tuple(lam[i] if i == j else Fraction(0) for j in range(d)) for i in range(d))
    P = tuple(tuple(Fraction(rng.randint(-8, 8), 8) for _ in range(d)) for _ in range(d))
    e = tuple(Fraction(int(i == k)) for i in range(d))
    p = FateProblem(Fraction(1), rng.choice(["full", "causal"]), ((P, U),), (e,) * N, False, f"saddle-{seed}")
    n = N * (d - 1)
    S = tuple(tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n))
    basin = Basin("consensus", ((k, 1),) * N, (Fraction(0),) * n, (Fraction(1, 2**30),) * n, (Fraction(1, 100),) * n,
                  S, Fraction(1, 10**6), 128)
    return FateCertificate(p, "consensus", "basin", Fraction(0), None, basin)


@pytest.mark.parametrize("seed", range(25))
def test_B_unstable_consensus_basin_is_rejected(seed):
    cert = unstable_consensus(seed)
    U = np.array(cert.problem.heads[0][1], dtype=float)
    k = cert.basin.charts[0][0]
    assert np.max(np.diag(U)) - U[k, k] > 0  # the unstable mean mode (independent of the checker)
    verdict = cert.recheck()
    assert not verdict.holds and "decrease" in verdict.reason


SMALL = [s for s in range(200, 300) if random_problem(s, max_N=3, max_d=3).N <= 3]


@pytest.fixture(scope="module")
def certified():
    out = []
    for seed in SMALL:  # two heads: the one-head projective route does not apply
        p = random_problem(seed, max_N=3, max_d=3)
        if len(p.heads) == 2:
            r = certify_fate(p, t_max=60)
            if r.route == "basin":
                out.append(r)
        if len(out) == 4:
            break
    assert len(out) >= 4
    return out


def test_C_flipped_basin_is_never_entered(certified):
    checked = 0
    for report in certified:
        cert = report.certificate
        flipped = dataclasses.replace(cert.basin, charts=tuple((k, -s) for k, s in cert.basin.charts),
                                      mid=tuple(-v for v in cert.basin.mid))  # -x* in the flipped charts
        forged = dataclasses.replace(cert, basin=flipped)
        X = oracle(cert.problem, 10 * max(float(cert.entry), 1.0), 30)
        y = chart_coordinates(flipped.charts, [[_ball(v) for v in x] for x in X])
        assert y is None or max(abs(float(a.mid()) - float(m)) for a, m in zip(y, flipped.mid)) > 0.5  # oracle: not -x*
        verdict = forged.recheck()
        assert not verdict.holds
        checked += "does not enter" in verdict.reason  # the basin itself is valid (the field is odd)
    assert checked >= 4


def test_D_entry_before_the_tokens_arrive(certified):
    from scipy.integrate import solve_ivp

    checked = 0
    for report in certified:
        cert = report.certificate
        b, p = cert.basin, cert.problem
        early = cert.entry / 4
        sol = solve_ivp(lambda _, y: float_field(p, y.reshape(p.N, p.d)).ravel(), (0, float(early)),
                        p.float_tokens().ravel(), method="DOP853", rtol=1e-12, atol=1e-14)
        X = sol.y[:, -1].reshape(p.N, p.d)
        y = chart_coordinates(b.charts, [[_ball(v) for v in x] for x in X])
        if y is not None:
            w = np.array([float(a.mid()) - float(m) for a, m in zip(y, b.mid)])
            if not w @ np.array(b.S, dtype=float) @ w > 2 * float(b.r):
                continue  # the claim might be true: not a false instance
        verdict = dataclasses.replace(cert, entry=early).recheck()
        assert not verdict.holds and "does not enter" in verdict.reason
        checked += 1
    assert checked >= 3


def test_E_relabelled_fate_is_rejected(certified):
    for report in certified:
        other = "non-consensus" if report.certificate.fate == "consensus" else "consensus"
        forged = dataclasses.replace(report.certificate, fate=other)
        assert not forged.recheck().holds
    assert len(certified) >= 4


def _ball(v: float):
    from flint import arb

    return arb(v)
