"""Adversarial review of the Collatz-Wielandt logarithmic-norm bound, part 2: fuzzing, ``_norm2_upper`` with hostile
proposals, medium random matrices, and the ``teeth`` tests that break the library on purpose and check that the exact
oracle (``cw_exact.py``, described in ``test_adversary_lognorm_cw.py``) catches it."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from flint import arb, arb_mat, ctx

from verify.validated import lognorm as LN
from verify.validated.lognorm import _norm2_upper, _perron, lognorm_upper
from cw_exact import _fq, _oracle, _bound, _sound, _balls, _rel, _pattern
def test_fuzz_extreme_magnitudes_small_matrices():
    """600 small ball matrices (n 1..6) whose entries mix exponents -323 (subnormal) .. 308 (near overflow), sparse
    midpoints and radii, at 30/53/128/256 bits.  (A 2-minute run of this generator, 65 000 cases, found nothing.)"""
    rng = np.random.default_rng(123)
    for t in range(600):
        n = int(rng.integers(1, 7))
        e = rng.choice([-323, -310, -300, -150, -20, 0, 20, 150, 300, 307, 308], (n, n))
        with np.errstate(all="ignore"):
            mid = rng.standard_normal((n, n)) * 10.0 ** rng.uniform(e - 1, e) * (rng.random((n, n)) < 0.8)
            mid[~np.isfinite(mid)] = 1.7e308
            er = rng.choice([-323, -300, -100, -16, 0, 100, 300, 308], (n, n))
            rad = np.abs(rng.standard_normal((n, n))) * 10.0 ** rng.uniform(er - 1, er) * (rng.random((n, n)) < 0.5)
            rad[~np.isfinite(rad)] = 1e308
        _sound(_balls(mid, rad), int(rng.choice([30, 53, 128, 256])), seed=t, starts=2, rounds=4, refine=False)


# ------------------------------------------------------------------------------------- _norm2_upper on its own


def _sym_balls(rng, n, scale):
    mid = rng.standard_normal((n, n)) * scale
    mid = (mid + mid.T) / 2
    rad = np.abs(rng.standard_normal((n, n))) ** 3 * scale * rng.uniform(0, 1)
    rad = (rad + rad.T) / 2
    return mid, rad


@pytest.mark.parametrize("seed", range(3))
def test_norm2_upper_on_symmetric_ball_matrices_with_hostile_proposals(seed):
    """``||E||_2 = max(lambda_max, -lambda_min)``: both signs are attacked (``W`` and ``W-``), with the library's own
    Perron proposal, the Perron vector of a different matrix, a reversed one, 1e-300 entries and a 1e-200..1e200
    ramp; scales 1e-300..1e300; precisions 30..256."""
    rng = np.random.default_rng(40 + seed)
    for t in range(4):
        n = int(rng.integers(2, 25))
        scale = 10.0 ** rng.uniform(-300, 300)
        mid, rad = _sym_balls(rng, n, scale)
        if t == 0:
            m1 = mid / scale
            mid = -(m1 @ m1.T) * scale   # definite: the norm is -lambda_min
        E = _balls(mid, rad)
        other = _perron(np.abs(rng.standard_normal((n, n))))
        own = _perron(np.abs(mid) + rad)
        props = [None, own, other, None if own is None else own[::-1].copy(), np.full(n, 1e-300),
                 np.logspace(-200, 200, n)]
        target = max(_oracle(E, seed, 1, starts=2, rounds=5, refine=False),
                     _oracle(E, seed, -1, starts=2, rounds=5, refine=False))
        for prec in (30, 53, 256):
            for v in props:
                with ctx.workprec(prec):
                    b = _norm2_upper(E, v)
                assert b.rad() == 0 and target <= _fq(b.mid()), (seed, t, prec, v)


@pytest.mark.parametrize("seed", range(3))
def test_random_medium_matrices_with_structured_radii(seed):
    """``n`` 20..40, radii: low rank ``u u^T`` with ``u`` over 40 decades, a dense random block, a band; midpoints
    random, definite or indefinite; every precision."""
    rng = np.random.default_rng(70 + seed)
    n = int(rng.integers(20, 41))
    u = 10.0 ** rng.uniform(-20, 20, n)
    mid = rng.standard_normal((n, n)) * 10 ** rng.uniform(-3, 3)
    rads = [np.outer(u, u) * 1e-30, np.abs(rng.standard_normal((n, n))) * 0.1 * (rng.random((n, n)) < 0.2),
            np.abs(np.triu(np.tril(rng.standard_normal((n, n)), 2), -2)) * np.abs(mid).max()]
    for t, rad in enumerate(rads):
        B, W = _sound(_balls(mid, rad), [53, 128, 256][(t + seed) % 3], seed=t, starts=3, rounds=6)
        assert _rel(B, W) >= 0


# ------------------------------------------------------------------------------------------------ teeth


def _teeth_cases():
    rng = np.random.default_rng(99)
    out = []
    for n in (1, 2, 5, 12):
        mid = rng.standard_normal((n, n))
        out.append(_balls(mid, np.abs(rng.standard_normal((n, n))) * 0.3))
    out.append(_balls(np.zeros((12, 12)), _pattern("star", 12)))
    return out


def _caught(cases, prec=128) -> int:
    return sum(_oracle(DF, 0, starts=2, rounds=4) > _bound(DF, prec) for DF in cases)


def test_teeth_a_halved_norm_bound_is_caught(monkeypatch):
    """With ``_norm2_upper`` halved, the oracle proves false bounds (and none without the patch)."""
    cases = _teeth_cases()
    assert _caught(cases) == 0
    orig = LN._norm2_upper
    monkeypatch.setattr(LN, "_norm2_upper", lambda E, v: orig(E, v) * arb(0.5))
    assert _caught(cases) >= 4


def test_teeth_an_underestimate_at_1e_minus_300_is_caught_exactly_but_not_by_an_absolute_tolerance(monkeypatch):
    """At scale 1e-300 a halved error term is a false bound that an absolute 1e-45 tolerance (the ``_covers`` of the
    existing tests) cannot see; the exact oracle sees it."""
    rng = np.random.default_rng(3)
    n = 6
    DF = _balls(rng.standard_normal((n, n)) * 1e-300, np.abs(rng.standard_normal((n, n))) * 1e-300)
    orig = LN._norm2_upper
    monkeypatch.setattr(LN, "_norm2_upper", lambda E, v: orig(E, v) * arb(0.5))
    with ctx.workprec(128):
        bad = lognorm_upper(DF)
    W = _oracle(DF)
    assert W > _fq(bad.mid())
    with mpmath.workdps(60):     # the existing tests' comparison, for contrast
        exact = mpmath.mpf(int(W.p)) / int(W.q)
        assert exact <= mpmath.mpf(bad.str(60, radius=False)) + mpmath.mpf(10) ** -45 * (1 + abs(exact))


def test_teeth_radii_ignored_in_the_residual_are_caught(monkeypatch):
    """``_abs_upper`` that forgets the radii (|mid| only): the oracle proves false bounds."""
    cases = _teeth_cases()
    monkeypatch.setattr(LN, "_abs_upper",
                        lambda M: arb_mat(M.nrows(), M.ncols(), [abs(x.mid()) for x in M.entries()]))
    assert _caught(cases) >= 3


def test_teeth_a_zero_in_the_perron_proposal(monkeypatch):
    """A proposal with a zero where the Perron vector is largest: the real ``_norm2_upper`` refuses it (the bound stays
    true and equals the row-sum one); a Collatz-Wielandt that skips ``v_i = 0`` (a plausible bug) is caught."""
    n = 12
    DF = _balls(np.zeros((n, n)), _pattern("star", n))
    with ctx.workprec(128):
        perron_bound = _fq(lognorm_upper(DF).mid())
    zero = np.r_[0.0, np.full(n - 1, 1 / math.sqrt(n - 1))]
    monkeypatch.setattr(LN, "_perron", lambda R: zero.copy())
    B, W = _sound(DF)
    assert B > perron_bound * 3       # refused: the row sum (11) instead of the Perron bound (sqrt 11)

    def skipping(E, v):  # CW over the rows with v_i > 0 only
        A = LN._abs_upper(E)
        m = E.nrows()
        if v is None:
            return orig(E, v)
        w = (A * arb_mat(m, 1, v.tolist())).entries()
        best = max((w[i] / arb(float(v[i])) for i in range(m) if v[i] > 0), key=lambda a: a.upper())
        return arb(best.upper())
    orig = _norm2_upper
    monkeypatch.setattr(LN, "_norm2_upper", skipping)
    assert _oracle(DF) > _bound(DF)


def test_teeth_collatz_wielandt_needs_the_symmetric_part():
    """Documents why ``lognorm_upper`` symmetrises before ``_norm2_upper``: for the non-symmetric ``[[0, 1], [0, 0]]``
    the Collatz-Wielandt value with ``v = (1, 1e-6)`` is 1e-6 while ``||E||_2 = 1``."""
    with ctx.workprec(128):
        b = _norm2_upper(arb_mat(2, 2, [0, 1, 0, 0]), np.array([1.0, 1e-6]))
    assert float(b) < 1e-5
