"""Adversarial checks of the logarithmic-norm step (verify.validated.lognorm, run_ball_set, enter_half_space).

* ``lognorm_upper`` against a 90-digit oracle at *every vertex* of the ball matrix (lambda_max of the symmetric part
  is convex in ``J``: the worst matrix is a vertex) and at extreme magnitudes, compared exactly (not via decimals).
* ``ball_step`` against references from the starts that matter most: the ball's boundary along the direction the
  flow stretches most, closed forms (finite-time blow-up; a neutral flow where the claim is tight to 5e-5), and an
  mpmath solution for a zero-radius start.
* ``run_ball_set`` / ``enter_half_space``: the entry test sees the set; entries are true; bad input ends with a status.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, arb_mat, ctx, fmpq
from scipy.integrate import solve_ivp

from verify._fate.flow import run_ball_set
from verify._fate.head_flow import BALL_OPTIONS, FALLBACK, OPTIONS as HEAD_OPTIONS, HeadFlow, Plan, crossing_time, \
    enter_half_space
from verify.validated import Field
from verify.validated.balls import field_data, identity
from verify.validated.lognorm import BallSet, ball_step, lognorm_upper
from verify.validated.options import ValidatedOptions

OPTS = ValidatedOptions(order=12, jacobian_order=3, tol=1e-12, max_width=0.5, prec=128)



def _exact(b: arb) -> mpmath.mpf:
    """The bound's value exactly (it must have radius 0)."""
    assert b.rad() == 0
    m, e = b.mid().man_exp()
    return mpmath.ldexp(mpmath.mpf(int(m)), int(e))


def _lam(M) -> mpmath.mpf:
    """lambda_max((M + M^T)/2) at 90 digits; entries floats, Fractions or mpf."""
    def mp(x):
        return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)
    A = mpmath.matrix([[mp(x) for x in row] for row in M])
    return max(mpmath.eigsy((A + A.T) / 2)[0]) + 0


