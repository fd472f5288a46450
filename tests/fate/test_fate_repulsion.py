"""The repulsion route (causal mask, d = 2): tokens 1 and 2 never meet, so no consensus, ever.

The formulas of the check against the trusted field (finite differences), two true claims against a
float simulation, and attempts at false claims: a pair that does merge (seed 18, moving consensus),
neutral rotation (seed 86), tampered data and certificates, malformed files.
"""
from __future__ import annotations

import copy
import json
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from flint import arb, arb_mat, ctx

from fate_cases import random_problem
from theorems.errors import InvalidInput
from verify._fate import Fate, certify_fate
from verify._fate.problem import FateProblem
from verify._fate.repulsion import Repulsion, _heads, check_repulsion, token1_speed, token2_slope
from verify._fate.repulsion_hints import propose_repulsion
from verify.certificate_kinds import certificate_from_json
from verify.validated.balls import field_data
from verify.validated.series import field as exact_field


@pytest.fixture(scope="module")
def reports():
    return {seed: certify_fate(random_problem(seed, nonsymmetric=True), t_max=300) for seed in (47, 53)}


def _field(problem: FateProblem, X: np.ndarray) -> np.ndarray:
    """The trusted (validated-integrator) field of eq. 5 at float points, as floats."""
    with ctx.workprec(128):
        F = exact_field(arb_mat([[arb(float(v)) for v in row] for row in X]), field_data(problem.field),
                        problem.mask == "causal")
        return np.array([[float(F[i, a].mid()) for a in range(F.ncols())] for i in range(F.nrows())])


def _angular_speeds(problem: FateProblem, th: np.ndarray) -> np.ndarray:
    """``<x_j^perp, F_j>`` for tokens at the angles ``th`` (the validated field)."""
    F = _field(problem, np.stack([np.cos(th), np.sin(th)], axis=1))
    return np.array([np.array([-np.sin(a), np.cos(a)]) @ F[j] for j, a in enumerate(th)])


def _sample_boxes(data: Repulsion, M: int, count: int, rng):
    """``(m, u, W')`` on ``count`` random boxes ``th_1 = pi u`` of ``M`` (call inside a 128-bit scope)."""
    from verify._fate.repulsion import box, harmonics_box, weight

    for m in rng.choice(M, count, replace=False):
        u = box(M, int(m))
        yield int(m), u, weight(data, harmonics_box(u, len(data.a)))[1]


def _dW_at(data: Repulsion, t1: float) -> float:
    """``W'(t1)`` as a float."""
    from verify._fate.repulsion import weight

    cs = [(arb(np.cos(k * t1)), arb(np.sin(k * t1))) for k in range(1, len(data.a) + 1)]
    return float(weight(data, cs)[1].mid())


@pytest.mark.parametrize("seed", [47, 53, 18])
def test_the_speeds_match_the_field(seed):
    """``f = <x_1^perp, F_1>`` and ``dg/dth_2`` (``g = <x_2^perp, F_2>``) against the validated field."""
    p = random_problem(seed, nonsymmetric=True)
    rng = np.random.default_rng(seed)
    with ctx.workprec(128):
        heads, beta = _heads(p)
        for _ in range(5):
            t1, t2 = rng.uniform(0, 2 * np.pi, 2)
            X = np.tile([np.cos(t1), np.sin(t1)], (p.N, 1))

            def g(t):
                Y = X.copy()
                Y[1] = [np.cos(t), np.sin(t)]
                return float(np.array([-np.sin(t), np.cos(t)]) @ _field(p, Y)[1])

            f_ref = float(np.array([-np.sin(t1), np.cos(t1)]) @ _field(p, X)[0])
            f = token1_speed(heads, arb(np.cos(t1)), arb(np.sin(t1)))
            assert abs(float(f.mid()) - f_ref) < 1e-12
            eps = 1e-5
            dg_ref = (g(t2 + eps) - g(t2 - eps)) / (2 * eps)
            dg = token2_slope(heads, beta, arb(np.cos(t1)), arb(np.sin(t1)), arb(np.cos(t2)), arb(np.sin(t2)))
            assert abs(float(dg.mid()) - dg_ref) < 1e-7
            assert abs(g(t1) - f_ref) < 1e-12  # equal tokens move together: g(th, th) = f(th)


@pytest.mark.parametrize("seed", [47, 53])
def test_certified_and_rechecked(reports, seed):
    r = reports[seed]
    assert r.fate is Fate.NON_CONSENSUS and r.route == "repulsion" and r.entry_time == 0 and r.limit is None
    data = json.loads(json.dumps(r.certificate.to_json()))
    verdict = certificate_from_json(data).recheck()
    assert verdict.holds and Fraction(verdict.witness["distance_bound"]) == Fraction(r.stats["distance_bound"])
    assert "never reach consensus" in r.message and "|x_2(t) - x_1(t)| >=" in r.render()


