"""Adversarial review of the Collatz-Wielandt logarithmic-norm bound (verify.validated.lognorm: ``lognorm_upper``,
``_norm2_upper``, ``_gram``, ``_perron``).

The oracle is exact and has no tolerance.  For a ball matrix ``DF`` with exact midpoints ``M`` and radii ``Rr`` (read
back from the arb entries themselves, so the mag rounding of the radii is the library's own) and any rational
``x != 0``, the vertex ``J = M + Rr o sign(x x^T)`` of ``DF`` has the Rayleigh quotient

    W(x) = (x^T M x + |x|^T Rr |x|) / x^T x  <=  lambda_max((J + J^T)/2),

so ``W(x) > B``, evaluated in rationals (``fmpq``), *proves* that ``B`` is a false bound, at any scale (1e-300 or
1e400) and at any distance.  The candidates ``x``: top eigenvectors of float vertices (random sign matrices, then the
sign-pattern ascent ``J_{k+1} = M + Rr o sign(x_k x_k^T)``, ``x_k`` the top eigenvector of ``J_k``: it maximises ``W``
for that ``x``), refined in mpmath (60 digits, no exponent range) for small ``n``.  ``sup_x W(x)`` is the true value
of ``max_{J in DF} lambda_max(J_sym)``; the ascent reaches it on the cases below to ~1e-10 relative (checked where the
truth is known in closed form).  For ``||E||_2`` of symmetric ``E`` in a symmetric ball matrix, ``W`` and its mirror
``W-(x) = (-x^T M x + |x|^T Rr |x|) / x^T x`` both bound it from below.

The ``teeth`` tests break the library on purpose (monkeypatched inside the test) and assert that this oracle catches it
(``test_adversary_lognorm_cw_teeth.py``); the oracle itself is in ``cw_exact.py``.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from flint import arb, arb_mat, ctx, fmpq, fmpz

from verify.validated.lognorm import _gram, _perron, lognorm_upper
from cw_exact import _fq, _parts, _floats, _sound, _balls, _rel, _pattern


# ------------------------------------------------------------------------------------------------- exact small cases


@pytest.mark.parametrize("prec", [30, 53, 128, 256])
def test_one_by_one_balls_are_bounded_by_mid_plus_rad(prec):
    """1 x 1: the truth is exactly ``a + r``; magnitudes from subnormal to beyond the double range, and a working
    precision far below the entries' (30 bits)."""
    cases = [(-2.5, 0.5), (0.0, 0.0), (0.0, 5e-324), (5e-324, 5e-324), (-5e-324, 0.0), (1e300, 1e300),
             (-1.7976931348623157e308, 1e-300), (1.7976931348623157e308, 1.7976931348623157e308), (-1e-300, 2e-300),
             (1.0 + 2 ** -52, 2 ** -60)]
    for a, r in cases:
        DF = arb_mat(1, 1, [arb(a, r)])
        B, W = _sound(DF, prec)
        assert W == _fq(a) + _parts(DF)[1][0, 0]
    with ctx.workprec(256):
        big = arb(fmpq(10 ** 400, 3)) + arb(0, arb(fmpq(10 ** 399)))
        tiny = -arb(fmpq(1, 10 ** 400)) + arb(0, arb(fmpq(3, 10 ** 401)))
    for x in (big, -big, tiny, -tiny):
        _sound(arb_mat(1, 1, [x]), prec)


@pytest.mark.parametrize("prec", [53, 256])
def test_two_by_two_against_the_closed_form(prec):
    """2 x 2 with radius on every entry: ``max lambda_max`` in closed form over the 16 vertices (mpmath, 80 digits,
    exact rationals), and the exact oracle attains it (so the oracle is tight here)."""
    rng = np.random.default_rng(prec)
    for _ in range(6):
        mid = rng.standard_normal((2, 2)) * 10 ** rng.uniform(-200, 200)
        rad = np.abs(rng.standard_normal((2, 2))) * np.abs(mid).max() * 10 ** rng.uniform(-17, 0)
        DF = _balls(mid, rad)
        B, W = _sound(DF, prec)
        Mq, Rq = _parts(DF)
        with mpmath.workdps(80):
            J = [mpmath.mpf(int(q.p)) / int(q.q) for q in Mq.entries()]
            R = [mpmath.mpf(int(q.p)) / int(q.q) for q in Rq.entries()]
            scale = max(abs(t) for t in J + R)
            best = None
            for s in range(16):
                S = [1 if s >> t & 1 else -1 for t in range(4)]
                a, b, c, d = (J[t] + S[t] * R[t] for t in range(4))
                o = (b + c) / 2
                lam = (a + d) / 2 + mpmath.sqrt(((a - d) / 2) ** 2 + o * o)
                best = lam if best is None else max(best, lam)
            Bm = mpmath.mpf(int(B.p)) / int(B.q)
            Wm = mpmath.mpf(int(W.p)) / int(W.q)
            assert best <= Bm + scale * mpmath.mpf(10) ** -70
            assert abs(Wm - best) <= scale * mpmath.mpf(10) ** -12   # the oracle finds the worst vertex