def _vertex_worst(mid: np.ndarray, rad: np.ndarray) -> mpmath.mpf:
    n, idx, lams = mid.shape[0], [k for k in range(mid.size) if rad.flat[k] > 0], []
    for signs in itertools.product((-1, 1), repeat=len(idx)):
        J = [[mpmath.mpf(float(x)) for x in row] for row in mid]
        for s, k in zip(signs, idx):
            J[k // n][k % n] += s * mpmath.mpf(float(rad.flat[k]))
        lams.append(_lam(J))
    return max(lams)


def _check_vertices(mid: np.ndarray, rad: np.ndarray, prec: int = 128) -> mpmath.mpf:
    """The bound minus the worst vertex (>= 0 when the bound holds); asserts that it holds."""
    n = mid.shape[0]
    with ctx.workprec(prec):
        b = lognorm_upper(arb_mat(n, n, [arb(float(a), float(r)) for a, r in zip(mid.flat, rad.flat)]))
    with mpmath.workdps(90):
        worst, B = _vertex_worst(mid, rad), _exact(b)
        assert worst <= B + abs(worst) * mpmath.mpf(10) ** -80, (mid, rad, worst, B)
        return B - worst


@pytest.mark.parametrize("seed", range(4))
def test_lognorm_bound_covers_every_vertex_of_the_ball_across_200_decades(seed):
    rng = np.random.default_rng(seed)
    for _ in range(4):
        n = int(rng.integers(2, 4))
        mid = 10 ** rng.uniform(-150, 150, (n, n)) * rng.choice([-1, 1], (n, n))
        rad = np.abs(mid) * 10 ** rng.uniform(-16, 0, (n, n)) * (rng.random((n, n)) < 0.5)
        _check_vertices(mid, rad)
        # a moderate matrix whose radius is comparable to the midpoint (the radius term must count)
        mid = rng.standard_normal((2, 2))
        _check_vertices(mid, np.abs(rng.standard_normal((2, 2))) * 0.5)


def test_lognorm_extreme_magnitudes_and_exact_equality_at_overflow():
    z = np.zeros
    # near overflow: mid + mid^T overflows in floats, the bound falls back to Gershgorin and equals 2a exactly
    a = 1.7e308
    assert _check_vertices(np.array([[a, a], [a, a]]), z((2, 2))) == 0
    _check_vertices(np.array([[0.0, a], [-a, 0.0]]), z((2, 2)))           # skew: lambda = 0
    _check_vertices(np.array([[0.0, a], [0.0, 0.0]]), z((2, 2)))           # lambda = a / 2
    _check_vertices(np.array([[5e-324, 1e-320], [0.0, -5e-324]]), z((2, 2)))  # subnormals
    _check_vertices(z((2, 2)), np.full((2, 2), 5e-324))
    _check_vertices(np.array([[1.0, 2.0], [3.0, 4.0]]), np.full((2, 2), 1e300))
    _check_vertices(np.diag([1e200, 1e-200, -1e200]) + np.full((3, 3), 1e-200) * (1 - np.eye(3)), z((3, 3)))
    _check_vertices(np.array([[0.0, 1e10], [0.0, 0.0]]), z((2, 2)))
    # Gershgorin fallback (the float midpoint overflows): the radii must count there too
    assert _check_vertices(np.array([[1e308, 1e308], [1e308, 1e308]]), np.array([[1e307, 0.0], [0.0, 0.0]])) >= 0
    _check_vertices(np.array([[-2.5]]), np.array([[0.5]]))
    rng = np.random.default_rng(3)
    for _ in range(6):                                   # clustered top eigenvalues 2^-52 apart
        q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
        ev = np.array([1.0, 1.0 - 2.0 ** -52, -1.0]) * 10 ** rng.uniform(-5, 5)
        _check_vertices(q @ np.diag(ev) @ q.T + rng.standard_normal((3, 3)) * 1e-17 * ev[0], z((3, 3)))


@pytest.mark.parametrize("prec", [53, 256])
def test_lognorm_entries_that_are_not_doubles(prec):
    """Entries outside the double range (the float midpoint is inf or 0) and entries with more bits than a double:
    floats only propose, the error term is computed from the exact balls."""
    F = Fraction
    cases = [[[F(1, 3), F(1, 3) + F(1, 10 ** 30)], [F(1, 3), F(1, 3)]],
             [[F(10 ** 400), F(1)], [F(1), F(-10 ** 400)]],
             [[F(1, 10 ** 400), F(3, 10 ** 400)], [F(1, 10 ** 400), F(1, 10 ** 400)]],
             [[F(1), F(1, 10 ** 400)], [F(1, 10 ** 400), F(1) + F(1, 10 ** 380)]],
             [[F(1), F(1, 3)], [F(1, 7), F(1) + F(1, 10 ** 20)]]]
    for Q in cases:
        n = len(Q)
        with ctx.workprec(prec):   # the balls hold the exact rationals: the oracle uses the rationals
            b = lognorm_upper(arb_mat(n, n, [arb(fmpq(x.numerator, x.denominator)) for row in Q for x in row]))
        with mpmath.workdps(90):
            ex = _lam(Q)
            assert ex <= _exact(b) + abs(ex) * mpmath.mpf(10) ** -80, Q


def test_lognorm_radius_counts_when_the_midpoint_is_beyond_the_double_range():
    big = arb(fmpq(10 ** 400))
    with ctx.workprec(128):
        b = lognorm_upper(arb_mat(2, 2, [big + arb(0, big / 10), arb(0), arb(0), -big]))
        assert b >= big * arb(fmpq(11, 10)) and b.rad() == 0


def test_lognorm_non_finite_entries_raise_arithmetic_error():
    with ctx.workprec(128):
        for bad in (arb("inf"), arb("-inf"), arb("nan"), arb(1, float("inf"))):
            with pytest.raises(ArithmeticError):
                lognorm_upper(arb_mat(2, 2, [arb(1), bad, arb(0), arb(1)]))



def _system(seed, N, d, beta=1.0, pscale=1.0, uscale=1.0, H=1, causal=False, identity_u=False):
    rng = np.random.default_rng(seed)
    Ps = [rng.standard_normal((d, d)) * pscale for _ in range(H)]
    Us = [np.eye(d) if identity_u else rng.standard_normal((d, d)) * uscale for _ in range(H)]
    field = Field(beta=Fraction(beta), P=[[[Fraction(float(x)) for x in r] for r in P] for P in Ps],
                  U=None if identity_u else [[[Fraction(float(x)) for x in r] for r in U] for U in Us],
                  mask="causal" if causal else "full")
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    mask = np.tril(np.ones((N, N), bool)) if causal else np.ones((N, N), bool)

    def f(t, y):
        Z = y.reshape(N, d)
        out = np.zeros((N, d))
        for P, U in zip(Ps, Us):
            S = np.where(mask, beta * Z @ P @ Z.T, -np.inf)
            W = np.exp(S - S.max(axis=1, keepdims=True))
            out += (W / W.sum(axis=1, keepdims=True)) @ Z @ U.T
        return (out - Z * np.sum(Z * out, axis=1, keepdims=True)).ravel()
    return field, X, f


def _flow(f, y0, T):
    return solve_ivp(f, (0, T), y0, method="DOP853", rtol=1e-13, atol=1e-15).y[:, -1]


def _top_direction(f, c, T, eps=1e-7):
    """The unit start direction that the flow map to ``T`` stretches most (finite differences + SVD)."""
    E = np.eye(len(c)) * eps
    J = np.array([(_flow(f, c + e, T) - _flow(f, c - e, T)) / (2 * eps) for e in E]).T
    return np.linalg.svd(J)[2][0]


def _steps(heads, causal, c0, r0, T, opts=OPTS, max_steps=400):
    N, d = c0.shape
    with ctx.workprec(opts.prec):
        S, t, hint = BallSet(arb_mat(N, d, c0.ravel().tolist()), arb(r0)), Fraction(0), None
        for _ in range(max_steps):
            out = ball_step(S, heads, causal, Fraction(T) - t, opts, hint)
            if out.new is None:
                break
            S, t, hint = out.new, t + out.h, out.next_hint
            if t >= T or float(S.radius) > 0.1:
                break
    return S, t


def _ratio(S, y):
    c = np.array([float(x.mid()) for x in S.centre.entries()])
    return np.linalg.norm(y - c) / float(S.radius)


CASES = [  # name, system, start radius, horizon
    ("causal 2 heads N5 d4", dict(seed=16, N=5, d=4, H=2, causal=True), 1e-5, 0.15),
    ("near hard-max beta 30", dict(seed=11, N=3, d=3, beta=30.0), 1e-5, 0.01),
    ("large U", dict(seed=13, N=3, d=3, uscale=50.0), 1e-6, 0.004),
    ("expanding P * 6", dict(seed=7, N=4, d=3, pscale=6.0), 1e-6, 0.4),
    ("prec 53, horizon 1/3", dict(seed=4, N=3, d=3), 1e-6, Fraction(1, 3)),
]


@pytest.mark.parametrize("name,kw,r0,T", CASES, ids=[c[0] for c in CASES])
def test_ball_steps_contain_the_fastest_spreading_starts(name, kw, r0, T):
    field, X, f = _system(**kw)
    opts = ValidatedOptions(order=12, tol=1e-12, max_width=0.5, prec=53) if "prec 53" in name else OPTS
    S, t = _steps(field_data(field), kw.get("causal", False), X, r0, T, opts)
    assert t == T, (name, float(t))
    v = _top_direction(f, X.ravel(), float(t))
    rng = np.random.default_rng(0)
    starts = [X.ravel() + s * r0 * v for s in (1, -1)]
    starts += [X.ravel() + r0 * u / np.linalg.norm(u) for u in rng.standard_normal((2, X.size))]
    for y0 in starts:
        assert _ratio(S, _flow(f, y0, float(t))) <= 1 + 1e-6, name


def test_zero_radius_start_holds_the_mpmath_solution():
    """r0 = 0: the new radius is the centre's own error only; a 30-digit Taylor solution (mpmath.odefun) must be
    inside (a float reference could not resolve radii near 1e-15)."""
    field, X, _ = _system(seed=21, N=2, d=2, beta=3.0, uscale=1.5)
    B = [[mpmath.mpf(3.0) * mpmath.mpf(float(x)) for x in r] for r in field.P[0]]
    U = [[mpmath.mpf(float(x)) for x in r] for r in field.U[0]]

    def F(t, y):
        Z, out = [y[0:2], y[2:4]], []
        for i in range(2):
            e = [mpmath.exp(sum(Z[i][a] * B[a][b] * Z[j][b] for a in range(2) for b in range(2))) for j in range(2)]
            G = [sum(e[j] / sum(e) * sum(U[a][b] * Z[j][b] for b in range(2)) for j in range(2)) for a in range(2)]
            dot = sum(Z[i][a] * G[a] for a in range(2))
            out += [G[a] - Z[i][a] * dot for a in range(2)]
        return out
    opts = ValidatedOptions(order=12, tol=1e-14, max_width=0.5, prec=128)
    with mpmath.workdps(30):
        sol = mpmath.odefun(F, 0, [mpmath.mpf(float(x)) for x in X.ravel()], tol=mpmath.mpf(10) ** -28)
        with ctx.workprec(128):
            S, t, hint = BallSet(arb_mat(2, 2, X.ravel().tolist()), arb(0)), Fraction(0), None
            for _ in range(6):
                out = ball_step(S, field_data(field), False, Fraction(1) - t, opts, hint)
                S, t, hint = out.new, t + out.h, out.next_hint
                ref = sol(mpmath.mpf(t.numerator) / t.denominator)
                c = [_exact(x.mid()) for x in S.centre.entries()]
                dist = mpmath.sqrt(sum((a - b) ** 2 for a, b in zip(ref, c)))
                assert 0 < float(S.radius) < 1e-12
                assert dist <= _exact(S.radius) - mpmath.mpf(10) ** -26


@pytest.mark.parametrize("H,prec", [(1, 128), (2, 53)])
def test_a_neutral_flow_is_enclosed_to_within_5e_5_of_its_closed_form(H, prec):
    """One token, ``U = I``, ``H`` heads: ``x' = H (x - x |x|^2)``, every point of the sphere is fixed and
    ``|x|^2`` is logistic (closed form, evaluated at 60 digits).  Tangent starts barely move, so the claimed radius
    is tight: the exact solutions land within 5e-5 of the boundary of the new ball, and must not cross it."""
    z = Fraction(0)
    field = Field(beta=Fraction(1), P=[[[Fraction(1), z, z], [z, Fraction(2), z], [z, z, Fraction(-1)]]] * H)
    c0, r0 = [Fraction(3, 5), Fraction(4, 5), z], Fraction(1, 2 ** 20)
    opts = ValidatedOptions(order=12, tol=1e-14, max_width=0.5, prec=prec)
    worst = 0
    with mpmath.workdps(60), ctx.workprec(prec):
        S = BallSet(arb_mat(1, 3, [arb(fmpq(v.numerator, v.denominator)) for v in c0]), arb(fmpq(1, 2 ** 20)))
        C = [mpmath.mpf(v.numerator) / v.denominator for v in c0]
        dirs = [[-4, 3, 0], [0, 0, 5], [3, 4, 0], [-3, -4, 0], [2.4, -1.8, 4]]   # |dir| = 5
        starts = [[C[i] + mpmath.mpf(r0.numerator) / r0.denominator * dv[i] / 5 for i in range(3)] for dv in dirs]
        t, hint = Fraction(0), None
        for _ in range(8):
            out = ball_step(S, field_data(field), False, Fraction(2) - t, opts, hint)
            S, t, hint = out.new, t + out.h, out.next_hint
            c, R = [_exact(x.mid()) for x in S.centre.entries()], _exact(S.radius)
            for y in starts:
                q0 = sum(v * v for v in y)
                q = 1 / (1 + (1 / q0 - 1) * mpmath.exp(-2 * H * mpmath.mpf(t.numerator) / t.denominator))
                dist = mpmath.sqrt(sum((v * mpmath.sqrt(q / q0) - b) ** 2 for v, b in zip(y, c)))
                assert dist <= R, (float(t), dist / R)
                worst = max(worst, dist / R)
    assert worst > 1 - 5e-5   # the samples really probe the boundary (else this test would lose its power)


@pytest.mark.parametrize("r0", [0.0, 1e-3])
def test_no_claim_past_a_finite_time_blow_up_and_the_closed_form_stays_inside(r0):
    """One token, U = -I: ``x' = x (|x|^2 - 1)``, ``|x(t)|^2 = 1 / (1 - (1 - 1/|x0|^2) e^{2t})``: from ``|x0| = 2``
    the solution blows up at ``t* = ln(4/3) / 2``."""
    z, m = Fraction(0), Fraction(-1)
    heads = field_data(Field(beta=Fraction(1), P=[[[z, z], [z, z]]], U=[[[m, z], [z, m]]]))
    c0 = np.array([2.0, 0.0])
    angles = np.linspace(0, 2 * np.pi, 8, endpoint=False)
    starts = [c0 + r0 * np.array([math.cos(a), math.sin(a)]) for a in angles]
    t_star = min(-math.log(1 - 1 / float(y @ y)) / 2 for y in starts)
    with ctx.workprec(128):
        S, t, hint, k = BallSet(arb_mat(1, 2, c0.tolist()), arb(r0)), Fraction(0), None, 0
        while True:
            out = ball_step(S, heads, False, Fraction(1, 5) - t, OPTS, hint)
            if out.new is None:
                break
            S, t, hint, k = out.new, t + out.h, out.next_hint, k + 1
            assert float(t) < t_star
            if k % 10 == 0:
                for y0 in starts:
                    y = y0 / math.sqrt(float(y0 @ y0) * (1 - (1 - 1 / float(y0 @ y0)) * math.exp(2 * float(t))))
                    assert np.linalg.norm(y - [float(x.mid()) for x in S.centre.entries()]) <= float(S.radius) * (
                        1 + 1e-9) + 1e-12 * np.linalg.norm(y)
        assert float(t) > 0.9 * t_star
        box = arb_mat(1, 2, [arb(x, r0 / 2) for x in c0])   # the farthest corner: |y|^2 = (2 + r0/2)^2 + r0^2/4
        wide = ValidatedOptions(order=12, tol=1e-12, max_width=1e30, prec=128)
        run = run_ball_set(heads, False, box, Fraction(1, 5), lambda rows: False, wide)
    t_box = -math.log(1 - 1 / ((2 + r0 / 2) ** 2 + r0 ** 2 / 4)) / 2
    assert not run.entered and run.status == "step_too_small" and 0.9 * t_box < float(run.time) < t_box



def test_the_rows_given_to_the_entry_test_contain_the_set():
    """Only token 0's first coordinate is uncertain (radius rho): the rows the test receives at time 0 contain the
    initial balls, and the rows at ``t_max`` contain the reference solutions from both ends of that interval."""
    field, X, f = _system(seed=5, N=3, d=3, pscale=2.0)
    rho, seen = 1e-4, []
    with ctx.workprec(128):
        initial = arb_mat(3, 3, [arb(x, rho if k == 0 else 0) for k, x in enumerate(X.ravel())])
        run = run_ball_set(field_data(field), False, initial, Fraction(1, 16), lambda rows: seen.append(rows) or False,
                           OPTS)
        assert run.status == "t_max" and run.time == Fraction(1, 16) and len(seen) == run.steps + 1 >= 2
        assert all(r.contains(b) for r, b in zip(itertools.chain(*seen[0]), initial.entries()))
        for s in (1, -1):
            y = _flow(f, X.ravel() + s * rho * np.eye(9)[0], 1 / 16)
            assert all(r.contains(arb(v)) for r, v in zip(itertools.chain(*seen[-1]), y)), s
            assert all(r.contains(arb(v)) for r, v in zip(itertools.chain(*run.enclosure), y)), s


def test_run_ball_set_entry_holds_for_the_reference_at_the_returned_time():
    """A threshold that the flow crosses: every reference solution from the set is past it at the entry time;
    a ball that already passes it at 0 enters at 0; and the time is the exact sum of the steps."""
    field, X, f = _system(seed=3, N=3, d=3)
    heads, r0 = field_data(field), 1e-6
    sol = solve_ivp(f, (0, 2), X.ravel(), method="DOP853", rtol=1e-12, atol=1e-14, dense_output=True)
    path = sol.sol(np.linspace(0, 2, 401))
    k = int(np.argmax(path.max(axis=1) - X.ravel()))       # the coordinate that rises most
    rise = path[k].max() - X.flat[k]
    level = float(path[k].max() - 0.1 * rise)              # crossed late, just below the top
    assert rise > 0.05
    i, a = divmod(k, 3)
    with ctx.workprec(128):
        initial = arb_mat(3, 3, [arb(x, r0 / 3) for x in X.ravel()])
        run = run_ball_set(heads, False, initial, Fraction(2), lambda rows: rows[i][a] > level, OPTS)
        at0 = run_ball_set(heads, False, initial, Fraction(2), lambda rows: rows[i][a] > X[i, a] - 0.01, OPTS)
    assert run.entered and run.status == "entered" and 0 < run.time <= 2
    assert at0.entered and at0.time == 0 and at0.steps == 0
    rng = np.random.default_rng(1)
    for u in rng.uniform(-1, 1, (4, 9)):
        y0 = X.ravel() + r0 / 3 * np.sign(u)  # corners of the initial box (inside the ball of radius r0/sqrt(3))
        assert _flow(f, y0, float(run.time))[k] > level


def _half_space_plan(rad):
    """Three tokens (U = I) straddling ker w, w the direction of their consensus; the start balls have radius rad."""
    field, X, f = _system(seed=2, N=3, d=3, identity_u=True)
    heads = tuple((Bt, identity(3) if Ut is None else Ut) for Bt, Ut in field_data(field))
    xf = _flow(f, X.ravel(), 20.0).reshape(3, 3)
    w = xf.mean(axis=0) / np.linalg.norm(xf.mean(axis=0))
    assert (X @ w).min() < 0 < (X @ w).max() and (xf @ w).min() > 0.05
    with ctx.workprec(128):
        flow = HeadFlow(heads, arb_mat(3, 3, [arb(x, rad) for x in X.ravel()]), identity(3))
        proposal = crossing_time(flow, w, False)
        return Plan(flow, tuple(arb(float(x)) for x in w), proposal[0], proposal[1], False, HEAD_OPTIONS), X, f, w


def test_enter_half_space_by_lognorm_is_true_for_the_reference():
    plan, X, f, w = _half_space_plan(0)
    entry = enter_half_space(plan)
    assert entry.method == "lognorm" and entry.run.entered and entry.sign == 1
    assert (_flow(f, X.ravel(), float(entry.run.time)).reshape(3, 3) @ w).min() > 0


def test_enter_half_space_falls_back_to_lohner_when_the_ball_grows_too_wide(monkeypatch):
    """A width limit the ball runs cannot keep (1e-3 here): they stop with ``width`` and the Lohner run takes over."""
    from dataclasses import replace
    from verify._fate import head_flow
    narrow = replace(BALL_OPTIONS, max_width=1e-3)
    monkeypatch.setattr(head_flow, "BALL_OPTIONS", narrow)
    monkeypatch.setattr(head_flow, "BALL_TIGHT", replace(head_flow.BALL_TIGHT, max_width=1e-3))
    plan, X, f, w = _half_space_plan(5e-3)
    with ctx.workprec(128):
        ball = run_ball_set(plan.flow.heads, False, plan.flow.initial, Fraction(1), lambda rows: False, narrow)
    entry = enter_half_space(plan)
    assert ball.status in FALLBACK and entry.method == "lohner"
    if entry.run.entered:
        assert (_flow(f, X.ravel(), float(entry.run.time)).reshape(3, 3) @ w).min() * entry.sign > 0


def test_bad_input_ends_cleanly_with_a_status():
    field, X, _ = _system(seed=1, N=3, d=3)
    heads = field_data(field)
    good, ((Bt, Ut),) = X.ravel().tolist(), heads
    with ctx.workprec(128):
        bad_initial = [arb_mat(3, 3, [first] + good[1:]) for first in
                       (arb("nan"), arb("inf"), arb(X[0, 0], float("inf")), arb(1e300))]
        bad_heads = [((arb_mat(3, 3, [arb("nan")] + Bt.entries()[1:]), Ut),), ((Bt * arb(1e300), Ut),),
                     ((Bt + arb_mat(3, 3, [arb(0, 1e10)] * 9), Ut),)]
        runs = [run_ball_set(heads, False, M, Fraction(1), lambda rows: False, OPTS) for M in bad_initial]
        runs += [run_ball_set(H, False, arb_mat(3, 3, good), Fraction(1), lambda rows: False, OPTS) for H in bad_heads]
        # a NaN or infinite enclosure never passes a test of the form ``ball > level``
        runs += [run_ball_set(heads, False, M, Fraction(1), lambda rows: rows[0][0] > -1e9, OPTS)
                 for M in (bad_initial[0], bad_initial[2])]
    for k, run in enumerate(runs):  # a non-finite start is refused as a set of infinite width, before any step
        infinite_start = k in (0, 1, 2, 7, 8)
        assert not run.entered and run.time == 0 and run.steps == 0
        assert run.status == ("width" if infinite_start else "step_too_small"), (k, run.status)
