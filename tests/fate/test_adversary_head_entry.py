"""Adversarial review of the map's enclosure pass (verify._fate.head_flow / head_entry): heads whose tokens start on
both sides of ``ker w``.

Every test builds a small synthetic head (D <= 5, N <= 6) and asserts the safe outcome: a claimed "consensus" is
checked against an independent float simulation in the model's own coordinates
(:func:`verify._fate.head_observe.head_field`, SciPy DOP853), including the limit the certificate names
(``sign * B v / |B v|``, ``v`` the eigenvector of ``U_red`` with ``<w, v> = 1``); every head whose true dynamics
does not reach one half-space (stationary, two antipodal clusters, all tokens in ``ker w``) must stay "unknown",
also when the float proposal of the crossing is forced.

Two more tests of the review, on the float proposal's bounds, are in ``test_head_entry_proposal_bounds.py``."""
from __future__ import annotations

import types
from fractions import Fraction

import flint
import numpy as np
import pytest

from verify._fate import head_entry, head_flow
from verify._fate.contraction import propose_spectral
from verify._fate.head_map import certify_head, certify_heads
from verify._fate.head_observe import head_field
from verify._fate.heads import reduce_head


V = np.array([[1.0, 0.0], [0.0, 0.1], [0.0, 0.0]])  # U = O^T V^T = diag(1, 0.1, 0): lambda = 1, w = e1
O = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
_rng = np.random.default_rng(0)
A = 0.5 * _rng.standard_normal((3, 2))
BK = 0.5 * _rng.standard_normal((3, 2))
STRADDLE = np.array([[1.0, 0.2, 0.1], [0.9, -0.3, 0.2], [0.8, 0.1, -0.4], [-1.0, 1.0, 0.3]])
SELF = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])  # P = A B^T = diag(1, 1, 0): tokens attend to their own side


def _layer(tokens, V=V, O=O, A=A, B=BK, beta=1.0, index=0):
    return types.SimpleNamespace(index=index, V=np.asarray(V, float)[None], O=np.asarray(O, float)[None],
                                 A=np.asarray(A, float)[None], B=np.asarray(B, float)[None],
                                 tokens=np.asarray(tokens, float), beta=beta)


def _head(layer, mask="full", budget=30.0):
    return certify_heads([layer], mask=mask, tokens=[f"t{i}" for i in range(len(layer.tokens))],
                         flow_budget_s=budget).heads[0]


def _solution(V, O, A, B, beta, tokens, causal, t_end):
    """Independent float run of eq. 5 in the model's D coordinates (rows rescaled first: entries near 1e+-300)."""
    from scipy.integrate import solve_ivp

    F = head_field(*(np.asarray(a, float) for a in (V, O, A, B)), beta, causal)
    X0 = np.asarray(tokens, float)
    X0 = X0 / np.max(np.abs(X0), axis=1, keepdims=True)
    X0 = X0 / np.linalg.norm(X0, axis=1, keepdims=True)
    N, D = X0.shape
    sol = solve_ivp(lambda t, y: F(y.reshape(N, D)).ravel(), (0.0, t_end), X0.ravel(), method="DOP853",
                    rtol=1e-11, atol=1e-13, dense_output=True)
    assert sol.success
    return sol


def _final(sol, N):
    X = sol.y[:, -1].reshape(N, -1)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _named_limit(V, O, tokens, sign):
    """``sign * B v / |B v|``: the limit the certificate names, in the model's coordinates."""
    red = reduce_head(V, O, tokens)
    spec, why, _ = propose_spectral(red.U_red)
    assert spec is not None, why
    m = red.m
    U = np.array([[float(red.U_red[i, j]) for j in range(m)] for i in range(m)])
    Bf = np.array([[float(red.basis[i, j]) for j in range(m)] for i in range(red.D)])
    w = np.array([float(x.mid()) for x in spec.w])
    ev, R = np.linalg.eig(U)
    v = R[:, int(np.argmin(np.abs(ev - float(spec.lam.mid()))))].real
    x = Bf @ (v / (w @ v))
    return sign * x / np.linalg.norm(x)


