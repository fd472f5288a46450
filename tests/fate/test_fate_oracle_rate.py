"""The benchmark's stricter oracle check of a moving-consensus fate: the 50-digit trajectory must obey the
certified diameter bound ``Dmax e^{-kappa (t - T)/2}`` at several times, not only collapse by ``10 T``.

The check is evidence, not proof; these tests show that it passes on a certified instance and that it
can fail: a certificate whose bound is ten times too tight is caught although its limit (the diameter
at ``10 T``, below float resolution) looks the same.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from fate_cases import disagreement, moving_bound_ratio, oracle_path, random_problem
from verify._fate import Fate, certify_fate


@pytest.fixture(scope="module")
def report():
    r = certify_fate(random_problem(14, nonsymmetric=True))
    assert r.fate is Fate.CONSENSUS and r.route == "moving-consensus", r.reason
    return r


def test_certified_rate_is_obeyed_by_the_oracle(report):
    ratio = moving_bound_ratio(report, 10.0, 30, 60.0)
    assert 0.0 < ratio <= 1.0


def test_a_bound_ten_times_too_tight_is_caught(report):
    cert = report.certificate
    tight = replace(report, certificate=replace(cert, moving=replace(cert.moving, Dmax=cert.moving.Dmax / 10)))
    assert disagreement(tight, 10.0, 30, 60.0) <= 1e-3  # the limit alone does not tell
    assert moving_bound_ratio(tight, 10.0, 30, 60.0) > 1.0


def test_oracle_path_matches_single_runs():
    p = random_problem(14, nonsymmetric=True)
    a, b = oracle_path(p, [Fraction(1), 2.0], 30)
    assert a.shape == b.shape == (p.N, p.d)
    assert abs(oracle_path(p, [2.0], 30)[0] - b).max() <= 1e-12