def _simulate(seed: int, t_end: float = 300.0) -> np.ndarray:
    """The tokens ``(T, N, 2)`` of a random instance at 6001 times to ``t_end``: SciPy DOP853 at rtol 1e-11 on the
    float field (an oracle for the tests, never part of a proof)."""
    from scipy.integrate import solve_ivp

    from verify._fate.hints import float_field
    p = random_problem(seed, nonsymmetric=True)
    X0 = np.array([[float(v) for v in row] for row in p.tokens])
    X0 /= np.linalg.norm(X0, axis=1, keepdims=True)
    sol = solve_ivp(lambda t, y: float_field(p, y.reshape(p.N, 2)).ravel(), (0, t_end), X0.ravel(), method="DOP853",
                    rtol=1e-11, atol=1e-13, t_eval=np.linspace(0, t_end, 6001))
    return sol.y.T.reshape(-1, p.N, 2)


@pytest.mark.parametrize("seed", [47, 53])
def test_a_float_simulation_stays_above_the_bound(reports, seed):
    """DOP853 at rtol 1e-11 to t = 300 (many turns of token 1): the pair distance never drops below the
    certified bound (the 50-digit oracle of benchmarks/bench_fate.py does the same to t = 60)."""
    Y = _simulate(seed)
    gap = np.linalg.norm(Y[:, 1] - Y[:, 0], axis=1)
    assert gap.min() >= float(Fraction(reports[seed].stats["distance_bound"]))


def test_a_merging_pair_is_not_certified():
    """Seed 18 (causal, d = 2): token 2 follows token 1 (moving consensus).  No proposal, and neither a
    repulsion weight borrowed from another instance nor W = 0 proves the repulsion."""
    p = random_problem(18, nonsymmetric=True)
    data, _, why = propose_repulsion(p)
    assert data is None and "do not repel" in why
    borrowed = propose_repulsion(random_problem(47, nonsymmetric=True))[0]
    for attempt in (borrowed, Repulsion((Fraction(0),), (Fraction(0),), Fraction(1, 64), 4096)):
        assert not check_repulsion(p, attempt).ok
    assert certify_fate(p, t_max=100).route == "moving-consensus"


def test_neutral_rotation_is_unknown():
    """Seed 86: the pair's average repulsion is 0 (kappa ~ 1e-17): unknown, never a guess."""
    r = certify_fate(random_problem(86, nonsymmetric=True), t_max=100)
    assert r.fate is Fate.UNKNOWN and "do not repel" in r.reason


def test_tampered_data_fails(reports):
    cert = reports[47].certificate
    p, data = cert.problem, cert.repulsion
    for bad in (replace(data, a=tuple(-v for v in data.a), b=tuple(-v for v in data.b)),  # the weight reversed
                replace(data, delta=Fraction(1)),  # a band too wide
                replace(data, boxes=16),  # boxes too coarse
                replace(data, a=(Fraction(5),) + data.a[1:])):  # one harmonic changed
        assert not check_repulsion(p, bad).ok
    same = replace(p, tokens=(p.tokens[0], tuple(2 * v for v in p.tokens[0])) + p.tokens[2:])
    assert "same point" in check_repulsion(same, data).reason
    assert not check_repulsion(replace(p, mask="full"), data).ok  # the pair's weight says nothing about all tokens
    three = replace(p, tokens=tuple(row + (Fraction(0),) for row in p.tokens),
                    heads=tuple((tuple(r + (Fraction(0),) for r in P) + ((Fraction(0),) * 3,),
                                 tuple(r + (Fraction(0),) for r in U) + ((Fraction(0),) * 3,)) for P, U in p.heads))
    assert "d = 2" in check_repulsion(three, data).reason
    assert "tuples" in check_repulsion(p, replace(data, a=None)).reason  # a reason, not a TypeError
    assert "exact rationals" in check_repulsion(p, replace(data, a=(0.5,) + data.a[1:])).reason


def _set(data, path, value):
    out = copy.deepcopy(data)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


