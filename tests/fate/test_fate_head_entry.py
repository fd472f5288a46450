"""The map's enclosure pass (verify._fate.head_entry / head_flow): heads whose tokens start on both sides of ker w.

A head is certified only when a validated enclosure puts every token ball in one half-space; the
adversarial cases (a stationary straddling configuration, a wrong proposal of time or side, no
budget) must stay unknown."""
from __future__ import annotations

import types
from fractions import Fraction

import flint
import numpy as np
import pytest

from verify._fate import head_flow
from verify._fate.contraction import propose_spectral
from verify._fate.head_map import certify_heads
from verify._fate.head_observe import head_field
from verify._fate.heads import reduce_head

V = np.array([[1.0, 0.0], [0.0, 0.1], [0.0, 0.0]])   # U = O^T V^T = diag(1, 0.1, 0): lambda = 1, w = e1
O = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
STRADDLE = np.array([[1.0, 0.2, 0.1], [0.9, -0.3, 0.2], [0.8, 0.1, -0.4], [-1.0, 1.0, 0.3]])


def _layer(tokens, beta=1.0, seed=0, V=V, O=O):
    rng = np.random.default_rng(seed)
    D, dh = V.shape
    return types.SimpleNamespace(index=0, V=V[None], O=O[None], A=0.5 * rng.standard_normal((1, D, dh)),
                                 B=0.5 * rng.standard_normal((1, D, dh)), tokens=np.asarray(tokens, float), beta=beta)


def _map(layer, budget=60.0, mask="full"):
    return certify_heads([layer], mask=mask, tokens=[f"t{i}" for i in range(len(layer.tokens))],
                         flow_budget_s=budget)


def _float_limit(layer, mask="full", t_end=60.0):
    from scipy.integrate import solve_ivp

    F = head_field(layer.V[0], layer.O[0], layer.A[0], layer.B[0], layer.beta, mask == "causal")
    X0 = layer.tokens / np.linalg.norm(layer.tokens, axis=1, keepdims=True)
    N, D = X0.shape
    sol = solve_ivp(lambda t, y: F(y.reshape(N, D)).ravel(), (0, t_end), X0.ravel(), rtol=1e-10, atol=1e-12)
    return sol.y[:, -1].reshape(N, D)


@pytest.mark.parametrize("mask", ["full", "causal"])
def test_a_straddling_head_that_crosses_is_certified_and_a_simulation_agrees(mask):
    layer = _layer(STRADDLE)
    first = _map(layer, budget=0.0, mask=mask).heads[0]
    assert first.fate == "unknown" and first.category == "both sides"
    m = _map(layer, mask=mask)
    head = m.heads[0]
    assert head.fate == "consensus", head.reason
    assert "validated enclosure to t = " in head.reason and "+<w, x_i(t)> > 0" in head.reason
    assert head.facts["enclosure_status"] == "entered" and head.facts["enclosure_steps"] >= 1
    assert m.stats["enclosure_certified"] == 1 and m.stats["enclosure_attempted"] == 1
    assert Fraction(head.facts["enclosure_time"]) > 0
    # the float simulation (not part of the proof) goes to +e1, the limit the certificate names
    X = _float_limit(layer, mask)
    assert np.allclose(X, np.array([1.0, 0.0, 0.0]), atol=1e-3)


def test_a_stationary_straddling_configuration_is_never_certified():
    """Antipodal pairs with uniform attention (P = 0): every mean is 0, the field vanishes, the tokens stay on
    both sides of ker w forever."""
    pair = np.array([[0.6, 0.7, 0.1], [0.3, -0.2, 0.9]])
    tokens = np.vstack([pair, -pair])
    layer = _layer(tokens)
    layer.A[:] = 0.0
    head = _map(layer).heads[0]
    assert head.fate == "unknown" and head.category == "both sides"
    assert "no time with every token on one side" in head.reason


def test_a_wrong_proposal_of_time_or_side_is_never_certified(monkeypatch):
    layer = _layer(STRADDLE)
    real = head_flow.crossing_time
    monkeypatch.setattr(head_flow, "crossing_time", lambda flow, wz, causal, deadline=None: (0.0, real(flow, wz, causal)[1]))
    early = _map(layer).heads[0]  # the run stops at 0.25, long before the crossing (~1.2)
    assert early.fate == "unknown" and "t_max" in early.reason
    monkeypatch.setattr(head_flow, "crossing_time", lambda flow, wz, causal, deadline=None: (real(flow, wz, causal)[0], -1))
    wrong_side = _map(layer).heads[0]
    assert wrong_side.fate == "unknown" and "enclosure: stopped" in wrong_side.reason