# ---------------------------------------------------------------------------------------- radius patterns (Perron)


PATTERNS = ["star", "K_2,n-2", "even cycle", "path", "geometric path", "cyclic shift (non-symmetric)",
            "reducible, equal radii", "bipartite weights"]


@pytest.mark.parametrize("name", PATTERNS)
def test_bipartite_and_periodic_radius_patterns(name):
    """Radius patterns whose adjacency matrix has eigenvalue ``-rho`` (bipartite: plain power iteration oscillates),
    slow or no convergence (reducible with equal radii), Perron entries far below the 1e-6 floor, and a non-symmetric
    pattern.  With ``mid = 0`` the truth is ``rho(sym(rad))`` exactly; also with a midpoint (negative shift, random)."""
    n = 12 if name != "even cycle" else 14
    rad = _pattern(name, n)
    rs = (rad + rad.T) / 2
    for mid in (np.zeros((n, n)), -3 * np.eye(n), np.random.default_rng(1).standard_normal((n, n)) * 0.3):
        DF = _balls(mid, rad)
        B, W = _sound(DF)
        if not mid.any():     # rho of the radii as stored (mag rounding makes them ~4e-9 larger than rad)
            Rf = _floats(_parts(DF)[1], 0)
            rho = float(np.linalg.eigvalsh((Rf + Rf.T) / 2).max())
            assert abs(float(W) - rho) <= 1e-12 * rho                # the oracle reaches the truth
            # and the bound is tight (Collatz-Wielandt, not row sums); a path's Perron iteration converges slowly
            assert float(B) <= rho * (1 + (1e-4 if name == "path" else 1e-7)) + 1e-9, (float(B), rho)
    v = _perron(rs)
    assert v is not None and np.all(v > 0) and np.all(np.isfinite(v))


def test_radii_with_a_dynamic_range_of_600_decades():
    """Radii 1e-300 .. 1e300 in one matrix (the float Perron iteration sees both), midpoints zero, tiny or huge."""
    rng = np.random.default_rng(5)
    for t in range(10):
        n = int(rng.integers(2, 12))
        rad = 10.0 ** rng.uniform(-300, 300, (n, n)) * (rng.random((n, n)) < 0.6)
        if t % 2:
            rad = np.maximum(rad, rad.T)
        mid = [np.zeros((n, n)), rng.standard_normal((n, n)) * 1e-300, rng.standard_normal((n, n)) * 1e250,
               -np.diag(10.0 ** rng.uniform(-300, 300, n))][t % 4]
        _sound(_balls(mid, rad), [53, 128, 256][t % 3], seed=t)


# ---------------------------------------------------------------------------------------- entries that are not doubles


