"""Benchmark: `verify depth 3.2` (ODE and layer map) at N = 8, 64, 256 beside the simulation it is compared with.

For each N: a full-attention instance (d = 8, two constant rational heads of norm about 1/2,
beta = 1, float tokens clustered around a random direction) is written to a temporary file, and

* **cold**: the wall time of `verify depth 3.2 --no-simulate` in a fresh interpreter (imports, the
  hypotheses, the hemisphere-invariance SOS search for the ODE, the exact chart, arb enclosures and
  the independent re-check);
* **warm**: the same certification as a library call in this process (SOS certificate cached);
* **sim**: the simulation `verify depth` prints as `observed` (DOP853 to 1.05 T for the ODE, eq. 4
  for 1.05 L layers), timed alone.

Goal (issue 11): under 5 s at N = 64.  Run:

    python benchmarks/bench_depth.py [--sizes 8,64,256]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np


def instance(N: int, d: int = 8, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = u + 0.4 * rng.normal(size=(N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    heads = [{"P": [[str(Fraction(int(rng.integers(-4, 5)), 16)) for _ in range(d)] for _ in range(d)],
              "U": "identity"} for _ in range(2)]
    return {"name": f"bench-N{N}", "d": d, "beta": 1, "mask": "full", "heads": heads, "tokens": X.tolist()}


def cold(path: Path, model: str) -> tuple[float, dict]:
    argv = [sys.executable, "-m", "verify.cli.main", "depth", "3.2", "--instance", str(path), "--model", model,
            "--no-simulate", "--format", "json"]
    start = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"verify depth exited {out.returncode}: {out.stderr}")
    return elapsed, json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8,64,256")
    args = parser.parse_args()
    from theorems.system_json import load_system
    from verify._depth import certify_depth
    from verify._depth.evidence import layers_observed, ode_observed

    eps = Fraction(1, 100)
    print(f"{'N':>5} {'model':>7} {'cold CLI s':>11} {'warm s':>8} {'sim s':>8} {'bound':>12} {'observed':>10} {'tight':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for N in (int(s) for s in args.sizes.split(",")):
            path = Path(tmp) / f"bench_{N}.json"
            path.write_text(json.dumps(instance(N)))
            system = load_system(str(path))
            for model in ("ode", "layers"):
                cold_s, payload = cold(path, model)
                tau = Fraction(1) if model == "layers" else None
                start = time.perf_counter()
                report = certify_depth("3.2", system, eps, model, tau, simulate=False)
                warm_s = time.perf_counter() - start
                bound = float(Fraction(report.bound))
                start = time.perf_counter()
                ev = ode_observed(system, float(eps), bound) if model == "ode" else \
                    layers_observed(system, float(eps), 1.0, int(report.bound))
                sim_s = time.perf_counter() - start
                obs = ev["observed"]
                tight = f"{bound / obs:.3g}" if obs else "-"
                print(f"{N:>5} {model:>7} {cold_s:>11.2f} {warm_s:>8.2f} {sim_s:>8.2f} {bound:>12.5g} "
                      f"{obs if obs is not None else 'n/a':>10} {tight:>7}", flush=True)
                assert payload["bound"] == report.bound


if __name__ == "__main__":
    main()