def test_no_budget_no_enclosure_and_a_spent_budget_says_so():
    layer = _layer(STRADDLE)
    assert "enclosure" not in _map(layer, budget=0.0).heads[0].reason
    spent = _map(layer, budget=1e-9).heads[0]
    assert spent.fate == "unknown" and "time budget spent" in spent.reason


@pytest.mark.parametrize("beta", [float("nan"), float("inf"), -1.0])
def test_a_non_finite_or_negative_beta_is_not_attempted(beta):
    head = _map(_layer(STRADDLE, beta=beta)).heads[0]
    assert head.fate == "unknown" and "not attempted (beta" in head.reason


def test_the_orthonormal_coordinates_carry_the_models_field():
    """``F_z(z) = Q^T F(Q z)`` with ``Q = B L^{-T}`` (floats from the balls' midpoints), on a random head of
    dimension D = 6 reduced to m = 5, and ``Q^T Q = I``: the change of variables of head_flow is eq. 5's."""
    rng = np.random.default_rng(4)
    D, dh, N = 6, 2, 3
    layer = types.SimpleNamespace(index=0, V=rng.standard_normal((1, D, dh)), O=rng.standard_normal((1, dh, D)),
                                  A=rng.standard_normal((1, D, dh)), B=rng.standard_normal((1, D, dh)),
                                  tokens=rng.standard_normal((N, D)), beta=0.7)
    reduced = reduce_head(layer.V[0], layer.O[0], layer.tokens)
    assert reduced.m == N + dh
    with flint.ctx.workprec(128):
        flow = head_flow.orthonormal(reduced, layer.A[0], layer.B[0], Fraction(0.7))
        mid = lambda M: np.array([[float(M[i, j].mid()) for j in range(M.ncols())] for i in range(M.nrows())])
        Bt, Ut = (mid(M) for M in flow.heads[0])
        Linv = mid(flow.Linv)
        Z0 = mid(flow.initial)
    Bf = np.array([[float(reduced.basis[i, j]) for j in range(reduced.m)] for i in range(D)])
    Q = Bf @ Linv.T
    assert np.allclose(Q.T @ Q, np.eye(reduced.m), atol=1e-12)
    X0 = layer.tokens / np.linalg.norm(layer.tokens, axis=1, keepdims=True)
    assert np.allclose(Z0 @ Q.T, X0, atol=1e-12)
    Fz = head_flow._float_field(Bt, Ut, False)(Z0.ravel(), N, reduced.m).reshape(N, reduced.m)
    FD = head_field(layer.V[0], layer.O[0], layer.A[0], layer.B[0], 0.7, False)(X0)
    assert np.allclose(Fz @ Q.T, FD, atol=1e-10)


def test_the_spectral_part_is_proved_before_any_run():
    reduced = reduce_head(V, O, STRADDLE)
    spec, why, facts = propose_spectral(reduced.U_red)
    assert spec is not None and why == "" and spec.lam > 0.99 and spec.lam < 1.01
    minus = reduce_head(-V, O, STRADDLE)  # U = diag(-1, -0.1, 0): the dominant eigenvalue is negative
    assert propose_spectral(minus.U_red)[0] is None


def test_dask_workers_give_the_serial_fates():
    """``workers=2``: the jobs run on a Dask LocalCluster from the exact inputs they are sent; same fates, same
    exact entry times as in this process."""
    pytest.importorskip("distributed")
    layer = _layer(STRADDLE)
    layer2 = _layer(STRADDLE * np.array([1.0, -1.0, 1.0]), seed=3)
    both = types.SimpleNamespace(index=0, V=np.concatenate([layer.V, layer2.V]), O=np.concatenate([layer.O, layer2.O]),
                                 A=np.concatenate([layer.A, layer2.A]), B=np.concatenate([layer.B, layer2.B]),
                                 tokens=layer.tokens, beta=1.0)
    names = [f"t{i}" for i in range(len(both.tokens))]
    serial = certify_heads([both], tokens=names, flow_budget_s=60.0)
    dask = certify_heads([both], tokens=names, flow_budget_s=60.0, workers=2)
    assert [h.fate for h in serial.heads] == [h.fate for h in dask.heads] == ["consensus", "consensus"]
    assert [h.facts["enclosure_time"] for h in serial.heads] == [h.facts["enclosure_time"] for h in dask.heads]
    assert dask.stats["enclosure_workers"] == 2 and serial.stats["enclosure_workers"] == 1


