"""Adversarial tests for `verify/_fate/head_moving.py`: the ball check of the moving-consensus lemma must refuse
every datum for which some member of the balls violates a hypothesis, and the job must never certify a false
consensus.  Independent evidence: exact checks (`check_moving`, fraction-free LDL^T) at the vertices of the balls
and float simulations of the dynamics.  Five defects found by this review (negative norm bounds accepted, a
forged proposal certifying a stationary antipodal pair, NaN in A or B raising, a float beta raising, ``** 2`` of
a ball around 0 giving nan in the entry test) are fixed; their tests now pass."""
from __future__ import annotations

import itertools
import time
from dataclasses import replace
from fractions import Fraction as F

import flint
import numpy as np
import pytest
from flint import arb, arb_mat

from fate_cases import random_problem
from verify._fate import FateProblem, head_moving
from verify._fate.head_moving import _rat, check_head_moving, run_moving_head
from verify._fate.moving import Moving, Region, check_moving, kappa, moving_entered
from verify._fate.moving_hints import propose_moving

I2 = ((F(1), F(0)), (F(0), F(1)))
HALF = _rat([[F(1, 2), F(0)], [F(0), F(1, 2)]])  # U = I/2: x^T U x = 1/2 on the sphere
ZERO = _rat([[F(0), F(0)], [F(0), F(0)]])
GOOD = Moving(I2, F(1, 2), F(2), F(1, 4), F(0), (F(1),), (F(1),), F(1, 100))
TINY = F(1, 10 ** 300)


def _ball(M, r):
    return arb_mat([[arb(float(v), r) for v in row] for row in M])


def test_baseline_is_certified():
    out = check_head_moving(HALF, ZERO, GOOD)
    assert out.ok and out.kappa == kappa(type("B", (), {"beta": F(1)})(), GOOD) > 0


# --- negative norm bounds: ``u^2 I - U^T U > 0`` holds for u < 0 too, and a negative u or p raises kappa ---------

NEGATIVE = [((F(-1),), (F(1),), F(1000)), ((F(1),), (F(-1),), F(1000)), ((F(-1),), (F(-1),), F(3))]


@pytest.mark.parametrize("unorm,pnorm,Dmax", NEGATIVE)
def test_negative_norm_bounds_make_kappa_positive(unorm, pnorm, Dmax):
    """The forged data really make (d) hold for a diameter bound that the antipodal pair meets (so the lemma would
    claim its collapse) while the true norm bounds do not."""
    bad = replace(GOOD, unorm=unorm, pnorm=pnorm, Dmax=Dmax)
    assert kappa(type("B", (), {"beta": F(1)})(), bad) > 0
    assert kappa(type("B", (), {"beta": F(1)})(), replace(bad, unorm=(F(1),), pnorm=(F(1),))) < 0
    assert moving_entered(bad, [[arb(1), arb(0)], [arb(-1), arb(0)]])


@pytest.mark.parametrize("unorm,pnorm,Dmax", NEGATIVE)
def test_negative_norm_bounds_are_refused(unorm, pnorm, Dmax):
    assert not check_head_moving(HALF, ZERO, replace(GOOD, unorm=unorm, pnorm=pnorm, Dmax=Dmax)).ok


def _simulate(V, O, A, B, tokens, beta, t):
    """Float reference (rtol 1e-11) of eq. 5 for one head, full mask: the diameter at ``t``."""
    from scipy.integrate import solve_ivp

    U, P = O.T @ V.T, beta * A @ B.T
    X0 = tokens / np.linalg.norm(tokens, axis=1, keepdims=True)
    N, D = X0.shape

    def f(_t, y):
        X = y.reshape(N, D)
        S = X @ P @ X.T
        W = np.exp(S - S.max(axis=1, keepdims=True))
        W /= W.sum(axis=1, keepdims=True)
        G = W @ X @ U.T
        return (G - X * np.sum(X * G, axis=1, keepdims=True)).ravel()
    X = solve_ivp(f, (0, t), X0.ravel(), method="DOP853", rtol=1e-11, atol=1e-13).y[:, -1].reshape(N, D)
    return float(np.max(np.linalg.norm(X[:, None] - X[None], axis=-1)))


ANTIPODAL = (0.5 * np.eye(3), np.eye(3), 0.25 * np.eye(3), np.eye(3), np.array([[1.0, 0, 0], [-1.0, 0, 0]]))


