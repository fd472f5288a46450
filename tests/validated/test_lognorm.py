"""The logarithmic-norm step (verify.validated.lognorm): the bound on lambda_max((J + J^T)/2) over a ball matrix is
an upper bound for every matrix in it (checked against sampled matrices and a 50-digit oracle, including ill-scaled
ones where a float eigenvalue is wrong), and a run of ball steps encloses the float solutions from sampled starts."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, arb_mat, ctx
from scipy.integrate import solve_ivp

from verify._fate.flow import run_ball_set
from verify.validated import Field
from verify.validated.balls import field_data
from verify.validated.lognorm import BallSet, ball_step, ball_width, lognorm_upper
from verify.validated.options import ValidatedOptions


def _balls(mid: np.ndarray, rad: np.ndarray) -> arb_mat:
    n, m = mid.shape
    return arb_mat(n, m, [arb(float(a), float(r)) for a, r in zip(mid.ravel(), rad.ravel())])


def _covers(bound: arb, exact: mpmath.mpf) -> bool:
    """``exact <= bound`` compared at 60 digits (the bound has radius 0)."""
    with mpmath.workdps(60):
        return exact <= mpmath.mpf(bound.str(60, radius=False)) + mpmath.mpf(10) ** -45 * (1 + abs(exact))


def _oracle_lam(M) -> mpmath.mpf:
    """lambda_max((M + M^T)/2) at 50 digits, ``M`` exact entries (floats or Fractions)."""
    with mpmath.workdps(50):
        A = mpmath.matrix([[mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in row] for row in M])
        S = (A + A.T) / 2
        return max(mpmath.eigsy(S)[0]) + 0  # + 0: a copy at this precision


@pytest.mark.parametrize("seed", range(6))
def test_the_bound_holds_for_every_sampled_matrix_and_is_tight(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    mid = rng.standard_normal((n, n)) * 10 ** rng.uniform(-3, 3)
    rad = np.abs(rng.standard_normal((n, n))) * 10 ** rng.uniform(-12, -2) * np.abs(mid).max()
    with ctx.workprec(128):
        bound = lognorm_upper(_balls(mid, rad))
        assert bound.rad() == 0
        for _ in range(20):
            J = mid + rad * rng.uniform(-1, 1, (n, n))
            J = [[Fraction(float(x)) for x in row] for row in J]
            assert _covers(bound, _oracle_lam(J))
    slack = np.abs(rad).sum(axis=1).max() + np.abs(rad).sum(axis=0).max()
    lam = float(np.linalg.eigvalsh((mid + mid.T) / 2).max())
    assert float(bound) <= lam + slack + 1e-6 * np.abs(mid).max()


def test_known_values_diagonal_skew_and_negative():
    with ctx.workprec(128):
        diag = arb_mat(3, 3, [1, 0, 0, 0, 2, 0, 0, 0, 3])
        b = lognorm_upper(diag)
        assert b >= 3 and float(b) < 3 + 1e-8
        skew = arb_mat(2, 2, [0, 5, -5, 0])                  # (J + J^T)/2 = 0
        assert abs(float(lognorm_upper(skew))) < 1e-8 and lognorm_upper(skew) >= 0
        neg = arb_mat(2, 2, [-3, 1, 1, -3])                  # eigenvalues -2, -4
        b = lognorm_upper(neg)
        assert b >= -2 and float(b) < -2 + 1e-8


def test_ill_scaled_and_near_degenerate_matrices_are_never_underestimated():
    """Entries 1e8 next to 1e-8 and a rank-one matrix plus a tiny perturbation: the float eigenvalue can be off by
    far more than the gap to the next float; the bound must still cover the 50-digit value."""
    rng = np.random.default_rng(11)
    cases = []
    v = rng.standard_normal(6)
    cases.append(np.outer(v, v) * 1e8 + np.diag(rng.standard_normal(6)) * 1e-8)
    cases.append(np.diag([1e8, 1e-8, -1e8, 3.0]) + 1e-9 * rng.standard_normal((4, 4)))
    q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    cases.append(q @ np.diag([1.0, 1.0 - 2 ** -50, 1 - 2 ** -49, 0, 0, -1, -1, -1]) @ q.T)
    cases.append(np.array([[1.0, 2.0 ** -60], [2.0 ** -60, 1.0]]))  # lambda = 1 + 2^-60: the float says 1.0
    cases += [rng.standard_normal((2, 2)) for _ in range(40)]         # float eigenvalues below the exact half the time
    with ctx.workprec(128):
        for M in cases:
            bound = lognorm_upper(_balls(M, np.zeros_like(M)))
            exact = _oracle_lam([[Fraction(float(x)) for x in row] for row in M])
            assert _covers(bound, exact)


def test_a_non_finite_or_non_square_jacobian_is_refused():
    with ctx.workprec(128):
        bad = arb_mat(2, 2, [arb(1), arb("nan"), arb(0), arb(1)])
        with pytest.raises(ArithmeticError):
            lognorm_upper(bad)
        with pytest.raises(ValueError):
            lognorm_upper(arb_mat(2, 3))


def _system(seed: int, N: int, d: int, scale: float):
    rng = np.random.default_rng(seed)
    P = (rng.standard_normal((d, d)) * scale).round(3)
    U = (rng.standard_normal((d, d))).round(3)
    field = Field(beta=Fraction(1), P=[[[Fraction(str(x)) for x in r] for r in P]],
                  U=[[[Fraction(str(x)) for x in r] for r in U]])
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)

    def f(t, y):
        Z = y.reshape(N, d)
        S = Z @ P @ Z.T
        W = np.exp(S - S.max(axis=1, keepdims=True))
        W /= W.sum(axis=1, keepdims=True)
        G = (W @ Z) @ U.T
        return (G - Z * np.sum(Z * G, axis=1, keepdims=True)).ravel()
    return field, X, f


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ball_steps_enclose_the_solutions_from_sampled_starts(seed):
    N, d, r0 = 3, 3, 1e-5
    field, X, f = _system(seed, N, d, 2.0)
    heads = field_data(field)
    opts = ValidatedOptions(order=12, tol=1e-12, max_width=0.5, prec=128)
    rng = np.random.default_rng(100 + seed)
    starts = [X.ravel()] + [X.ravel() + r0 * (lambda u: u / np.linalg.norm(u) * rng.uniform(0.2, 1))(
        rng.standard_normal(N * d)) for _ in range(6)]
    with ctx.workprec(128):
        S = BallSet(arb_mat(N, d, X.ravel().tolist()), arb(r0))
        t, hint = Fraction(0), None
        for _ in range(12):
            out = ball_step(S, heads, False, Fraction(3) - t, opts, hint)
            assert out.new is not None, out.reason
            S, t, hint = out.new, t + out.h, out.next_hint
            c = np.array([float(x.mid()) for x in S.centre.entries()])
            r = float(S.radius)
            for y0 in starts:
                y = solve_ivp(f, (0, float(t)), y0, method="DOP853", rtol=1e-13, atol=1e-15).y[:, -1]
                assert np.linalg.norm(y - c) <= r * (1 + 1e-6) + 1e-12, (float(t), np.linalg.norm(y - c), r)
            if t >= 3:
                break
    assert ball_width(S) < 1e-2


def test_an_expanding_flow_grows_the_radius_and_stays_rigorous():
    """A sharp head (beta |P| large) pulls tokens apart somewhere: mu > 0, so the radius must grow; samples stay in."""
    N, d = 4, 3
    field, X, f = _system(7, N, d, 6.0)
    heads = field_data(field)
    opts = ValidatedOptions(order=12, tol=1e-12, max_width=0.5, prec=128)
    rng = np.random.default_rng(5)
    with ctx.workprec(128):
        S = BallSet(arb_mat(N, d, X.ravel().tolist()), arb(1e-8))
        out = ball_step(S, heads, False, Fraction(1, 4), opts)
        assert out.new is not None and out.mu > 0 and float(out.new.radius) > 1e-8
        c = np.array([float(x.mid()) for x in out.new.centre.entries()])
        for _ in range(5):
            u = rng.standard_normal(N * d)
            y0 = X.ravel() + 1e-8 * u / np.linalg.norm(u)
            y = solve_ivp(f, (0, float(out.h)), y0, method="DOP853", rtol=1e-13, atol=1e-16).y[:, -1]
            assert np.linalg.norm(y - c) <= float(out.new.radius) * (1 + 1e-6)


def test_a_run_stops_at_entry_and_never_claims_an_entry_the_flow_does_not_make():
    """``run_ball_set`` with a test that the true solution passes at some time (the first token's first
    coordinate above its start plus 0.01 when it rises) and one it never passes (a coordinate above 2)."""
    N, d = 3, 3
    field, X, f = _system(3, N, d, 2.0)
    heads = field_data(field)
    opts = ValidatedOptions(order=12, tol=1e-12, max_width=0.5, prec=128)
    sol = solve_ivp(f, (0, 2), X.ravel(), method="DOP853", rtol=1e-12, atol=1e-14, dense_output=True)
    sign = 1 if sol.y[0, -1] > X[0, 0] else -1
    level = X[0, 0] + sign * 0.01
    with ctx.workprec(128):
        initial = arb_mat(N, d, X.ravel().tolist())
        run = run_ball_set(heads, False, initial, Fraction(2), lambda rows: sign * (rows[0][0] - arb(level)) > 0, opts)
        if sign * (sol.y[0, -1] - level) > 1e-6:
            assert run.entered and run.status == "entered"
            t = float(run.time)
            assert sign * (sol.sol(t)[0] - level) > 0
        never = run_ball_set(heads, False, initial, Fraction(1), lambda rows: rows[0][0] > 2, opts)
        assert not never.entered and never.status == "t_max" and never.time == 1