def test_beta_is_read_exactly():
    """An exact ``beta`` (int, Fraction) is never rounded through a float; a float is the binary rational it holds."""
    from verify._fate.head_entry import exact_beta

    assert exact_beta(Fraction(1, 3)) == Fraction(1, 3) and exact_beta(2) == 2 and exact_beta(10**400) == 10**400
    assert exact_beta(0.1) == Fraction(0.1) != Fraction(1, 10)
    assert exact_beta(np.float32(0.1)) == Fraction(float(np.float32(0.1)))
    for bad in (True, 0, -1, Fraction(-1, 3), float("nan"), float("inf"), "1/3", None):
        assert exact_beta(bad) is None
    head = _map(_layer(STRADDLE, beta=Fraction(1, 3))).heads[0]
    assert head.fate == "consensus", head.reason


def test_the_logarithmic_norm_run_comes_first_and_the_lohner_run_is_the_fallback(monkeypatch):
    """The straddling head is certified by the logarithmic-norm enclosure; when that one is made to fail (width), the
    Lohner enclosure runs from t = 0 and certifies it again, and the head says which run it rests on.  A first run
    that stopped for a reason the Lohner run cannot change (the horizon) is not retried."""
    layer = _layer(STRADDLE)
    head = _map(layer).heads[0]
    assert head.fate == "consensus" and head.facts["enclosure_method"] == "lognorm"
    assert "logarithmic-norm steps" in head.reason
    calls = []

    def failing(status):
        def run(heads, causal, initial, t_max, entered, options, deadline=None):
            calls.append(status)
            return head_flow.FlowRun(False, Fraction(0), (), 0, status, float("inf"))
        return run

    monkeypatch.setattr(head_flow, "run_ball_set", failing("width"))
    again = _map(layer).heads[0]  # the first ball run grew (infinite width): the tight one, then Lohner
    assert calls == ["width", "width"] and again.fate == "consensus" and again.facts["enclosure_method"] == "lohner"
    assert "Lohner steps" in again.reason
    calls.clear()
    monkeypatch.setattr(head_flow, "run_ball_set", failing("t_max"))
    stopped = _map(layer).heads[0]
    assert calls == ["t_max"] and stopped.fate == "unknown" and stopped.facts["enclosure_method"] == "lognorm"


def test_a_ball_run_that_grew_is_retried_tight_and_one_that_did_not_is_not(monkeypatch):
    layer = _layer(STRADDLE)
    calls, real = [], head_flow.run_ball_set

    def first_fails(width):
        def run(heads, causal, initial, t_max, entered, options, deadline=None):
            calls.append(options)
            if options is head_flow.BALL_OPTIONS:
                return head_flow.FlowRun(False, Fraction(1, 8), (), 3, "step_too_small", width)
            return real(heads, causal, initial, t_max, entered, options, deadline)
        return run

    monkeypatch.setattr(head_flow, "run_ball_set", first_fails(1e-3))
    head = _map(layer).heads[0]
    assert calls == [head_flow.BALL_OPTIONS, head_flow.BALL_TIGHT]
    assert head.fate == "consensus" and head.facts["enclosure_method"] == "lognorm-tight"
    assert "logarithmic-norm (tight) steps" in head.reason
    calls.clear()
    monkeypatch.setattr(head_flow, "run_ball_set", first_fails(1e-12))  # narrow: the step itself failed, not growth
    head = _map(layer).heads[0]
    assert calls == [head_flow.BALL_OPTIONS] and head.fate == "unknown" and "step_too_small" in head.reason


def test_a_late_proposed_crossing_starts_with_the_tight_ball_run(monkeypatch):
    layer = _layer(STRADDLE)
    real_time, real_run, calls = head_flow.crossing_time, head_flow.run_ball_set, []
    monkeypatch.setattr(head_flow, "crossing_time",
                        lambda flow, wz, causal, deadline=None: (head_flow.TIGHT_FROM + 1, real_time(flow, wz, causal)[1]))

    def recorded(heads, causal, initial, t_max, entered, options, deadline=None):
        calls.append(options)
        return real_run(heads, causal, initial, t_max, entered, options, deadline)

    monkeypatch.setattr(head_flow, "run_ball_set", recorded)
    head = _map(layer).heads[0]  # the crossing (~1.2) comes long before the proposal: entered there, tight
    assert calls == [head_flow.BALL_TIGHT] and head.fate == "consensus"
    assert head.facts["enclosure_method"] == "lognorm-tight" and float(Fraction(head.facts["enclosure_time"])) < 3