def _sign_of(head) -> int:
    assert head.fate == "consensus", head.reason
    return 1 if "+<w, x_i(t)> > 0" in head.reason else -1


def _check_consensus(layer, head, mask="full", t_end=80.0):
    """A claimed consensus: every token of the independent simulation ends at the named limit."""
    sol = _solution(layer.V[0], layer.O[0], layer.A[0], layer.B[0], layer.beta, layer.tokens, mask == "causal", t_end)
    X = _final(sol, len(layer.tokens))
    target = _named_limit(layer.V[0], layer.O[0], layer.tokens, _sign_of(head))
    assert np.abs(X - target).max() < 1e-4, (X, target)


def _unknown(head, *words):
    assert head.fate == "unknown", head.reason
    assert head.category == "both sides", head.reason
    for w in words:
        assert w in head.reason, head.reason


def _force(monkeypatch, t, sign):
    monkeypatch.setattr(head_flow, "crossing_time", lambda flow, wz, causal, deadline=None: (t, sign))


# --- claimed consensus: checked against an independent simulation and the named limit --------------------------------

@pytest.mark.parametrize("seed, mask", [(3, "full"), (3, "causal"), (6, "full")])
def test_random_heads_with_D_equal_m_enclosure_contains_the_float_solution(seed, mask):
    """D = m = 5 (three tokens + range(U)), a non-symmetric P: the final enclosure (in z = Q^T x) contains the
    independent float solution at the entry time, and the limit named by the certificate is the simulation's."""
    rng = np.random.default_rng(seed)
    D, dh, N = 5, 2, 3
    Vr, Or = rng.standard_normal((D, dh)), rng.standard_normal((dh, D))
    Ar, Br, X = rng.standard_normal((D, dh)), rng.standard_normal((D, dh)), rng.standard_normal((N, D))
    assert certify_head(Vr, Or, X)[0].category == "both sides"
    red = reduce_head(Vr, Or, X)
    assert red.m == D
    spec, _, _ = propose_spectral(red.U_red)
    plan, why = head_flow.plan_entry(red, spec, Ar, Br, Fraction(0.8), mask == "causal")
    assert plan is not None, why
    entry = head_flow.enter_half_space(plan)
    assert entry.run.entered and entry.run.time > 0
    T = float(entry.run.time)
    sol = _solution(Vr, Or, Ar, Br, 0.8, X, mask == "causal", T + 80.0)
    with flint.ctx.workprec(128):
        Linv = np.array([[float(plan.flow.Linv[i, j].mid()) for j in range(D)] for i in range(D)])
    Q = np.array([[float(red.basis[i, j]) for j in range(D)] for i in range(D)]) @ Linv.T
    Z = sol.sol(T).reshape(N, D) @ Q
    for i, row in enumerate(entry.run.enclosure):
        for a, b in enumerate(row):
            assert abs(Z[i, a] - float(b.mid())) <= float(b.rad()) + 1e-9, (i, a, Z[i, a], b)
    X_end = _final(sol, N)
    assert np.abs(X_end - _named_limit(Vr, Or, X, entry.sign)).max() < 1e-4
    layer = _layer(X, Vr, Or, Ar, Br, beta=0.8)
    head = _head(layer, mask)
    assert head.fate == "consensus" and _sign_of(head) == entry.sign


def test_negated_prompt_converges_to_minus_e1_and_the_named_limit_agrees():
    """-tokens: the dynamics is odd, the limit is -e1.  The reason still says "+v/|v|": v and w are in the reduced
    coordinates of a basis made of the (negated) tokens, so the sign is relative to B (noted, not a false claim)."""
    layer = _layer(-STRADDLE)
    head = _head(layer)
    assert head.fate == "consensus"
    _check_consensus(layer, head)
    X = _final(_solution(V, O, A, BK, 1.0, -STRADDLE, False, 60.0), 4)
    assert np.allclose(X, [-1.0, 0.0, 0.0], atol=1e-4)


