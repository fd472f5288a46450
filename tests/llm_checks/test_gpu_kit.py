"""The GPU kit (benchmarks/gpu/) cannot rot: its CPU dry run (tiny shapes, the same code path as the
H200 run) runs here, and the GPU image's missing packages are not needed by what it runs.

The GPU image has no cvxpy, clarabel, scs or gmpy2 (and no python-flint unless the wheelhouse of
scripts/build_wheelhouse.sh is carried): ``verify consensus`` and ``verify simulate`` must run with
those blocked (``sys.modules[name] = None``), so the default wheelhouse (python-flint, gmpy2,
threadpoolctl, tqdm: 13 MB) is enough.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

ROOT = Path(__file__).resolve().parents[2]
MAX_FILE = 16 * 2 ** 20


def _env() -> dict:
    return dict(os.environ, PYTHON=sys.executable, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def test_the_kit_dry_run_writes_compact_outputs(tmp_path):
    out = tmp_path / "kit"
    done = subprocess.run(["bash", str(ROOT / "benchmarks/gpu/run.sh"), "--dry-run", str(out)], env=_env(),
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["dry_run"] and "error" not in summary
    runs = {r["run"]: r for r in summary["runs"]}
    assert len(runs) == 9  # the headline run, then 4 variants x 2 models
    headline = [r for r in runs.values() if r.get("headline")]
    assert len(headline) == 1 and headline[0]["passes"] == summary["config"]["headline_passes"]
    assert {(r["weights_mode"], r["ffn"]) for r in runs.values()} == {(m, f) for m in ("random", "random-fresh")
                                                                          for f in (True, False)}
    files = sorted(out.iterdir())
    assert all(f.stat().st_size < MAX_FILE for f in files) and len(files) == 10
    for r in runs.values():
        with np.load(out / r["file"]) as data:
            assert data["E_first"].shape == (6, r["layers"]) and data["E_first"].dtype == np.float32
            assert data["E_first_pass_end"].shape == (r["prompts"], r["passes"])
            assert data["E_first_embed"].shape == (r["prompts"],)  # E before block 1, on the embeddings
            median = np.median(data["E_first_pass1"], axis=0)
            np.testing.assert_allclose(data["E_first"][1, :median.size], median, rtol=1e-6, atol=1e-7)
        assert 0 <= r["E"]["E_first"]["embed_median"] <= 2
    drift = summary["fp16_drift"]["max_abs_diff"]["E_first"]
    assert 0 < drift < 0.1  # float16 differs from float32 arithmetic, but not wildly on a few blocks
    ode = summary["ode_batch"]
    assert ode["max_diff_float64_vs_numpy"] < 1e-9 and ode["max_diff_float32_vs_numpy"] < 1e-4
    assert summary["seconds"] < 60


BLOCKED = """
import sys
for name in ("cvxpy", "clarabel", "scs", "gmpy2"):
    sys.modules[name] = None  # absent from the GPU image
from verify.cli.main import main
rc = main(["consensus", "gpt2-tiny", "--random-init", "--prompts", "2", "--tokens", "6", "--passes", "2",
           "--no-progress", "--format", "json"])
rc2 = main(["simulate", "--preset", "constant-identity-full", "--tokens", "6", "--dim", "3", "--samples", "3",
            "--t-end", "1", "--points", "3", "--format", "json"])
loaded = sorted(n for n in ("cvxpy", "clarabel", "scs", "gmpy2") if sys.modules.get(n) is not None)
sys.stderr.write(f"rc {rc} {rc2} loaded {loaded}\\n")
sys.exit(rc or rc2)
"""


def test_consensus_and_simulate_need_none_of_the_missing_packages():
    done = subprocess.run([sys.executable, "-c", BLOCKED], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=240)
    assert done.returncode == 0 and "rc 0 0 loaded []" in done.stderr, done.stderr[-3000:]