@pytest.mark.parametrize("prec", [53, 128, 256])
def test_midpoints_with_200_bits_and_beyond_the_double_range(prec):
    """Balls built at 256 bits (200-bit midpoints, 10^+-400 magnitudes, and ``DF_ij + DF_ji`` that cancels to far
    below the entries), read by ``lognorm_upper`` at ``prec``: the float proposal sees a rounded or inf/0 midpoint."""
    rng = np.random.default_rng(prec)
    two = arb(2)
    for t in range(6):
        n = [2, 3, 5, 8, 4, 6][t]
        with ctx.workprec(256):
            ent = []
            for i in range(n):
                for j in range(n):
                    m = arb(fmpz(int(rng.integers(-2 ** 62, 2 ** 62)) * 2 ** 138 + int(rng.integers(0, 2 ** 62))))
                    ent.append(m * two ** int(rng.integers(-210, -190)))
            if t == 1:      # beyond the double range
                ent = [x * arb(fmpq(10 ** 400)) for x in ent]
            if t == 2:
                ent = [x * arb(fmpq(1, 10 ** 400)) for x in ent]
            if t == 3:      # skew part 2^100 that cancels in the symmetric part (an exact +1 survives)
                for i in range(n):
                    for j in range(i + 1, n):
                        ent[i * n + j] += two ** 100 + 1
                        ent[j * n + i] -= two ** 100
            if t >= 4:      # radii too
                ent = [x + arb(0, float(10 ** rng.uniform(-60, 0))) for x in ent]
            DF = arb_mat(n, n, ent)
        _sound(DF, prec, seed=t)


# ------------------------------------------------------------------------------------------ the factor and _gram


def test_gram_rounds_tiny_factor_entries_to_zero_and_the_bound_stays_true():
    """A factor ``R`` whose entries span far more than 52 bits: ``_gram`` rounds the small ones to 0 (checked), the
    residual must carry them."""
    cases = []
    # huge diagonal, tiny couplings: R_01 = a_01 / R_00 is ~1e-300 next to 1e100
    cases.append((np.array([[-1e200, 1e-100, 0.0], [1e-100, -1e-200, 3e-150], [0.0, 3e-150, -1e-250]]), None))
    rng = np.random.default_rng(2)
    n = 10
    q = np.diag(10.0 ** np.linspace(-150, 150, n))
    X = rng.standard_normal((n, n))
    cases.append((-(q @ X @ X.T @ q) / 10, None))
    cases.append((-(q @ X @ X.T @ q) / 10, np.abs(q @ rng.standard_normal((n, n)) @ q) * 1e-20))
    dropped = 0
    for mid, rad in cases:
        rad = np.zeros_like(mid) if rad is None else rad
        n = mid.shape[0]
        ms = (mid + mid.T) / 2
        lam = float(np.linalg.eigvalsh(ms).max())
        mu = lam + 1e-10 * (float(np.abs(ms).sum(axis=1).max()) + 1e-300)
        try:
            R = np.linalg.cholesky(mu * np.eye(n) - ms).T
            top = float(np.abs(R).max())
            k = 52 - math.frexp(top)[1]
            dropped += int(np.sum((np.rint(np.ldexp(R, k)) == 0) & (R != 0)))
            with ctx.workprec(128):
                G = _gram(R)                       # exact Rd^T Rd: symmetric, PSD
            assert all(G[i, j] == G[j, i] for i in range(n) for j in range(n))
        except np.linalg.LinAlgError:
            pass
        for prec in (53, 128):
            _sound(_balls(mid, rad), prec)
    assert dropped > 0


def test_definite_indefinite_singular_and_clustered_midpoints():
    """Negative definite, indefinite, exactly singular at the top (``-v v^T``: lambda_max = 0), zero, a scaled
    identity at 1e-300, and top eigenvalues 2^-60 apart (the float eigenvalue cannot resolve them)."""
    rng = np.random.default_rng(8)
    n = 7
    v = rng.standard_normal(n)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    mids = [-1e5 * np.eye(n) + rng.standard_normal((n, n)),
            q @ np.diag([3.0, 2, 1, 0, -1, -2, -3]) @ q.T,
            -np.outer(v, v),
            np.zeros((n, n)),
            1e-300 * np.eye(n),
            -1e-300 * np.eye(n),
            q @ np.diag([1.0, 1.0 - 2.0 ** -60, 1 - 2.0 ** -59, 0, 0, -1, -1]) @ q.T,
            np.diag([1e8, 1e-8, -1e8, 3.0, 0, 0, 1e8 * (1 - 2.0 ** -52)])]
    for t, mid in enumerate(mids):
        for rad in (np.zeros((n, n)), np.full((n, n), 2.0 ** -70), np.abs(rng.standard_normal((n, n))) * 1e-3):
            _sound(_balls(mid, rad), [53, 128][t % 2], seed=t, refine=False)
    with ctx.workprec(256):      # exactly rank-one -v v^T with v rational: lambda_max = 0 exactly
        w = [fmpq(int(rng.integers(1, 10 ** 6)), 7 ** 5) for _ in range(5)]
        DF = arb_mat(5, 5, [arb(-a * b) for a in w for b in w])
    B, W = _sound(DF, 53)
    assert B >= 0