@pytest.mark.parametrize("case", ["tokens 1e+-300", "A 1e150 B 1e-150", "A B 1e-200", "V 1e150 O 1e-150"])
def test_extreme_scales_that_keep_the_field_give_the_same_fate(case):
    tokens, Vx, Ox, Ax, Bx = STRADDLE, V, O, A, BK
    if case == "tokens 1e+-300":
        tokens = STRADDLE * np.array([[1e150], [1e-150], [1e300], [1e-300]])
    elif case == "A 1e150 B 1e-150":
        Ax, Bx = A * 1e150, BK * 1e-150
    elif case == "A B 1e-200":
        Ax, Bx = A * 1e-200, BK * 1e-200  # P ~ 1e-400 underflows in floats: attention is uniform
    else:
        Vx, Ox = V * 1e150, O * 1e-150
    layer = _layer(tokens, Vx, Ox, Ax, Bx)
    head = _head(layer)
    assert head.fate == "consensus", head.reason
    _check_consensus(layer, head)


@pytest.mark.parametrize("extra", ["duplicates", "antipodal"])
def test_duplicated_and_antipodal_tokens(extra):
    tokens = (np.vstack([STRADDLE, STRADDLE[3], STRADDLE[0]]) if extra == "duplicates"
              else np.vstack([STRADDLE, -STRADDLE[1]]))
    layer = _layer(tokens)
    head = _head(layer)
    if head.fate == "consensus":
        _check_consensus(layer, head)
    else:
        _unknown(head, "enclosure")


def test_a_token_exactly_on_ker_w():
    """(0, 1, 0) lies on ker w (w = e1); the first pass calls it "both sides" (margin 0), the others pull it out."""
    layer = _layer(np.array([[0.0, 1.0, 0.0], [1.0, 0.5, 0.0], [1.0, -0.25, 0.0]]))
    head = _head(layer)
    assert head.facts["half_space_margin"] == 0.0
    assert head.fate == "consensus", head.reason
    _check_consensus(layer, head)


def test_near_stationary_antipodal_pairs_that_do_cross():
    pair = np.array([[0.6, 0.7, 0.1], [0.3, -0.2, 0.9]])
    tokens = np.vstack([pair, -pair])
    tokens[0, 0] += 1e-2
    layer = _layer(tokens, A=np.zeros((3, 2)))
    head = _head(layer)
    assert head.fate == "consensus", head.reason
    _check_consensus(layer, head, t_end=200.0)


def test_causal_mask_consensus_on_the_negative_side():
    """Token 1 starts with <w, x> < 0; under the causal mask it only sees itself, so it never changes side: a
    consensus can only be on the negative side, and the simulation goes there."""
    layer = _layer(np.array([[-1, 0.1, 0.2], [0.9, -0.1, 0.3], [1, 0.1, -0.2], [0.95, -0.2, 0.1]]))
    head = _head(layer, "causal")
    if head.fate == "consensus":
        assert _sign_of(head) == -1
        _check_consensus(layer, head, "causal", t_end=120.0)
    else:
        _unknown(head, "enclosure")


# --- configurations that never reach one half-space: must stay unknown, also with a forced proposal --------------------

STATIONARY = np.vstack([np.array([[0.6, 0.7, 0.1], [0.3, -0.2, 0.9]]), -np.array([[0.6, 0.7, 0.1], [0.3, -0.2, 0.9]])])
CLUSTERS = np.array([[1, 0.1, 0.2], [0.9, -0.1, 0.3], [-1, 0.1, -0.2], [-0.95, -0.2, 0.1]])
CAUSAL_SPLIT = np.array([[-1, 0.1, 0.2], [0.9, -0.1, 0.3], [1, 0.1, -0.2], [0.95, -0.2, 0.1]])
IN_KER_W = np.array([[0.0, 1.0, 0.3], [0.0, -0.3, 0.2], [0.0, 0.1, -0.4], [0.0, -1.0, -1.0]])