@pytest.mark.parametrize("path,value", [
    (("fate",), "consensus"), (("route",), "moving-consensus"), (("entry",), "3"),
    (("repulsion", "delta"), "1"), (("repulsion", "a", 0), "7"), (("instance", "mask"), "full"),
    (("instance", "heads", 0, "U", 0, 1), "0"), (("instance", "tokens", 1), None),
])
def test_tampered_certificate_is_rejected(reports, path, value):
    data = json.loads(json.dumps(reports[47].certificate.to_json()))
    if path == ("instance", "tokens", 1):
        value = data["instance"]["tokens"][0]  # token 2 moved onto token 1
    try:
        verdict = certificate_from_json(_set(data, path, value)).recheck()
    except InvalidInput:
        return
    assert not verdict.holds


@pytest.mark.parametrize("path,value,field", [
    (("repulsion", "delta"), 0.25, "certificate.repulsion.delta"),
    (("repulsion", "boxes"), 8, "certificate.repulsion.boxes"),
    (("repulsion", "b"), ["1"], "certificate.repulsion.b"),
    (("repulsion", "a"), [], "certificate.repulsion.a"),
    (("repulsion", "extra"), 1, "certificate.repulsion"),
])
def test_malformed_repulsion_is_bad_input(reports, path, value, field):
    data = json.loads(json.dumps(reports[47].certificate.to_json()))
    with pytest.raises(InvalidInput) as err:
        certificate_from_json(_set(data, path, value))
    assert field in str(err.value)


@pytest.mark.parametrize("seed", [47, 18])
def test_the_box_bracket_encloses_the_true_bracket(reports, seed):
    """Step (b) on sample boxes: at random ``th_1`` in the box and ``phi`` in the piece, the true bracket
    ``W' f (1 - cos phi)/phi^2 + (sin phi/phi) (g(th_1, th_1 + phi) - f(th_1))/phi`` (from the trusted field)
    lies inside the arb enclosure; also for seed 18 (a merging pair) with seed 47's weight, which does
    not fit it."""
    from verify._fate.repulsion import PIECES, piece_bracket

    data = reports[47].certificate.repulsion
    p = random_problem(seed, nonsymmetric=True)
    rng = np.random.default_rng(1)
    M, delta = 256, Fraction(1, 8)
    with ctx.workprec(128):
        heads, beta = _heads(p)
        for m, u, dW in _sample_boxes(data, M, 6, rng):
            s1, c1 = u.sin_cos_pi()
            dWf = dW * token1_speed(heads, c1, s1)
            for j in range(PIECES):
                lo, hi = -delta + 2 * delta * j / PIECES, -delta + 2 * delta * (j + 1) / PIECES
                B = piece_bracket(heads, beta, u, c1, s1, dWf, lo, hi)
                for _ in range(3):
                    t1 = float(np.pi * (2 * m + 2 * rng.uniform()) / M)
                    phi = float(lo + (hi - lo) * rng.uniform())
                    f = _angular_speeds(p, np.full(p.N, t1))[0]
                    g = _angular_speeds(p, np.array([t1, t1 + phi] + [t1] * (p.N - 2)))[1]
                    true = _dW_at(data, t1) * f * (1 - np.cos(phi)) / phi**2 + np.sin(phi) / phi * (g - f) / phi
                    assert float(B.lower()) - 1e-9 <= true <= float(B.upper()) + 1e-9


# Full mask: the consensus set repels (seeds 22, 42, 61).


@pytest.fixture(scope="module")
def full_reports():
    return {seed: certify_fate(random_problem(seed, nonsymmetric=True), t_max=300) for seed in (22, 42, 61)}


def _three_heads():
    rng = np.random.default_rng(5)
    q = lambda: tuple(tuple(Fraction(int(v), 8) for v in row) for row in rng.integers(-8, 9, (2, 2)))  # noqa: E731
    toks = tuple((Fraction(int(v), 5), Fraction(1)) for v in rng.integers(-5, 6, 4))
    return FateProblem(Fraction(3, 2), "full", tuple((q(), q()) for _ in range(3)), toks, True)


@pytest.mark.parametrize("case", [22, 61, "three heads"])
def test_full_rates_match_the_field(case):
    """``G_j = <x_j^perp, F_j>`` and ``dG_j/dth_k`` (central differences of the validated field), at spread-out
    tokens (not only near consensus)."""
    from verify._fate.repulsion import full_rates

    p = _three_heads() if case == "three heads" else random_problem(case, nonsymmetric=True)
    rng = np.random.default_rng(7)
    th = rng.uniform(0, 2 * np.pi, p.N)

    def speeds(t):
        return _angular_speeds(p, t)

    with ctx.workprec(128):
        heads, beta = _heads(p)
        G, dG = full_rates(heads, beta, [(arb(np.cos(t)), arb(np.sin(t))) for t in th])
    assert np.allclose([float(g.mid()) for g in G], speeds(th), atol=1e-12)
    eps = 1e-5
    for k in range(p.N):
        e = np.zeros(p.N)
        e[k] = eps
        fd = (speeds(th + e) - speeds(th - e)) / (2 * eps)
        assert np.allclose([float(dG[j][k].mid()) for j in range(p.N)], fd, atol=1e-7), k