def test_antipodal_pair_is_stationary_and_not_certified():
    """``U = I/2``: the pair ``e1, -e1`` is an equilibrium (every ``m_i`` is a multiple of ``e1``): no consensus."""
    assert _simulate(*ANTIPODAL, 1.0, 30.0) > 1.999
    r = run_moving_head(*ANTIPODAL, F(1), False, time.time() + 30)
    assert not (r["ran"] and r["entered"]), r


def test_forged_negative_norm_proposal_does_not_certify_the_antipodal_pair(monkeypatch):
    real = head_moving.propose

    def forged(flow):
        cands, why = real(flow)
        assert cands, why
        return [replace(m, unorm=(-m.unorm[0],), Dmax=F(100)) for m in cands], why
    monkeypatch.setattr(head_moving, "propose", forged)
    r = run_moving_head(*ANTIPODAL, F(1), False, time.time() + 30)
    assert not (r["ran"] and r["entered"]), r


# --- non-finite, wide and malformed balls -------------------------------------------------------------------------

def test_nonfinite_and_wide_balls_are_refused():
    nan = arb("nan")
    bad = [
        (arb_mat([[arb(0.5), nan], [arb(0), arb(0.5)]]), ZERO),
        (HALF, arb_mat([[nan, arb(0)], [arb(0), arb(0)]])),
        (arb_mat([[arb(0.5, 1e300), arb(0)], [arb(0), arb(0.5)]]), ZERO),
        (arb_mat([[arb(0.5), arb(0) + arb("inf") * arb(0, 1)], [arb(0), arb(0.5)]]), ZERO),
        (HALF, _ball([[0, 0], [0, 0]], 2.0)),  # a P ball wider than the bound p = 1
        (_ball([[0.5, 0], [0, 0.5]], 0.6), ZERO),  # a member with ||U|| > u = 1
    ]
    for U, P in bad:
        assert not check_head_moving(U, P, GOOD).ok


def test_a_ball_whose_midpoint_works_but_a_member_does_not_is_refused():
    """Midpoint ``I/2`` satisfies (b) with ``mu = 0.45``; the member ``I/4`` of the ball ``I/2 +- 1/4`` does not."""
    m = replace(GOOD, mu=F(45, 100), Dmax=F(1, 1000))
    assert check_head_moving(HALF, ZERO, m).ok
    p = FateProblem(F(1), "full", ((((F(0), F(0)), (F(0), F(0))), ((F(1, 4), F(0)), (F(0), F(1, 4)))),),
                    I2, True)
    assert not check_moving(p, m).ok  # the member violates (b) exactly
    assert not check_head_moving(_ball([[0.5, 0], [0, 0.5]], 0.25), ZERO, m).ok
    U = arb_mat([[arb(0.5), arb(0, 0.25)], [arb(0, 0.25), arb(0.5)]])  # off-diagonal only: sym U = [[.5,.25],[.25,.5]]
    assert not check_head_moving(U, ZERO, m).ok


def test_shapes_are_refused():
    U23 = arb_mat([[arb(0.5), arb(0), arb(0)], [arb(0), arb(0.5), arb(0)]])
    U3 = _rat([[F(1, 2) if i == j else F(0) for j in range(3)] for i in range(3)])
    assert not check_head_moving(U23, ZERO, GOOD).ok
    assert not check_head_moving(U23.transpose(), ZERO, GOOD).ok
    assert not check_head_moving(HALF, _rat([[F(0)] * 3] * 3), GOOD).ok
    assert not check_head_moving(U3, _rat([[F(0)] * 3] * 3), GOOD).ok  # G is 2x2
    assert not check_head_moving(HALF, ZERO, replace(GOOD, unorm=())).ok
    assert not check_head_moving(HALF, ZERO, replace(GOOD, pnorm=(F(1), F(1)))).ok
    region = Region(((F(1),),), F(0), F(0), F(2))
    assert not check_head_moving(HALF, ZERO, replace(GOOD, region=region)).ok


class _SubFraction(F):
    pass