NEVER = {
    "stationary (P = 0)": (lambda: _layer(STATIONARY, A=np.zeros((3, 2))), "full"),
    "two antipodal clusters": (lambda: _layer(CLUSTERS, A=SELF, B=SELF, beta=5.0), "full"),
    "causal: token 1 alone on -": (lambda: _layer(CAUSAL_SPLIT, A=SELF, B=SELF, beta=5.0), "causal"),
    "all tokens in ker w": (lambda: _layer(IN_KER_W), "full"),
}


@pytest.mark.parametrize("name", list(NEVER))
def test_a_head_that_never_reaches_one_half_space_is_unknown(name, monkeypatch):
    make, mask = NEVER[name]
    layer = make()
    # ground truth (float): the tokens do not all share one side at the end
    sol = _solution(layer.V[0], layer.O[0], layer.A[0], layer.B[0], layer.beta, layer.tokens, mask == "causal", 60.0)
    b = _final(sol, len(layer.tokens))[:, 0]  # <w, x> with w = e1
    assert not (np.all(b > 1e-3) or np.all(b < -1e-3)), b
    _unknown(_head(layer, mask), "enclosure: not attempted (a float simulation")
    for t, sign in ((0.5, 1), (3.0, -1), (0.0, 1)):
        _force(monkeypatch, t, sign)
        head = _head(layer, mask)
        _unknown(head, "enclosure: stopped")
        assert head.facts["enclosure_status"] != "entered"


def test_two_antipodal_clusters_really_are_two_clusters():
    layer = NEVER["two antipodal clusters"][0]()
    X = _final(_solution(V, O, SELF, SELF, 5.0, CLUSTERS, False, 60.0), 4)
    assert np.allclose(X[:2], [1, 0, 0], atol=1e-4) and np.allclose(X[2:], [-1, 0, 0], atol=1e-4)
    _unknown(_head(layer), "no time with every token on one side")


# --- tampered proposals and plans ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("proposal", [(float("nan"), 1), (float("inf"), 1), (-5.0, 1), (1.2, 0), (1.2, 2)])
def test_a_malformed_proposal_never_certifies_and_never_crashes_the_map(proposal, monkeypatch):
    layer = _layer(STATIONARY, A=np.zeros((3, 2)))
    _force(monkeypatch, *proposal)
    head = _head(layer)
    assert head.fate == "unknown" and head.category == "both sides", head.reason
    assert "enclosure: " in head.reason


def test_the_job_rederives_its_plan_from_the_exact_inputs(monkeypatch):
    """entry_pass plans each head once (only to order the jobs); run_head plans again from the inputs.  A plan
    tampered in the first call (initial balls moved into the half-space, wz and sign flipped) changes nothing."""
    real = head_entry.plan_entry
    calls = []

    def tampered(reduced, spec, A_, B_, beta, causal, *rest, **kw):
        plan, why = real(reduced, spec, A_, B_, beta, causal, *rest, **kw)
        calls.append(1)
        if len(calls) == 1 and plan is not None:
            m = plan.flow.initial.ncols()
            inside = flint.arb_mat(plan.flow.initial.nrows(), m, [1 if a == 0 else 0 for _ in range(
                plan.flow.initial.nrows()) for a in range(m)])
            flow = head_flow.HeadFlow(plan.flow.heads, inside, plan.flow.Linv)
            plan = head_flow.Plan(flow, tuple(-x for x in plan.wz), 0.0, -plan.sign, plan.causal, plan.options)
        return plan, why

    monkeypatch.setattr(head_entry, "plan_entry", tampered)
    _force(monkeypatch, 1.0, 1)
    head = _head(_layer(STATIONARY, A=np.zeros((3, 2))))
    assert len(calls) == 2
    _unknown(head, "enclosure: stopped")


