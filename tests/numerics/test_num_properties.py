"""Invariants as property tests (Hypothesis): the sphere, the fixed first causal token, and
Theorem 3.2's forward-invariant hemisphere (its margin never decreases)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import DOP853, RK4
from numerics.metrics import hemisphere_margins

from num_helpers import build_system

SETTINGS = settings(max_examples=12, deadline=None)
seeds = st.integers(0, 2**31 - 1)


@SETTINGS
@given(seed=seeds, N=st.integers(2, 9), d=st.integers(2, 5), mask=st.sampled_from(["full", "causal"]),
       U=st.sampled_from(["identity", "symmetric", "random"]), scale=st.floats(0.1, 3.0))
def test_tokens_stay_on_the_sphere(seed, N, d, mask, U, scale):
    s = build_system(seed, N, d, mask=mask, U=U, scale=scale)
    for traj in (DOP853(rtol=1e-8, atol=1e-10).integrate(s, 4.0, samples=5), RK4(dt=0.05).integrate(s, 4.0, samples=5)):
        norms = np.linalg.norm(traj.states, axis=-1)
        assert np.max(np.abs(norms - 1.0)) < 1e-14


@SETTINGS
@given(seed=seeds, N=st.integers(2, 9), d=st.integers(2, 5), scale=st.floats(0.1, 3.0))
def test_first_causal_token_does_not_move(seed, N, d, scale):
    s = build_system(seed, N, d, mask="causal", scale=scale)
    traj = DOP853(rtol=1e-10, atol=1e-12).integrate(s, 5.0, samples=6)
    drift = np.max(np.abs(traj.states[:, 0, 0] - traj.states[0, 0, 0]))
    assert drift < 1e-14
    if N > 1:
        assert np.max(np.abs(traj.states[-1, 0, 1:] - traj.states[0, 0, 1:])) > 1e-6  # the others do move


@SETTINGS
@given(seed=seeds, N=st.integers(2, 8), d=st.integers(2, 4), scale=st.floats(0.1, 2.0),
       heads=st.integers(1, 2))
def test_hemisphere_margin_never_decreases_under_theorem_3_2(seed, N, d, scale, heads):
    from theorems.system_build import simple_system

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    X[:, 0] = np.abs(X[:, 0]) + 0.05
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    P = [(scale * rng.standard_normal((d, d))).tolist() for _ in range(heads)]
    s = simple_system(P, "identity", X.tolist(), beta=1, mask="full")
    traj = DOP853(rtol=1e-11, atol=1e-13).integrate(s, 3.0, samples=16)
    margins = hemisphere_margins(traj.states[:, 0])
    assert margins[0] > 0
    assert np.all(np.diff(margins) >= -1e-7), margins