def test_inexact_types_and_causal_data_are_refused():
    forged = [replace(GOOD, mu=1), replace(GOOD, mu=True), replace(GOOD, mu=0.25), replace(GOOD, mu=np.float64(0.25)),
              replace(GOOD, Dmax=_SubFraction(1, 100)), replace(GOOD, G=((F(1), 0), (F(0), F(1)))),
              replace(GOOD, unorm=(1,)), replace(GOOD, G=np.array(I2, dtype=object)),
              replace(GOOD, causal=object()), replace(GOOD, causal=0), replace(GOOD, causal=False),
              replace(GOOD, region=Region(((1, 0), (0, 1)), F(0), F(0), F(2))),
              replace(GOOD, region=Region(I2, F(0), 0.0, F(2)))]
    for m in forged:
        assert not check_head_moving(HALF, ZERO, m).ok, m


def test_tiny_asymmetry_and_signs_are_refused():
    G = ((F(1), TINY), (F(0), F(1)))
    Q = ((F(1), F(0)), (TINY, F(1)))
    assert not check_head_moving(HALF, ZERO, replace(GOOD, G=G)).ok
    assert not check_head_moving(HALF, ZERO, replace(GOOD, tau2=F(1), region=Region(Q, F(0), F(0), F(2)))).ok
    for bad in (replace(GOOD, mu=F(0)), replace(GOOD, mu=-TINY), replace(GOOD, Dmax=F(0)), replace(GOOD, Dmax=-TINY),
                replace(GOOD, g_lo=F(0)), replace(GOOD, g_lo=-F(1, 2)), replace(GOOD, tau2=TINY),
                replace(GOOD, tau2=-TINY, region=Region(I2, F(0), F(0), F(2)))):
        assert not check_head_moving(HALF, ZERO, bad).ok


@pytest.mark.parametrize("prec", [53, 128, 600])
def test_boundaries_at_any_precision(prec):
    """Exact boundary values (and one rational 1e-300 beyond) are refused; 1e-300 inside kappa's root is exact."""
    k0 = replace(GOOD, mu=(F(1, 100) * 9 + F(1, 10 ** 4) / 2 + F(1, 10 ** 6) / 4) / 2)  # kappa exactly 0
    with flint.ctx.workprec(prec):
        U = _rat([[F(1, 2), F(0)], [F(0), F(1, 2)]])
        P = _rat([[F(0), F(0)], [F(0), F(0)]])
        for bad in (k0, replace(k0, mu=k0.mu - TINY), replace(GOOD, mu=F(1, 2)), replace(GOOD, mu=F(1, 2) + TINY),
                    replace(GOOD, g_lo=F(1)), replace(GOOD, g_lo=F(1) + TINY), replace(GOOD, g_hi=F(1)),
                    replace(GOOD, g_hi=F(1) - TINY), replace(GOOD, unorm=(F(1, 2),)),
                    replace(GOOD, unorm=(F(1, 2) - TINY,)), replace(GOOD, pnorm=(F(0),)),
                    replace(GOOD, region=Region(I2, F(0), F(0), F(1)))):
            assert not check_head_moving(U, P, bad).ok, bad
        out = check_head_moving(U, P, replace(k0, mu=k0.mu + TINY))
        assert out.ok and out.kappa == 2 * TINY


def test_an_empty_region_is_vacuous_never_entered():
    """``gamma > ||Q||``: (b) and (c) hold for any ``mu`` (tau1, tau2 absorb them), so the entry condition must be
    impossible for every unit token."""
    m = replace(GOOD, mu=F(10), tau2=F(100), region=Region(I2, F(2), F(-100), F(11, 10)))
    rng = np.random.default_rng(0)
    for _ in range(20):
        X = rng.normal(size=(3, 2))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        assert not moving_entered(m, [[arb(float(v)) for v in x] for x in X])


# --- every certificate holds at every vertex of the balls (exact check) --------------------------------------------

def _vertices(M, r):
    d = len(M)
    for signs in itertools.product((-1, 1), repeat=d * d):
        yield tuple(tuple(M[i][j] + signs[i * d + j] * r for j in range(d)) for i in range(d))


