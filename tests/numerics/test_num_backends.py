"""The optional torch backend, the import hygiene of numerics, and the evidence record."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from numerics import RK4, simulate_evidence
from numerics.presets import preset
from theorems.errors import MissingDependency


def test_numerics_imports_without_torch():
    code = "import sys, numerics, numerics.torch_backend; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_torch_gives_install_command(monkeypatch):
    from numerics.torch_backend import TorchRK4

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingDependency, match="pip install"):
        TorchRK4().integrate(preset("constant-identity-full", N=3), 1.0)


@pytest.mark.parametrize("name", ["constant-random-causal", "periodic-symmetric-full"])
def test_torch_matches_numpy_rk4(name):
    pytest.importorskip("torch")
    from numerics.torch_backend import TorchRK4

    s = preset(name, N=6)
    a = TorchRK4(dt=0.02).integrate(s, 2.0, samples=3)
    b = RK4(dt=0.02).integrate(s, 2.0, samples=3)
    np.testing.assert_allclose(a.states, b.states, rtol=0, atol=1e-13)
    assert np.max(np.abs(a.final - a.states[0])) > 1e-2
    assert a.precision.kind == "float64" and "torch" in a.precision.backend


def test_simulate_evidence_is_json_and_complete():
    ev = simulate_evidence(preset("constant-identity-full", N=6), t_end=10.0, samples=41)
    text = json.dumps(ev)
    back = json.loads(text)
    for key in ("E_first", "E_pair", "V", "hemisphere_margin"):
        assert key in back["final"]
    assert back["integrator"]["method"] == "dop853" and back["integrator"]["precision"]["kind"] == "float64"
    assert back["fitted_rate"]["rate"] > 0 and back["events"]["open_hemisphere"]["t"] is not None
    assert "not a proof" in back["kind"]
