"""Stored depth certificates re-check in a fresh interpreter that imports no solver, integrator or search;
and float property checks of the layer-map facts the bounds use (evidence for the elementary steps)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from verify._depth.evidence import layer_step

GOLDEN = Path(__file__).resolve().parent / "golden"
SCRIPT = """
import json, sys
from verify.certificate_kinds import certificate_from_json
for path in sys.argv[1:]:
    cert = certificate_from_json(json.load(open(path)))
    assert cert.recheck().holds, path
bad = [m for m in ("cvxpy", "clarabel", "scipy", "numerics", "verify._sos.prove", "verify._depth.certify",
                   "verify._depth.evidence", "verify.certificates") if m in sys.modules]
assert not bad, bad
print("ok", len(sys.argv) - 1)
"""


def test_golden_depth_certificates_recheck_without_the_solver():
    files = sorted(str(p) for p in GOLDEN.glob("*.json"))
    assert len(files) >= 2
    out = subprocess.run([sys.executable, "-c", SCRIPT, *files], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"ok {len(files)}"


def test_layer_map_keeps_the_hemisphere_and_token2_approaches_x1():
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(300):
        N, d, H = int(rng.integers(2, 7)), int(rng.integers(2, 5)), int(rng.integers(1, 3))
        z = rng.normal(size=d)
        z /= np.linalg.norm(z)
        X = rng.normal(size=(N, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        X = np.where((X @ z < 0)[:, None], -X, X)
        P = rng.normal(size=(H, d, d))
        tau = float(rng.choice([0.01, 0.5, 1.0, 10.0, 1000.0]))
        beta = float(rng.choice([0.5, 1.0, 3.0]))
        full = layer_step(X, P, beta, tau, causal=False)
        assert np.min(full @ z) >= np.min(X @ z) - 1e-12  # invariance for every tau
        causal = layer_step(X, P, beta, tau, causal=True)
        assert np.allclose(causal[0], X[0])  # x_1 fixed
        assert causal[1] @ X[0] >= X[1] @ X[0] - 1e-12  # token 2 monotone
        checked += 1
    assert checked == 300