def test_non_symmetric_DF_whose_symmetric_part_matters():
    """A huge skew part (1e10, 1e300) over a small symmetric one, radii only above the diagonal, a nilpotent Jordan
    chain (``lambda_max(sym) = cos(pi/(n+1))`` exactly), and general non-symmetric balls."""
    rng = np.random.default_rng(9)
    n = 9
    K = rng.standard_normal((n, n))
    Sy = rng.standard_normal((n, n)) * 1e-3
    cases = [(1e10 * (K - K.T) + Sy + Sy.T, np.zeros((n, n))),
             (1e300 * (K - K.T) / 4 + Sy, np.triu(np.abs(rng.standard_normal((n, n))), 1) * 1e-2),
             (np.diag(np.ones(n - 1), 1), np.zeros((n, n))),
             (np.diag(np.ones(n - 1), 1), np.diag(np.ones(n - 1), 1) * 0.5),   # the chain may double
             (rng.standard_normal((n, n)), np.abs(rng.standard_normal((n, n))) * np.triu(np.ones((n, n)))),
             (np.triu(rng.standard_normal((n, n)) * 1e5), np.tril(np.full((n, n), 1e-5)))]
    for t, (mid, rad) in enumerate(cases):
        B, W = _sound(_balls(mid, rad), [53, 128, 256][t % 3], seed=t)
        if t == 2:
            assert float(B) >= math.cos(math.pi / (n + 1)) and _rel(B, W) < 1e-6
        if t == 3:
            assert float(W) >= 1.5 * math.cos(math.pi / (n + 1)) * (1 - 1e-9)


def test_midpoints_whose_float_conversion_overflows():
    """``mid + mid^T`` overflows (1.7e308), the eigenvalue or row sum overflows (8e307 in a 40 x 40), arb midpoints
    beyond the double range with radii: the fallback (or a non-finite proposal) must still give a true bound."""
    big = 1.7976931348623157e308
    n = 40
    cases = [(np.array([[big, big], [big, -big]]), np.zeros((2, 2))),
             (np.array([[0.0, big], [big, 0.0]]), np.array([[0.0, big], [0.0, 0.0]])),
             (np.full((n, n), 8e307) * np.sign(np.random.default_rng(0).standard_normal((n, n))), np.zeros((n, n))),
             (np.full((4, 4), 8e307), np.full((4, 4), 8e307)),
             (np.diag([big, -big, 1.0]), np.full((3, 3), 1e300))]
    for t, (mid, rad) in enumerate(cases):
        _sound(_balls(mid, rad), 53 if t % 2 else 128, seed=t, starts=2, rounds=4)
    with ctx.workprec(128):
        h = arb(fmpq(10 ** 400))
        DF = arb_mat(3, 3, [h, -h, arb(0, 1), h * 3, arb(1), arb(0, h), arb(-1), arb(0), -h + arb(0, h / 7)])
    _sound(DF, 53)


@pytest.mark.parametrize("prec", [53, 256])
def test_non_finite_entries_raise_and_never_give_a_finite_bound(prec):
    """NaN, +-inf midpoints and infinite radii, in every position (diagonal, one triangle only, a +inf/-inf pair that
    cancels into NaN), n = 1..3: ``ArithmeticError``, never a value.  Non-square and empty input: ``ValueError``."""
    bads = [arb("nan"), arb("inf"), arb("-inf"), arb(0, float("inf")), arb(1e300, float("inf")), arb("nan") * 0]
    for n in (1, 2, 3):
        for bad in bads:
            for pos in range(n * n):
                with ctx.workprec(prec):
                    ent = [arb(1) if k == pos else arb(0.5 * k) for k in range(n * n)]
                    ent[pos] = bad
                    with pytest.raises(ArithmeticError):
                        lognorm_upper(arb_mat(n, n, ent))
    with ctx.workprec(prec):
        with pytest.raises(ArithmeticError):
            lognorm_upper(arb_mat(2, 2, [arb(0), arb("inf"), arb("-inf"), arb(0)]))
        with pytest.raises(ValueError):
            lognorm_upper(arb_mat(2, 3))
