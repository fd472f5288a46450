"""Soundness of the certified depth bounds over 200 random instances, and a weakened bound caught.

For every instance the simulated settling time / layer (float evidence) must not exceed the
certified bound.  The only slack is in the simulated threshold: ``eps (1 + 1e-9)`` absorbs the
float64 integration error where the bound is exact (``P = 0``, ``N = 2``: the tanh bound is the
solution itself).  The same loop recomputes each bound with the rate doubled by hand (``e_lo``
doubled) and requires that at least one instance exposes it.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verify._depth import bounds as B
from verify._depth.certify import certify_depth

from depth_helpers import random_case

EPS = Fraction(1, 1000)
SLACK = 1e-9
FAMILIES = [("full", "ode", "3.2"), ("causal", "ode", "4.2"), ("full", "layers", "3.2"), ("causal", "layers", "4.2")]
PER_FAMILY = 50


def _settled(times, values, eps):
    above = np.flatnonzero(values > eps)
    if above.size == 0:
        return float(times[0])
    k = int(above[-1]) + 1
    return None if k >= len(times) else float(times[k])


def _weakened(report):
    """The same bound with the rate doubled by hand (the weights' factor e_lo doubled; for the sharp
    3.2 ODE bound, ``a = H r_lo`` doubled through ``r_lo``)."""
    cert = report.certificate
    der = cert.derived
    ch = der["chart"]
    chart = B.Chart(Fraction(ch["Z2"]), Fraction(ch["r_lo"]), Fraction(ch["D2"]))
    e2 = 2 * Fraction(der["e_lo"])
    N = len(cert.tokens)
    if cert.model == "ode":
        doubled = B.Chart(chart.Z2, 2 * chart.r_lo, chart.D2)
        b = B.ode_full_sharp(doubled, cert.H, Fraction(der["e_lo"]), Fraction(der["k"]), cert.eps) \
            if cert.result == "3.2" else B.ode_causal(chart.r_lo, cert.H, N, e2, cert.eps)
        return float(b.value)
    try:
        b = B.layers_full(chart, cert.H, e2, cert.tau, cert.eps) if cert.result == "3.2" else \
            B.layers_causal(chart, cert.H, N, e2, cert.tau, cert.eps)
    except ArithmeticError:  # doubled contraction left (0, 1): the weakened bound is 1 layer
        return 1.0
    return float(b.value)


@pytest.mark.parametrize("mask,model,theorem", FAMILIES)
def test_depth_bounds_are_sound(mask, model, theorem, record_property, capsys):
    rng = np.random.default_rng({"ode": 11, "layers": 23}[model] + (mask == "causal"))
    tight, caught, checked = [], 0, 0
    while checked < PER_FAMILY:
        system, tau = random_case(rng, mask, model)
        report = certify_depth(theorem, system, EPS, model, tau, tight=False)  # the closed form alone (the window: tests/validated)
        if report.certificate is None:  # hemisphere of the random z not proved: not an instance of the claim
            continue
        bound = float(Fraction(report.bound))
        ev = report.evidence
        obs = _settled(ev["times"], ev["values"], float(EPS) * (1 + SLACK))
        assert ev["horizon"] >= bound or obs is not None, "simulation horizon below the bound"
        assert obs is not None and obs <= bound, (theorem, model, report.bound, obs, system.tokens.tolist())
        checked += 1
        if obs > 0:
            tight.append(bound / obs)
        weak = _weakened(report)
        if obs > weak:
            caught += 1
    with capsys.disabled():
        print(f"\n{theorem} {model} ({mask}): {checked} instances, tightness median {np.median(tight):.3g}, "
              f"best {min(tight):.3g}, worst {max(tight):.3g}; rate-doubled bound caught on {caught}")
    record_property("tightness_median", float(np.median(tight)))
    assert checked == PER_FAMILY
    assert caught >= 1, "a bound with the rate doubled was never contradicted: the test has no power"
