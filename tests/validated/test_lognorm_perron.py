"""The Collatz-Wielandt part of the logarithmic-norm bound (verify.validated.lognorm): ``||E||_2`` of every symmetric
matrix in a ball matrix is bounded by ``max_i (|Err| v)_i / v_i`` for any positive float ``v``.  Checked against a
50-digit oracle on the vertices that attack it (the sign pattern of the top eigenvector), with proposals that are
bad on purpose (tiny, huge, zero, negative, NaN entries), and on radius patterns where it is much tighter than the
largest row sum (a star: row sum ``n - 1``, spectral radius ``sqrt(n - 1)``)."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, arb_mat, ctx

from verify.validated.lognorm import _norm2_upper, _perron, lognorm_upper


def _balls(mid: np.ndarray, rad: np.ndarray) -> arb_mat:
    n, m = mid.shape
    return arb_mat(n, m, [arb(float(a), float(r)) for a, r in zip(mid.ravel(), rad.ravel())])


def _eigs(M) -> list:
    """Eigenvalues of the symmetric part of ``M`` (exact float entries) at 50 digits."""
    with mpmath.workdps(50):
        A = mpmath.matrix([[mpmath.mpf(Fraction(float(x)).numerator) / Fraction(float(x)).denominator for x in row]
                           for row in M])
        return list(mpmath.eigsy((A + A.T) / 2)[0])


def _covers(bound: arb, exact) -> bool:
    with mpmath.workdps(60):
        return exact <= mpmath.mpf(bound.str(60, radius=False)) + mpmath.mpf(10) ** -45 * (1 + abs(exact))


def _attacks(mid: np.ndarray, rad: np.ndarray, rng, rounds: int = 6):
    """Symmetric vertices ``mid + rad * S`` (``S`` a sign matrix): random ones, then the sign pattern of the top
    eigenvector of the last one (which maximises ``x^T J x`` for that ``x``), repeated."""
    n = mid.shape[0]
    out = []
    for _ in range(4):
        S = np.sign(rng.standard_normal((n, n)))
        S = np.triu(S) + np.triu(S, 1).T
        out.append(mid + rad * S)
    J = out[-1]
    for _ in range(rounds):
        w, V = np.linalg.eigh((J + J.T) / 2)
        for x in (V[:, -1], V[:, 0]):
            J = mid + rad * np.sign(np.outer(x, x))
            out.append(J)
    return out


@pytest.mark.parametrize("n", [6, 25, 60])
def test_a_star_of_radii_is_bounded_by_its_spectral_radius_not_its_row_sum(n):
    """Radius 1 on row and column 0, 0 elsewhere: ``||rad||_inf = n - 1``, ``rho(rad) = sqrt(n - 1)``."""
    rng = np.random.default_rng(n)
    mid = rng.standard_normal((n, n))
    mid = (mid + mid.T) / 2
    rad = np.zeros((n, n))
    rad[0, 1:] = rad[1:, 0] = 1.0
    with ctx.workprec(128):
        bound = lognorm_upper(_balls(mid, rad))
    lam = float(np.linalg.eigvalsh(mid).max())
    assert float(bound) <= lam + np.sqrt(n - 1) * (1 + 1e-6) + 1e-9
    if n > 6:
        assert float(bound) < lam + (n - 1) / 2                    # the row sum bound would be lam + n - 1
    for J in _attacks(mid, rad, rng):
        assert _covers(bound, max(_eigs(J)))


@pytest.mark.parametrize("seed", range(5))
def test_random_ball_matrices_are_never_underestimated_at_their_worst_vertices(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(3, 30))
    mid = rng.standard_normal((n, n)) * 10 ** rng.uniform(-2, 2)
    rad = np.abs(rng.standard_normal((n, n))) ** 3 * 10 ** rng.uniform(-6, 0) * np.abs(mid).max()
    rad = (rad + rad.T) / 2
    with ctx.workprec(128):
        bound = lognorm_upper(_balls(mid, rad))
    for J in _attacks((mid + mid.T) / 2, rad, rng):
        assert _covers(bound, max(_eigs(J)))


BAD_V = {
    "tiny": lambda n: np.full(n, 1e-300),
    "huge ratios": lambda n: np.logspace(-200, 200, n),
    "zero entry": lambda n: np.r_[0.0, np.ones(n - 1)],
    "negative entry": lambda n: np.r_[-1.0, np.ones(n - 1)],
    "nan": lambda n: np.r_[np.nan, np.ones(n - 1)],
    "wrong length": lambda n: np.ones(n + 1),
    "random": lambda n: np.random.default_rng(n).uniform(1e-3, 1, n),
}


@pytest.mark.parametrize("name", sorted(BAD_V))
def test_any_vector_proposal_gives_a_true_bound_on_the_two_norm(name):
    """``_norm2_upper`` bounds ``||E||_2 = max |eigenvalue|`` of every symmetric ``E`` in the balls, whatever ``v``:
    a positive one by Collatz-Wielandt, any other is not used (the row sums decide)."""
    rng = np.random.default_rng(7)
    n = 12
    mid = rng.standard_normal((n, n))
    mid = (mid + mid.T) / 2
    rad = np.abs(rng.standard_normal((n, n))) * 0.1
    rad = (rad + rad.T) / 2
    with ctx.workprec(128):
        E = _balls(mid, rad)
        bound = _norm2_upper(E, BAD_V[name](n))
        rows = _norm2_upper(E, None)
    assert bound.rad() == 0 and bound <= rows
    for J in _attacks(mid, rad, rng):
        assert _covers(bound, max(abs(e) for e in _eigs(J)))
    if name in ("zero entry", "negative entry", "nan", "wrong length"):
        assert bound == rows


def test_the_perron_proposal_is_positive_or_absent():
    assert _perron(np.zeros((3, 3))) is None
    assert _perron(np.full((2, 2), np.inf)) is None
    v = _perron(np.array([[0.0, 1.0], [1.0, 0.0]]))
    assert v is not None and np.all(v > 0) and np.allclose(v, [1, 1])
    v = _perron(np.diag([1.0, 0.0, 0.0]))
    assert v is not None and np.all(v >= 1e-6)
