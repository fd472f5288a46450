"""Certified late entry (layer map): on random spread tokens that start in no open hemisphere, every
certified ``L`` is an upper bound on the simulated settling layer, and never-entering instances get none."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorems.predicates import hemisphere_verdict
from theorems.verdict import Status
from verify._depth.certify import certify_depth

from depth_helpers import random_spread_case

EPS = Fraction(1, 100)


def test_late_entry_bounds_are_sound():
    rng = np.random.default_rng(5)
    entered, tried = 0, 0
    while entered < 12 and tried < 200:
        system, tau = random_spread_case(rng)
        if hemisphere_verdict(system.tokens, system.tokens_exact).status is not Status.FAILS:
            continue  # only instances that provably start in no open hemisphere
        tried += 1
        report = certify_depth("3.2", system, EPS, "layers", tau, entry_budget=24, tight=False)
        if report.certificate is None:
            assert report.status is Status.UNKNOWN and report.bound is None
            continue
        L0 = report.certificate.derived["L0"]
        assert L0 >= 1  # it did start outside every hemisphere
        assert report.evidence["observed"] is not None and report.evidence["observed"] <= report.bound
        entered += 1
    assert entered >= 5, f"only {entered} late entries certified in {tried} tries"