@pytest.mark.parametrize("seed", [22, 61])
def test_full_quadratic_encloses_the_true_derivative(full_reports, seed):
    """At random ``th_1`` in a box and ``phi`` in the band: ``V'/e^W = W' G_1 S + sum_j sin phi_j (G_j - G_1)``
    (validated field) lies in ``phi^T Q phi`` evaluated with the interval matrix ``Q``."""
    from verify._fate.repulsion import full_quadratic

    data = full_reports[seed].certificate.repulsion
    p = random_problem(seed, nonsymmetric=True)
    rng = np.random.default_rng(3)
    M, delta = 512, Fraction(1, 64)
    with ctx.workprec(128):
        heads, beta = _heads(p)
        for m, u, dW in _sample_boxes(data, M, 5, rng):
            Q = full_quadratic(heads, beta, u, dW, p.N, delta)
            for _ in range(3):
                t1 = float(np.pi * (2 * m + 2 * rng.uniform()) / M)
                phi = rng.uniform(-1, 1, p.N - 1) * float(delta)
                G = _angular_speeds(p, np.concatenate([[t1], t1 + phi]))
                true = _dW_at(data, t1) * G[0] * np.sum(1 - np.cos(phi)) + np.sum(np.sin(phi) * (G[1:] - G[0]))
                quad = sum((Q[j][k] * arb(phi[j]) * arb(phi[k]) for j in range(p.N - 1) for k in range(p.N - 1)), arb(0))
                scale = float(np.sum(phi ** 2))
                assert float(quad.lower()) - 1e-9 * scale <= true <= float(quad.upper()) + 1e-9 * scale


@pytest.mark.parametrize("seed", [22, 42, 61])
def test_full_certified_rechecked_and_simulated(full_reports, seed):
    """Certified, re-checked from JSON, and a float simulation to t = 300 keeps max_j |x_j - x_1| above the bound."""
    r = full_reports[seed]
    assert r.fate is Fate.NON_CONSENSUS and r.route == "repulsion" and r.entry_time == 0
    assert certificate_from_json(json.loads(json.dumps(r.certificate.to_json()))).recheck().holds
    assert "max_j |x_j(t) - x_1(t)| >=" in r.render()
    Y = _simulate(seed)
    spread = np.max(np.linalg.norm(Y[:, 1:] - Y[:, :1], axis=2), axis=1)
    assert spread.min() >= float(Fraction(r.stats["distance_bound"]))


@pytest.mark.parametrize("seed", [25, 26, 36])
def test_full_mask_consensus_is_not_certified(full_reports, seed):
    """Full-mask d = 2 instances that reach consensus (25, 36: a limit point; 26: a rotating cluster): no
    proposal, and neither the weights of 22 and 61 nor W = 0 prove a repulsion."""
    p = random_problem(seed, nonsymmetric=True)
    assert propose_repulsion(p)[0] is None
    zero = Repulsion((Fraction(0),), (Fraction(0),), Fraction(1, 1024), 2048)
    for attempt in (full_reports[22].certificate.repulsion, full_reports[61].certificate.repulsion, zero):
        assert not check_repulsion(p, attempt).ok


def test_full_mask_tampering_fails(full_reports):
    cert = full_reports[61].certificate
    p, data = cert.problem, cert.repulsion
    for bad in (replace(data, a=tuple(-v for v in data.a), b=tuple(-v for v in data.b)),
                replace(data, delta=Fraction(1, 8)), replace(data, boxes=64)):
        assert not check_repulsion(p, bad).ok
    together = replace(p, tokens=(p.tokens[0],) * p.N)
    assert "consensus at t = 0" in check_repulsion(together, data).reason
    nine = replace(p, tokens=p.tokens + p.tokens[:4])
    assert "at most 8 tokens" in check_repulsion(nine, data).reason


def test_dominance_with_an_unbounded_row_fails():
    """A NaN or infinite row (a softmax over a too-wide box) is never skipped, whatever its position."""
    from verify._fate.repulsion import dominant

    one, zero, nan = arb(1), arb(0), arb("nan")
    for Q in ([[one, zero], [zero, nan]], [[nan, zero], [zero, one]], [[one, zero], [zero, arb("inf")]]):
        assert not dominant(Q) > 0
    assert dominant([[one, zero], [zero, one]]) > 0