@pytest.mark.parametrize("seed", [2, 3, 5, 6, 7, 8, 9, 10])  # the seeds with a candidate
def test_ball_certificates_hold_at_every_vertex(seed):
    """Random 2x2 heads, balls of radius 2^-k around them, candidates pushed toward their limits (mu, Dmax, u, p
    scaled): whatever the ball check accepts, the exact lemma check accepts at each of the 16 + 16 vertices."""
    p = random_problem(seed, nonsymmetric=True, max_d=2)
    p = replace(p, mask="full", heads=p.heads[:1])
    cands, _ = propose_moving(p)
    if not cands:
        pytest.skip("no candidate")
    P0, U0 = p.heads[0]
    Pb = tuple(tuple(v * p.beta for v in row) for row in P0)
    accepted = 0
    for m0 in cands[:2]:
        m0 = replace(m0, pnorm=(m0.pnorm[0] * p.beta,))
        grid = itertools.product((40, 20, 9), (1, F(5, 4), F(3, 2)), (F(1, 2), 1, 2), (1, 1 + F(1, 64)))
        for k, f_mu, f_D, f_u in grid:
            r = F(1, 2 ** k)
            m = replace(m0, mu=m0.mu * f_mu, Dmax=m0.Dmax * f_D, unorm=(m0.unorm[0] * f_u,), pnorm=(m0.pnorm[0] * f_u,))
            if not check_head_moving(_ball(U0, float(r)), _ball(Pb, float(r)), m).ok:
                continue
            accepted += 1
            for Uv in _vertices(U0, r):
                assert check_moving(replace(p, beta=F(1), heads=((Pb, Uv),)), m).ok, (m, Uv)
            for Pv in _vertices(Pb, r):
                assert check_moving(replace(p, beta=F(1), heads=((Pv, U0),)), m).ok, (m, Pv)
    assert accepted > 0


# --- the job: bad inputs, odd beta, and certificates against a simulation -----------------------------------------

def _head(tokens, U=None, A=None):
    U = np.array([[0.8, -0.3, 0.0], [0.3, 0.8, 0.0], [0.0, 0.0, -0.2]]) if U is None else U
    A = 0.25 * np.eye(3) if A is None else A
    return [U.T.copy(), np.eye(3), A, np.eye(3), np.asarray(tokens, float)]


CLOSE = [[1.0, 0.05, 0.1], [0.95, 0.15, -0.05], [1.0, -0.1, 0.05]]


@pytest.mark.parametrize("which", [0, 1, 4])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_V_O_tokens_are_refused(which, bad):
    args = _head(CLOSE)
    args[which] = args[which].copy()
    args[which][0, 0] = bad
    r = run_moving_head(*args, F(1, 2), False, time.time() + 30)
    assert not r["ran"] and "finite" in r["why"]


@pytest.mark.parametrize("which", [2, 3])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_A_B_are_refused(which, bad):
    args = _head(CLOSE)
    args[which] = args[which].copy()
    args[which][0, 0] = bad
    r = run_moving_head(*args, F(1, 2), False, time.time() + 30)
    assert not r["ran"]


def test_zero_token_is_refused():
    r = run_moving_head(*_head([[0, 0, 0]] + CLOSE[1:]), F(1, 2), False, time.time() + 30)
    assert not r["ran"] and "zero" in r["why"]


def test_entry_with_coinciding_coordinates_is_decided():
    x = [arb(1, 1e-30), arb(0, 1e-30)]
    assert moving_entered(GOOD, [x, [arb(1, 1e-30), arb(0, 1e-30)]])


def test_float_beta_gives_a_clear_answer():
    """A float is the binary rational it holds (0.5 is 1/2 exactly): the same answer as ``Fraction(1, 2)``."""
    r = run_moving_head(*_head(CLOSE), 0.5, False, time.time() + 30)
    q = run_moving_head(*_head(CLOSE), F(1, 2), False, time.time() + 30)
    assert r["ran"] and q["ran"] and (r["entered"], r["time"], r["Dmax"]) == (q["entered"], q["time"], q["Dmax"])
    for bad in (F(0), F(-1, 2), float("nan"), float("inf"), True, "1/2"):
        out = run_moving_head(*_head(CLOSE), bad, False, time.time() + 30)
        assert not out["ran"] and "finite positive" in out["why"]


@pytest.mark.parametrize("beta", [F(1, 8), F(1), F(3)])
def test_certificates_for_odd_beta_agree_with_a_simulation(beta):
    """beta folded into P; whatever is certified must decay as claimed (beta <= 0 is refused: see above)."""
    args = _head(CLOSE)
    r = run_moving_head(*args, beta, False, time.time() + 60)
    assert r["ran"] and r["entered"], r  # all three are certified today; the point is the check below
    t = float(F(r["time"]))
    for extra in (10.0, 40.0):
        later = _simulate(*args, float(beta), t + extra)
        assert later <= 2 * r["Dmax"] * np.exp(-r["kappa"] * extra / 2) + 1e-9, (beta, later, r)
