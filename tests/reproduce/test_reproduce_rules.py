"""The decision rules and the bands, on hand-made numbers (two-sided checks)."""
from __future__ import annotations

import math

import pytest
from scipy.stats import binomtest

from verify.reproduce import CLAIMS, ClaimStatus, Measurement, decide
from verify.reproduce import rules as R
from verify.reproduce.stats import extreme, mean_band, share_band


def m(mean, low, high, n=10):
    return Measurement(mean, low, high, n, "x", "student-t 95%")


@pytest.mark.parametrize("rule, ms, expected", [
    (R.upper_below("a", 1.0), {"a": m(0.5, 0.2, 0.99)}, ClaimStatus.AGREES),
    (R.upper_below("a", 1.0), {"a": m(0.5, 0.2, 1.0)}, ClaimStatus.DISAGREES),
    (R.lower_above("a", 0.0), {"a": m(0.1, 0.0, 0.3)}, ClaimStatus.DISAGREES),
    (R.lower_above("a", 0.0), {"a": m(0.1, 1e-9, 0.3)}, ClaimStatus.AGREES),
    (R.mean_at_least("a", 1.0), {"a": m(1.0, 0.9, 1.0)}, ClaimStatus.AGREES),
    (R.mean_at_least("a", 1.0), {"a": m(0.99, 0.9, 1.0)}, ClaimStatus.DISAGREES),
    (R.greater("a", "b"), {"a": m(2, 1.5, 2.5), "b": m(1, 0.5, 1.4)}, ClaimStatus.AGREES),
    (R.greater("a", "b"), {"a": m(2, 1.3, 2.5), "b": m(1, 0.5, 1.4)}, ClaimStatus.DISAGREES),
    (R.decrease("a", "b", 0.5), {"a": m(1, 0.9, 1.1), "b": m(0.4, 0.3, 0.5)}, ClaimStatus.AGREES),
    (R.decrease("a", "b", 0.5), {"a": m(1, 0.9, 1.1), "b": m(0.6, 0.5, 0.7)}, ClaimStatus.DISAGREES),
    (R.decrease("a", "b", 0.5), {"a": m(1, 0.3, 1.7), "b": m(0.4, 0.1, 0.7)}, ClaimStatus.DISAGREES),
    (R.ordered("a", "b", "c"), {"a": m(3, 2.8, 3.2), "b": m(2, 1.8, 2.2), "c": m(1, 0.8, 1.2)}, ClaimStatus.AGREES),
    (R.ordered("a", "b", "c"), {"a": m(3, 2.8, 3.2), "b": m(2, 1.8, 2.2), "c": m(2.1, 1.9, 2.3)}, ClaimStatus.DISAGREES),
    (R.upper_below("a", 1.0), {}, ClaimStatus.NOT_TESTABLE),
    (R.upper_below("a", 1.0), {"a": Measurement(math.nan, math.nan, math.nan, 3, "x", "student-t 95%")}, ClaimStatus.NOT_TESTABLE),
    (R.all_of(R.upper_below("a", 1.0), R.upper_below("b", 1.0)), {"a": m(2, 1.5, 2.5)}, ClaimStatus.NOT_TESTABLE),
    (R.all_of(R.upper_below("a", 1.0), R.upper_below("b", 1.0)), {"a": m(2, 1.5, 2.5), "b": m(0, 0, 0.5)}, ClaimStatus.DISAGREES),
    (R.all_of(R.upper_below("a", 1.0), R.upper_below("b", 1.0)), {"a": m(0, 0, 0.5), "b": m(0, 0, 0.5)}, ClaimStatus.AGREES),
])
def test_decide(rule, ms, expected):
    status, reason = decide(rule, ms)
    assert status is expected and reason


def test_mean_band_matches_student_t():
    band = mean_band([1.0, 2.0, 3.0, 4.0], "v")
    # t_{0.975, 3} = 3.182446305284263; sd = 1.2909944487358056; half = 2.0542...
    assert band.mean == pytest.approx(2.5, rel=1e-12)
    assert band.high - band.mean == pytest.approx(3.182446305284263 * 1.2909944487358056 / 2, rel=1e-9)
    assert band.mean - band.low == pytest.approx(band.high - band.mean, rel=1e-12)
    single = mean_band([7.0], "v")
    assert single.low == single.mean == single.high == 7.0 and single.n == 1


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (9, 32), (32, 32)])
def test_share_band_is_clopper_pearson(k, n):
    band = share_band(k, n, "s")
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    assert band.mean == pytest.approx(k / n, rel=1e-12, abs=0)
    assert band.low == pytest.approx(ci.low, rel=1e-9, abs=1e-15)
    assert band.high == pytest.approx(ci.high, rel=1e-9, abs=1e-15)


def test_extreme_has_no_band_and_rejects_non_finite():
    e = extreme([1.0, 5.0, -2.0], "x")
    assert (e.mean, e.low, e.high, e.n) == (5.0, 5.0, 5.0, 3)
    assert extreme([1.0, 5.0, -2.0], "x", kind="min").mean == -2.0
    with pytest.raises(ValueError):
        extreme([1.0, math.nan], "x")


def test_every_claim_names_its_source_and_reads_only_its_cases():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids)) >= 18
    for claim in CLAIMS:
        assert claim.source and claim.claim
        for q in R.quantities(claim.rule):
            assert q.split(":", 1)[0] in claim.cases
