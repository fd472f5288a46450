"""Issue 22 (b): the exact ground truth of equiangular tokens.

With full attention, ``P = U = I`` and tokens ``x_i = a e_i + g e_{N+1}`` (``a^2 + g^2 = 1``, so every
``<x_i, x_j> = rho_0 = g^2``), the inner products stay equal and
``rho' = 2 e^{beta rho} (1 - rho) ((N-1) rho + 1) / (e^beta + (N-1) e^{beta rho})`` exactly.  The
crossing time of ``1 - rho = eps`` is ``int_{rho_0}^{1-eps} drho / f(rho)`` (mpmath ``quad`` at 50
digits, :func:`validated_oracle.equiangular_crossing`).  The certified window of the pair diameter
``1 - min cos`` must contain it, with ``T_high / T_exact <= 1.05``; and at sample times the
enclosed Gram entries must contain ``rho(t)`` from mpmath's ``odefun`` on the scalar equation.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from validated_oracle import equiangular_crossing
from verify.validated import Field, Tokens, depth_window, integrate_validated
from verify.validated.metrics import gaps
from theorems.verdict import Status

CASES = [  # (N, beta, (a, g), eps)
    (3, Fraction(1), (Fraction(4, 5), Fraction(3, 5)), Fraction(1, 1000)),
    (4, Fraction(2), (Fraction(12, 13), Fraction(5, 13)), Fraction(1, 100)),
]


def equiangular(N: int, a: Fraction, g: Fraction) -> list[list[Fraction]]:
    return [[a if c == i else (g if c == N else Fraction(0)) for c in range(N + 1)] for i in range(N)]


def _mp(q: Fraction, c):
    return c.mpf(q.numerator) / q.denominator


@pytest.fixture(scope="module", params=CASES, ids=["N3_beta1", "N4_beta2"])
def run(request):
    N, beta, (a, g), eps = request.param
    T = equiangular_crossing(N, beta, g * g, eps)
    horizon = Fraction(int(float(T) * 1.2 * 8) + 1, 8)
    traj = integrate_validated(Field.identity(N + 1, beta), Tokens(equiangular(N, a, g)), horizon)
    return N, beta, g * g, eps, T, traj


def test_window_contains_the_exact_crossing(run):
    N, beta, rho0, eps, T, traj = run
    window = depth_window(traj, "diameter", eps)
    assert window.status is Status.HOLDS, window.reason
    c = mpmath.MPContext()
    c.dps = 50
    low, high = _mp(window.T_low, c), _mp(window.T_high, c)
    assert low <= T <= high
    assert high / T <= 1.05
    assert (high - low) / T < 1e-3  # the window is tight, not merely sound
    assert window.last_gt_step is not None and window.first_le_step == window.last_gt_step + 1


def test_gram_entries_contain_the_exact_rho(run):
    N, beta, rho0, eps, T, traj = run
    c = mpmath.MPContext()
    c.dps = 30
    b = _mp(beta, c)
    f = lambda t, r: 2 * c.exp(b * r) * (1 - r) * ((N - 1) * r + 1) / (c.exp(b) + (N - 1) * c.exp(b * r))  # noqa: E731
    rho = c.odefun(f, 0, _mp(rho0, c))
    checked = 0
    for t in (Fraction(1, 3), Fraction(1), Fraction(2), traj.reached):
        exact = rho(_mp(t, c))
        with ctx.workprec(traj.options.prec):
            D = gaps(traj.enclosure_at(t))
            target = arb(c.nstr(1 - exact, 30)) + arb(0, 1e-26)
            for i in range(N):
                for j in range(i + 1, N):
                    assert D[i][j].overlaps(target), (t, D[i][j], target)
                    assert float(D[i][j].rad()) < 1e-9
                    checked += 1
    assert checked == 4 * N * (N - 1) // 2
