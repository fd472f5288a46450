"""Moving consensus for real heads (`verify/_fate/head_moving.py`): the lemma proved for ball data, its job and
the map's pass.  The ball check must agree with the exact check on rational instances, refuse every tampered
or forged datum, and the job must certify only what a float simulation confirms."""
from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from flint import arb, arb_mat

from fate_cases import random_problem
from verify._fate import head_moving
from verify._fate.head_moving import _q, _rat, check_head_moving, run_moving_head
from verify._fate.head_moving_pass import moving_pass
from verify._fate.moving import check_moving
from verify._fate.moving_hints import propose_moving

SEEDS = range(1, 9)  # one head, full mask: every one has a moving-consensus candidate


def _case(seed):
    p = random_problem(seed, nonsymmetric=True)
    p = replace(p, mask="full", heads=p.heads[:1])
    cands, why = propose_moving(p)
    assert cands, why
    P, U = p.heads[0]
    m = cands[0]
    return p, replace(m, pnorm=(m.pnorm[0] * p.beta,)), _rat(U), _rat(P) * _q(p.beta)


@pytest.mark.parametrize("seed", SEEDS)
def test_ball_check_agrees_with_the_exact_check(seed):
    p, m, U, P = _case(seed)
    assert check_moving(p, replace(m, pnorm=(m.pnorm[0] / p.beta,))).ok
    out = check_head_moving(U, P, m)
    assert out.ok, out.reason
    assert out.kappa > 0


def _tampered(m, U, P):
    d = U.nrows()
    G = [list(r) for r in m.G]
    G[0][1] += Fraction(1, 3)
    yield "mu doubled", replace(m, mu=m.mu * 2), U, P
    yield "Dmax x50", replace(m, Dmax=m.Dmax * 50), U, P
    yield "u halved", replace(m, unorm=(m.unorm[0] / 2,)), U, P
    yield "p halved", replace(m, pnorm=(m.pnorm[0] / 2,)), U, P
    yield "U negated", m, U * arb(-1), P
    yield "P scaled x100", m, U, P * arb(100)
    yield "G not symmetric", replace(m, G=tuple(tuple(r) for r in G)), U, P
    yield "g_lo above G", replace(m, g_lo=m.g_hi * 2), U, P
    yield "g_hi below G", replace(m, g_hi=m.g_lo / 2), U, P
    yield "a float", replace(m, mu=float(m.mu)), U, P
    yield "causal data", replace(m, causal=object()), U, P
    yield "two norm bounds", replace(m, unorm=m.unorm * 2), U, P
    yield "wide balls", m, U + arb_mat([[arb(0, 0.5) for _ in range(d)] for _ in range(d)]), P
    if m.region is not None:
        r = m.region
        yield "gamma x1e6", replace(m, region=replace(r, gamma=r.gamma * 10**6 + 1)), U, P
        yield "n_Q tiny", replace(m, region=replace(r, qnorm=r.qnorm / 1000)), U, P
        yield "tau2 negative", replace(m, tau2=-abs(m.tau2) - 1), U, P
        yield "region dropped", replace(m, region=None, tau2=Fraction(0)), U, P


@pytest.mark.parametrize("seed", [1, 3, 5, 8])
def test_tampered_or_forged_data_are_refused(seed):
    _, m, U, P = _case(seed)
    names = []
    for name, bad, Ub, Pb in _tampered(m, U, P):
        if not check_head_moving(Ub, Pb, bad).ok:
            names.append(name)
    expected = [name for name, *_ in _tampered(m, U, P)]
    if m.region is not None:  # dropping the region is refused unless the whole sphere works (it does not here)
        assert "region dropped" in names
    assert names == expected


def _head(tokens, U=None, A=None):
    """A synthetic head with ``O = I`` (``U = V^T``): the rightmost pair ``0.8 +- 0.3i`` rotates the cluster."""
    U = np.array([[0.8, -0.3, 0.0], [0.3, 0.8, 0.0], [0.0, 0.0, -0.2]]) if U is None else U
    A = 0.25 * np.eye(3) if A is None else A
    return U.T.copy(), np.eye(3), A, np.eye(3), np.asarray(tokens, float)


CLOSE = [[1.0, 0.05, 0.1], [0.95, 0.15, -0.05], [1.0, -0.1, 0.05]]


def _diameter_after(V, O, A, B, tokens, beta, t):
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


