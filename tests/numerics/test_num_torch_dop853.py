"""Batched DOP853 on torch against the numpy DOP853 (CPU), and ``verify simulate --backend torch``."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from numerics import DOP853, RunStatus
from numerics.presets import preset
from theorems.errors import InvalidInput, MissingDependency
from verify.cli.main import main

NO_TORCH = "torch not installed (the llm extra): the torch DOP853 backend is optional"


def _cases(build):
    return {
        "small-full": build(0, 16, 3),
        "batch-causal-U-random": [build(k, 8, 4, mask="causal", U="random", scale=0.7 + 0.3 * k) for k in range(3)],
        "stabilised": build(2, 6, 3, scale=90.0),
        "periodic": preset("periodic-symmetric-full", N=6),
        "piecewise-breakpoints": preset("piecewise-random-causal", N=5),
    }


@pytest.mark.parametrize("case", ["small-full", "batch-causal-U-random", "stabilised", "periodic", "piecewise-breakpoints"])
def test_torch_dop853_matches_numpy_dop853_on_cpu(make_system, case):
    pytest.importorskip("torch", reason=NO_TORCH)
    from numerics import TorchDOP853

    systems = _cases(make_system)[case]
    ref = DOP853(rtol=1e-9, atol=1e-11, kernel="numpy").integrate(systems, 5.0, samples=6)
    got = TorchDOP853(rtol=1e-9, atol=1e-11, device="cpu").integrate(systems, 5.0, samples=6)
    assert got.status is RunStatus.SUCCESS and got.states.shape == ref.states.shape
    assert (got.stats.steps, got.stats.rejected) == (ref.stats.steps, ref.stats.rejected)
    np.testing.assert_allclose(got.states, ref.states, rtol=0, atol=1e-9)
    np.testing.assert_allclose(got.times, ref.times, rtol=0, atol=0)
    assert np.max(np.abs(ref.final - ref.states[0])) > 1e-3
    norms = np.linalg.norm(got.states, axis=-1)
    np.testing.assert_allclose(norms, 1.0, rtol=0, atol=1e-14)  # the sphere projection
    assert "torch" in got.precision.backend and got.precision.kind == "float64"


def test_torch_dop853_float32_is_close_and_says_so(make_system):
    pytest.importorskip("torch", reason=NO_TORCH)
    from numerics import TorchDOP853

    s = make_system(4, 10, 3)
    ref = DOP853(rtol=1e-10, atol=1e-12).integrate(s, 4.0, samples=3)
    got = TorchDOP853(rtol=1e-5, atol=1e-7, dtype="float32", device="cpu").integrate(s, 4.0, samples=3)
    assert got.precision.kind == "float32" and got.precision.bits == 24
    err = np.max(np.abs(got.final - ref.final))
    assert 1e-9 < err < 1e-4


def test_torch_dop853_max_steps_and_validation(make_system):
    pytest.importorskip("torch", reason=NO_TORCH)
    from numerics import TorchDOP853

    traj = TorchDOP853(max_steps=3, device="cpu").integrate(make_system(0, 6, 3), 10.0, samples=11)
    assert traj.status is RunStatus.MAX_STEPS and traj.states.shape[0] == traj.times.shape[0] < 11
    with pytest.raises(InvalidInput, match="rtol"):
        TorchDOP853(rtol=1e-8, dtype="float32")
    with pytest.raises(InvalidInput, match="dtype"):
        TorchDOP853(dtype="float16")
    if not __import__("torch").cuda.is_available():
        with pytest.raises(InvalidInput, match="CUDA is not available"):
            TorchDOP853(device="cuda").integrate(make_system(0, 4, 3), 1.0)


def test_missing_torch_gives_install_command(monkeypatch):
    from numerics import TorchDOP853

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingDependency, match="pip install"):
        TorchDOP853().integrate(preset("constant-identity-full", N=3), 1.0)


def test_cli_backend_torch_on_cpu(capsys):
    pytest.importorskip("torch", reason=NO_TORCH)
    import json

    code = main(["simulate", "--preset", "constant-identity-full", "--t-end", "4", "--samples", "3",
                 "--points", "5", "--backend", "torch", "--device", "cpu", "--format", "json"])
    assert code == 0
    integ = json.loads(capsys.readouterr().out)["integrator"]
    assert integ["method"] == "torch-dop853" and "on cpu" in integ["precision"]["backend"]


def test_cli_device_cuda_without_cuda_is_exit_2(capsys):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here: the refusal cannot be observed")
    code = main(["simulate", "--preset", "constant-identity-full", "--t-end", "1", "--backend", "torch",
                 "--device", "cuda"])
    assert code == 2 and "CUDA is not available" in capsys.readouterr().err


def test_cli_device_needs_torch_backend(capsys):
    assert main(["simulate", "--preset", "constant-identity-full", "--t-end", "1", "--device", "cpu"]) == 2
    assert "--backend torch" in capsys.readouterr().err
