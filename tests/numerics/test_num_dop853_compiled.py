"""The compiled (numba) DOP853 step loop against the pure-numpy reference, and the rule that picks it."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from numerics import DOP853, RunStatus
from numerics import _dop853_compiled as compiled
from numerics.presets import preset
from theorems.errors import InvalidInput, MissingDependency
from theorems.system_json import system_from_dict


def _two_heads(seed: int, N: int = 7, d: int = 4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    heads = [{"P": (0.8 * rng.standard_normal((d, d))).tolist(), "U": rng.standard_normal((d, d)).tolist()}
             for _ in range(2)]
    return system_from_dict({"name": f"two-heads-{seed}", "d": d, "beta": 1, "mask": "causal", "heads": heads,
                             "tokens": X.tolist()})


def _cases(build):
    return {
        "small-full": build(0, 64, 3),
        "causal-U-random": build(1, 9, 4, mask="causal", U="random"),
        "large-beta-stabilised": build(2, 6, 3, scale=90.0),  # beta |P|_F > 200: the max-subtracted softmax
        "batch-own-P": [build(k, 8, 4, U="symmetric", scale=0.6 + 0.2 * k) for k in range(3)],
        "two-heads": _two_heads(3),
    }


@pytest.mark.parametrize("case", ["small-full", "causal-U-random", "large-beta-stabilised", "batch-own-P", "two-heads"])
def test_compiled_takes_the_same_steps_and_agrees_to_1e_12(make_system, case):
    pytest.importorskip("numba", reason="numba not installed: the compiled DOP853 path is not available")
    systems = _cases(make_system)[case]
    ref = DOP853(rtol=1e-10, atol=1e-12, kernel="numpy").integrate(systems, 6.0, samples=7)
    fast = DOP853(rtol=1e-10, atol=1e-12, kernel="compiled").integrate(systems, 6.0, samples=7)
    assert (ref.precision.backend, fast.precision.backend) == ("numpy", "numba")
    assert (fast.stats.steps, fast.stats.rejected, fast.stats.evaluations) == \
        (ref.stats.steps, ref.stats.rejected, ref.stats.evaluations)
    assert ref.states.shape == fast.states.shape and fast.status is RunStatus.SUCCESS
    np.testing.assert_allclose(fast.states, ref.states, rtol=0, atol=1e-12)
    assert np.max(np.abs(ref.final - ref.states[0])) > 1e-3  # the run moved: the comparison checked something
    # the estimate is a difference of two solutions: round-off moves it by ~1e-4 relative
    assert fast.error_estimate == pytest.approx(ref.error_estimate, rel=1e-2)


def test_compiled_workers_and_chunks_do_not_change_results(make_system):
    pytest.importorskip("numba")
    systems = [make_system(10 + k, 6, 3) for k in range(5)]
    one = DOP853(kernel="compiled", workers=1).integrate(systems, 3.0, samples=4)
    two = DOP853(kernel="compiled", workers=2).integrate(systems, 3.0, samples=4, progress=lambda f: None)
    np.testing.assert_array_equal(one.states, two.states)


def test_compiled_max_steps_is_a_status(make_system):
    pytest.importorskip("numba")
    traj = DOP853(max_steps=3, kernel="compiled").integrate(make_system(0, 6, 3), 10.0, samples=11)
    assert traj.status is RunStatus.MAX_STEPS and traj.states.shape[0] == traj.times.shape[0] < 11


def test_time_varying_batches_take_the_numpy_loop():
    pytest.importorskip("numba", reason="numba not installed")
    traj = DOP853(kernel="compiled").integrate(preset("periodic-identity-full", N=4), 1.0, samples=3)
    assert traj.precision.backend == "numpy" and traj.ok


def test_auto_keeps_small_runs_off_numba_and_env_forces_numpy():
    code = ("import sys; from numerics import DOP853; from numerics.presets import preset; "
            "t = DOP853().integrate(preset('constant-identity-full', N=12), 20.0, samples=3); "
            "assert 'numba' not in sys.modules and t.precision.backend == 'numpy', t.precision")
    subprocess.run([sys.executable, "-c", code], check=True)
    from numerics.field import BatchedField

    field = BatchedField.of(preset("constant-identity-full", N=2))
    assert not compiled.use_compiled("numpy", field, 1e9)
    assert compiled.use_compiled("compiled", field, 1.0)


def test_env_switch_forces_the_numpy_loop(monkeypatch, make_system):
    from numerics.field import BatchedField

    field = BatchedField.of(make_system(0, 64, 3))
    monkeypatch.setenv(compiled.ENV, "numpy")
    assert not compiled.use_compiled("auto", field, 1e6)
    monkeypatch.delenv(compiled.ENV)
    assert compiled.use_compiled("auto", field, 1e6) is compiled.numba_installed()


def test_kernel_option_is_validated(monkeypatch, make_system):
    with pytest.raises(InvalidInput, match="kernel"):
        DOP853(kernel="fortran")
    monkeypatch.setattr(compiled, "numba_installed", lambda: False)
    with pytest.raises(MissingDependency, match="pip install numba"):
        DOP853(kernel="compiled").integrate(make_system(0, 4, 3), 1.0)
    assert DOP853().integrate(make_system(0, 4, 3), 1.0, samples=2).precision.backend == "numpy"
