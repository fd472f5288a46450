"""Metrics and events on states with known values."""
from __future__ import annotations

import math

import numpy as np
import pytest

from numerics.metrics import (E_first, E_pair, V_first, first_time, first_time_below, fit_rate, hemisphere_margin)
from theorems.errors import InvalidInput


def _circle(angles):
    return np.stack([np.cos(angles), np.sin(angles)], axis=-1)


def test_values_on_known_configurations():
    X = _circle(np.array([0.0, math.pi / 2, math.pi]))
    assert E_first(X) == pytest.approx(1.0, abs=1e-15)               # cos: 1, 0, -1
    assert E_first(X, "abs") == pytest.approx(1 - 2 / 3, abs=1e-15)  # |cos|: 1, 0, 1
    brute = 1 - np.mean([[np.dot(a, b) for b in X] for a in X])
    assert E_pair(X) == pytest.approx(brute, abs=1e-15)
    assert V_first(X) == pytest.approx(3.0, abs=1e-15)
    same = np.tile([[0.6, 0.8]], (4, 1))
    assert E_first(same) == pytest.approx(0.0, abs=1e-15) and E_pair(same) == pytest.approx(0.0, abs=1e-15)


def test_metrics_broadcast_over_time_and_batch():
    X = np.random.default_rng(0).standard_normal((5, 3, 4, 2))
    assert E_first(X).shape == (5, 3) and E_pair(X).shape == (5, 3) and V_first(X).shape == (5, 3)
    np.testing.assert_allclose(E_first(X)[2, 1], E_first(X[2, 1]), rtol=0, atol=1e-15)


@pytest.mark.parametrize("theta", [0.2, 1.0, 2.5])
def test_hemisphere_margin_of_two_tokens_is_cos_half_angle(theta):
    margin, z = hemisphere_margin(_circle(np.array([0.0, theta])))
    assert margin == pytest.approx(math.cos(theta / 2), abs=1e-8)
    assert np.linalg.norm(z) == pytest.approx(1.0, abs=1e-12)


def test_hemisphere_margin_zero_when_no_open_hemisphere():
    X = np.array([[1.0, 0, 0], [-1.0, 0, 0], [0, 1.0, 0]])
    assert hemisphere_margin(X)[0] == pytest.approx(0.0, abs=1e-9)
    ring = _circle(np.linspace(0, 2 * math.pi, 7)[:-1])
    assert hemisphere_margin(ring)[0] == pytest.approx(0.0, abs=1e-9)


def test_events_and_rate():
    t = np.linspace(0, 10, 101)
    E = 3.0 * np.exp(-0.7 * t)
    fit = fit_rate(t, E)
    assert fit.rate == pytest.approx(0.7, rel=1e-10) and math.exp(fit.intercept) == pytest.approx(3.0, rel=1e-9)
    assert first_time_below(t, E, 1e-2) == pytest.approx(math.log(300) / 0.7, abs=1e-9)
    assert first_time_below(t, E, 1e-9) is None
    assert first_time(t, t > 2.55) == pytest.approx(2.6)
    assert fit_rate(t[:2], E[:2]) is None


def test_zero_token_rejected():
    with pytest.raises(InvalidInput, match="nonzero"):
        E_pair(np.array([[0.0, 0.0], [1.0, 0.0]]))