def test_enter_half_space_trusts_its_plan_documented():
    """Trust boundary (by design, not a bug): :func:`head_flow.enter_half_space` re-checks nothing of its Plan; a
    Plan whose initial balls exclude the true state "enters" at t = 0.  Only :func:`head_flow.plan_entry` builds
    Plans, and run_head never accepts one from outside (previous test)."""
    red = reduce_head(V, O, STATIONARY)
    spec, _, _ = propose_spectral(red.U_red)
    with flint.ctx.workprec(128):
        flow = head_flow.orthonormal(red, np.zeros((3, 2)), BK, Fraction(1))
        wz = flow.Linv * flint.arb_mat(red.m, 1, list(spec.w))
        wz = tuple(wz[a, 0] for a in range(red.m))
    honest = head_flow.Plan(flow, wz, 1.0, 1, False, head_flow.OPTIONS)
    assert not head_flow.enter_half_space(honest).run.entered
    rows = [wz[a].mid() for a in range(red.m)]
    norm = sum(float(x) ** 2 for x in rows) ** 0.5
    fake = flint.arb_mat(4, red.m, [flint.arb(float(x) / norm) for _ in range(4) for x in rows])
    tampered = head_flow.Plan(head_flow.HeadFlow(flow.heads, fake, flow.Linv), wz, 1.0, 1, False, head_flow.OPTIONS)
    assert head_flow.enter_half_space(tampered).run.entered  # trusted: the Plan is an internal object


# --- inputs the route must refuse cleanly ------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["V O 1e150", "V O 1e-150", "nearly dependent tokens", "beta 1e3", "beta 1e6"])
def test_hard_inputs_end_unknown_with_a_reason(case):
    tokens, Vx, Ox, beta = STRADDLE, V, O, 1.0
    if case == "V O 1e150":
        Vx, Ox = V * 1e150, O * 1e150
    elif case == "V O 1e-150":
        Vx, Ox = V * 1e-150, O * 1e-150
    elif case == "nearly dependent tokens":
        tokens = STRADDLE.copy()
        tokens[1] = tokens[0] + np.array([0.0, 0.0, 2.0 ** -50])
    else:
        beta = float(case.split()[1])
    head = _head(_layer(tokens, Vx, Ox, beta=beta))
    assert head.fate == "unknown" and head.reason


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_non_finite_query_factor_is_a_clean_error_or_unknown(bad):
    from theorems.errors import InvalidInput

    Ax = A.copy()
    Ax[0, 0] = bad
    try:
        head = _head(_layer(STRADDLE, A=Ax))
    except InvalidInput:  # the project's input error (noted: the whole map stops, not just this head)
        return
    assert head.fate == "unknown"


def test_several_layers_and_heads_keep_their_own_fates():
    """Jobs run in order of proposed crossing (here head 1, scaled by 10, first); every head gets its own result."""
    Vs = np.stack([V, 10 * V, V])
    As = np.stack([A, A, np.zeros((3, 2))])
    layer0 = types.SimpleNamespace(index=0, V=Vs, O=np.stack([O] * 3), A=As, B=np.stack([BK] * 3),
                                   tokens=STRADDLE, beta=1.0)
    layer1 = types.SimpleNamespace(index=1, V=np.stack([V, V]), O=np.stack([O, O]), A=np.stack([SELF, A]),
                                   B=np.stack([SELF, BK]), tokens=CLUSTERS, beta=5.0)
    m = certify_heads([layer0, layer1], tokens=[f"t{i}" for i in range(4)], flow_budget_s=60.0)
    got = {(h.layer, h.head): h for h in m.heads}
    for layer in (layer0, layer1):
        for h in range(layer.V.shape[0]):
            alone = _head(types.SimpleNamespace(index=layer.index, V=layer.V[h:h + 1], O=layer.O[h:h + 1],
                                                A=layer.A[h:h + 1], B=layer.B[h:h + 1], tokens=layer.tokens,
                                                beta=layer.beta))
            both = got[(layer.index, h)]
            assert (both.fate, both.facts.get("enclosure_time")) == (alone.fate, alone.facts.get("enclosure_time"))
    assert got[(0, 1)].fate == "consensus" and got[(1, 0)].fate == "unknown"
    assert m.stats["enclosure_certified"] == sum(h.fate == "consensus" for h in m.heads)
