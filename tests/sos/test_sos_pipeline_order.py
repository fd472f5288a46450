"""Issue 14: the margin SDP first, the plain SDP only as a fallback; the expensive counterexample
search only after a failed proof.  Verdicts are those of the old order (soundness suite, goldens)."""
from __future__ import annotations

from fractions import Fraction as F

import sympy

from theorems.verdict import Status
from verify._sos import prove_nonnegative

x, y = sympy.symbols("x y")


def test_positive_margin_skips_the_plain_sdp():
    result = prove_nonnegative(2 * x**4 + 2 * x**3 * y - x**2 * y**2 + 5 * y**4, [x, y])
    assert result.status is Status.HOLDS and result.certificate.recheck().holds
    assert result.stats.margin is not None and result.stats.margin > 0
    assert result.stats.float_status == "" and result.stats.float_solve_s == 0.0
    assert result.stats.margin_solve_s > 0


def test_no_interior_point_falls_back_to_the_plain_sdp():
    """(x - y)^2 - 1e-10: the margin is not positive, so the plain SDP runs (and nothing is proved)."""
    result = prove_nonnegative((x - y) ** 2 - sympy.Rational(1, 10**10), [x, y], refute=False)
    assert result.status is Status.UNKNOWN and result.certificate is None
    assert result.stats.float_status in ("optimal", "optimal_inaccurate")


def test_grid_witness_still_refutes_before_any_solve():
    result = prove_nonnegative(x - 1, [x], ineqs=[x])
    assert result.status is Status.FAILS and result.verdict.witness["point"] == {"x": "0"}
    assert result.stats.margin_status == "" and result.stats.float_status == ""  # no SDP was solved


def test_local_witness_runs_after_the_failed_proof():
    """Negative only near x = 0.1234567: off the small-rational grid, found by the local search
    that now runs after the proof fails; without refutation the verdict stays unknown."""
    p = (x - sympy.Rational(1234567, 10**7)) ** 2 - sympy.Rational(1, 10**6)
    refuted = prove_nonnegative(p, [x])
    assert refuted.status is Status.FAILS
    point = F(refuted.verdict.witness["point"]["x"])
    assert (point - F(1234567, 10**7)) ** 2 < F(1, 10**6)  # re-checked here, exactly
    assert prove_nonnegative(p, [x], refute=False).status is Status.UNKNOWN