def test_rotating_synthetic_head_is_certified_and_a_simulation_agrees():
    V, O, A, B, X = _head(CLOSE)
    r = run_moving_head(V, O, A, B, X, Fraction(1, 2), False, time.time() + 120)
    assert r["ran"] and r["entered"], r
    t = float(Fraction(r["time"]))
    d0 = _diameter_after(V, O, A, B, X, 0.5, t)
    assert d0 <= r["Dmax"] * 2  # the entry condition's weighted diameter, up to the weights
    later = _diameter_after(V, O, A, B, X, 0.5, t + 40)
    assert later <= r["Dmax"] * np.exp(-r["kappa"] * 40 / 2) * 2 and later < d0


def test_causal_and_spent_budget_are_not_attempted():
    V, O, A, B, X = _head(CLOSE)
    assert run_moving_head(V, O, A, B, X, Fraction(1, 2), True, time.time() + 60) == {
        "ran": False, "why": "the causal mask (moving consensus is built for the full mask only on real heads)"}
    assert run_moving_head(V, O, A, B, X, Fraction(1, 2), False, time.time() - 1)["why"] == "time budget spent"


def test_no_consensus_no_certificate():
    """Every eigenvalue of ``U`` in the left half-plane: no candidate; two antipodal groups: never entered."""
    V, O, A, B, X = _head(CLOSE, U=np.array([[-0.8, -0.3, 0.0], [0.3, -0.8, 0.0], [0.0, 0.0, -0.2]]))
    assert not run_moving_head(V, O, A, B, X, Fraction(1, 2), False, time.time() + 60)["ran"]
    split = [[1.0, 0.05, 0.1], [-1.0, -0.05, 0.1], [0.98, 0.1, 0.0]]
    V, O, A, B, X = _head(split, U=np.diag([0.8, 0.3, -0.2]), A=4.0 * np.eye(3))
    r = run_moving_head(V, O, A, B, X, Fraction(1), False, time.time() + 60)
    assert not (r["ran"] and r["entered"]), r
    assert _diameter_after(V, O, A, B, X, 1.0, 60) > 1.0  # the float simulation keeps the groups apart


def test_forged_proposals_are_refused(monkeypatch):
    """A candidate the ball check refuses is never used; an entry time proposed too early is never entered."""
    V, O, A, B, X = _head(CLOSE)
    real = head_moving.propose

    def forged(flow):
        cands, why = real(flow)
        return [replace(c, mu=c.mu * 4) for c in cands], why
    monkeypatch.setattr(head_moving, "propose", forged)
    r = run_moving_head(V, O, A, B, X, Fraction(1, 2), False, time.time() + 60)
    assert not r["ran"] and "never meets" in r["why"]
    monkeypatch.setattr(head_moving, "propose", real)
    monkeypatch.setattr(head_moving, "entry_time", lambda flow, m, deadline=None: 0.0)
    monkeypatch.setattr(head_moving, "moving_entered", lambda m, rows: False)
    r = run_moving_head(V, O, A, B, X, Fraction(1, 2), False, time.time() + 60)
    assert r["ran"] and not r["entered"] and r["status"] == "t_max"


def _fate(layer, head, category):
    from verify._fate.head_map import HeadFate

    reason = {"complex": "the eigenvalue of U of largest modulus is complex (0.8+0.3j): no contraction route",
              "negative": "the eigenvalue of U of largest modulus is negative (-1+0j): no contraction route"}[category]
    return HeadFate(layer, head, "unknown", reason, 3, {}, 0.0)


def test_the_map_pass_certifies_explains_and_respects_the_budget():
    V, O, A, B, X = _head(CLOSE)
    layer = SimpleNamespace(index=0, V=V[None], O=O[None], A=A[None], B=B[None], tokens=X, beta=0.5)
    out = [_fate(0, 0, "complex")]
    stats = moving_pass(out, {0: (layer, 0)}, False, time.time() + 120)
    assert out[0].fate == "consensus" and "moving consensus" in out[0].reason and "limit: none" in out[0].reason
    assert stats["moving_certified"] == 1 and out[0].facts["moving_Dmax"] > 0
    out = [_fate(0, 0, "complex")]
    stats = moving_pass(out, {0: (layer, 0)}, False, time.time() - 1)
    assert out[0].fate == "unknown" and "not attempted (time budget spent)" in out[0].reason
    out = [_fate(0, 0, "complex")]
    assert moving_pass(out, {0: (layer, 0)}, True, time.time() + 60)["moving_route"] == "not built for the causal mask"
    assert out[0].fate == "unknown"
