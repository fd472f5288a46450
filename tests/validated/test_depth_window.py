"""``verify depth`` (ODE) with the validated window: ``[T_low, T_high]`` holds for all later times.

* Exact ground truth: equiangular tokens (full mask, ``P = U = I``) cross ``1 - rho = eps`` at
  ``T_exact = int drho / f(rho)`` (mpmath, :func:`validated_oracle.equiangular_crossing`); over
  random ``(N, beta, rho_0, eps)``: ``T_low <= T_exact <= T_high`` and ``T_high / T_exact <= 1.05``.
* Late entry (no closed form at ``t = 0``): causal tokens outside the cap of ``x_1`` and full-mask
  tokens in no open hemisphere are certified by the enclosure alone; an independent DOP853 run
  (rtol 1e-13, grid 1e-4) settles inside the window.
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from validated_oracle import equiangular_crossing
from theorems.system_json import system_from_dict
from verify._depth.certify import certify_depth

PYTHAGOREAN = [(Fraction(4, 5), Fraction(3, 5)), (Fraction(12, 13), Fraction(5, 13)), (Fraction(3, 5), Fraction(4, 5)),
               (Fraction(8, 17), Fraction(15, 17)), (Fraction(24, 25), Fraction(7, 25))]


def _equiangular(N: int, beta: int, a: Fraction, g: Fraction) -> dict:
    tokens = [[str(a) if c == i else (str(g) if c == N else 0) for c in range(N + 1)] for i in range(N)]
    return {"d": N + 1, "beta": beta, "mask": "full", "heads": [{"P": "identity", "U": "identity"}], "tokens": tokens}


@pytest.mark.parametrize("seed", range(5))
def test_equiangular_window_contains_the_exact_crossing(seed):
    rng = random.Random(seed)
    N, beta = rng.choice([2, 3, 4]), rng.choice([1, 2])
    a, g = rng.choice(PYTHAGOREAN)
    eps = Fraction(1, rng.choice([50, 100, 1000]))
    report = certify_depth("3.2", system_from_dict(_equiangular(N, beta, a, g)), eps, simulate=False)
    w = report.to_json()["window"]
    assert w["T_high"] is not None and w["T_low"] is not None, w
    T = equiangular_crossing(N, Fraction(beta), g * g, eps)
    c = mpmath.MPContext()
    c.dps = 50
    low, high = (c.mpf(Fraction(w[k]).numerator) / Fraction(w[k]).denominator for k in ("T_low", "T_high"))
    assert low <= T <= high
    assert high / T <= 1.05, (float(high), float(T))
    assert report.status.value == "holds" and Fraction(report.bound) >= Fraction(w["T_high"])  # closed form is looser


def _settling(system, eps: float, t_max: float) -> float:
    from numerics import DOP853
    from verify._depth.evidence import metric

    grid = np.arange(0.0, t_max, 1e-4)[1:]
    traj = DOP853(rtol=1e-13, atol=1e-15).integrate(system, float(grid[-1]), t_eval=grid)
    values = metric(traj.states[:, 0], system.mask)
    return float(traj.times[np.flatnonzero(values > eps)[-1]])


@pytest.mark.parametrize("theorem, tokens", [
    ("4.2", [[1, 0, 0], ["-3/5", "4/5", 0], [0, "3/5", "4/5"], ["-2/3", "1/3", "2/3"]]),
    ("3.2", [[1, 0, 0], ["-3/5", "4/5", 0], ["-3/5", "-4/5", 0], [0, "3/5", "4/5"]]),
])
def test_late_entry_is_certified_by_the_enclosure(theorem, tokens):
    data = {"d": 3, "beta": 1, "mask": "causal" if theorem == "4.2" else "full",
            "heads": [{"P": "identity", "U": "identity"}], "tokens": tokens}
    system = system_from_dict(data)
    report = certify_depth(theorem, system, Fraction(1, 100), simulate=False)
    j = report.to_json()
    assert report.status.value == "holds" and j["bound"] is None and "late entry" in j["explanation"]
    low, high = Fraction(j["window"]["T_low"]), Fraction(j["window"]["T_high"])
    truth = _settling(system, 0.01, float(high) + 1)
    assert float(low) - 1e-4 <= truth <= float(high) + 1e-4


@pytest.mark.parametrize("theorem, mask, tau, seed", [("4.2", "causal", Fraction(1), 0), ("4.2", "causal", Fraction(1, 2), 1),
                                                      ("3.2", "full", Fraction(1), 2), ("3.2", "full", Fraction(1, 2), 3)])
def test_layer_window_is_within_one_layer_of_the_truth(theorem, mask, tau, seed):
    from verify._depth.evidence import layer_step, metric

    rng = random.Random(seed)
    tokens = []
    while len(tokens) < 5:  # rational points of the upper hemisphere x_3 > 0 (inverse stereographic)
        u = [Fraction(rng.randint(-8, 8), 8) for _ in range(2)]
        s = sum(v * v for v in u)
        if s < 1:
            tokens.append([str(2 * v / (1 + s)) for v in u] + [str((1 - s) / (1 + s))])
    P = [[f"{rng.randint(-4, 4)}/8" for _ in range(3)] for _ in range(3)]
    data = {"d": 3, "beta": 1, "mask": mask, "heads": [{"P": P, "U": "identity"}], "tokens": tokens}
    system = system_from_dict(data)
    report = certify_depth(theorem, system, Fraction(1, 100), "layers", tau, simulate=False)
    w = report.to_json()["window"]
    low, high = int(Fraction(w["T_low"])), int(Fraction(w["T_high"]))
    X, values = system.tokens / np.linalg.norm(system.tokens, axis=1, keepdims=True), []
    for _ in range(high + 40):
        values.append(float(metric(X[None], system.mask)[0]))
        X = layer_step(X, system.P_at(0.0), 1.0, float(tau), mask == "causal")
    truth = 1 + max(k for k, v in enumerate(values) if v > 0.01)  # the first layer after the last one above eps
    assert low < truth <= high and high - truth <= 1, (low, truth, high)
