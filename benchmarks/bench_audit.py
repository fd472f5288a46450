"""Benchmark: audit of a random-initialized GPT-2 XL-shaped model (48 layers x 25 heads, D=1600).

Prints the wall time excluding model init (adapter + per-head measurements, then the full audit
with one hemisphere prompt), the peak resident memory, and the per-head cost of the naive dense
approach (form P and U as D x D matrices, SVD / eig) on a few heads, extrapolated to all heads,
as a ratio against the factored measurement.

    python benchmarks/bench_audit.py                 # gpt2-xl, ~7 GiB, one run at a time
    python benchmarks/bench_audit.py --model gpt2-tiny --naive-heads 2   # smoke run
"""
from __future__ import annotations

import argparse
import os
import resource
import threading
import time

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def rss_gib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**30


class PeakRSS:
    """Samples the resident set size every 20 ms while active."""

    def __enter__(self):
        self.peak = rss_gib()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, rss_gib())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_gib())


def naive_head(layout, k: int, h: int) -> dict:
    """The dense D x D way: P, U, U - I, U - U^T, P_{k+1} - P_k with full SVD / eig."""
    from llm_checks import factors as F

    f0 = F.layer_factors(layout.layers[k])
    f1 = F.layer_factors(layout.layers[(k + 1) % layout.n_layers])
    P, U = F.P_dense(f0, h), F.U_dense(f0, h)
    D = U.shape[0]
    eig = np.linalg.eigvals(U)
    return {
        "p": np.linalg.norm(P, 2),
        "P_step": np.linalg.norm(F.P_dense(f1, h) - P, 2),
        "U_norm": np.linalg.norm(U, 2),
        "U_dist_identity_2": np.linalg.norm(U - np.eye(D), 2),
        "U_skew_share": np.linalg.norm(U - U.T) / (2 * np.linalg.norm(U)),
        "U_top": eig.real.max(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gpt2-xl")
    parser.add_argument("--naive-heads", type=int, default=3, help="heads timed with the dense approach")
    args = parser.parse_args()

    from llm_checks.adapters import adapt
    from llm_checks.audit import audit
    from llm_checks.loaders import load_model
    from llm_checks.measure import blas_single_thread, measure
    from llm_checks.prompts import random_prompts

    t0 = time.perf_counter()
    loaded = load_model(args.model, random_init=True, seed=0)
    init_s = time.perf_counter() - t0
    base = rss_gib()
    print(f"model {args.model}: init {init_s:.1f} s (excluded), RSS after init {base:.2f} GiB")

    with PeakRSS() as mem:
        t = time.perf_counter()
        layout = adapt(loaded.model)
        m = measure(layout)
        measure_s = time.perf_counter() - t
    heads = m.heads["p"].size
    print(f"measurement of all {layout.n_layers} x {layout.n_heads} = {heads} heads: {measure_s:.1f} s wall "
          f"(peak RSS {mem.peak:.2f} GiB, +{mem.peak - base:.2f} GiB over the model)")

    with PeakRSS() as mem2:
        t = time.perf_counter()
        report = audit(loaded, prompts=random_prompts(1, 32, loaded.model.config.vocab_size, 0))
        audit_s = time.perf_counter() - t
    print(f"full audit (3 theorems, hemisphere on 1 prompt x 32 tokens at {layout.n_layers + 1} depths): "
          f"{audit_s:.1f} s wall (peak RSS {mem2.peak:.2f} GiB); verdict {report.status.value}")

    rng = np.random.default_rng(0)
    picks = [(int(rng.integers(layout.n_layers)), int(rng.integers(layout.n_heads))) for _ in range(args.naive_heads)]
    with blas_single_thread():
        t = time.perf_counter()
        worst_rel = 0.0
        for k, h in picks:
            dense = naive_head(layout, k, h)
            for name, value in dense.items():
                fast = m.heads[name][k, h]
                worst_rel = max(worst_rel, abs(fast - value) / max(abs(value), 1e-300))
        naive_s = (time.perf_counter() - t) / len(picks)
    print(f"naive dense D x D per head: {naive_s:.2f} s -> {naive_s * heads:.0f} s extrapolated to {heads} heads; "
          f"ratio naive/factored = {naive_s * heads / measure_s:.0f}x; max relative difference on {len(picks)} heads "
          f"{worst_rel:.1e}")
    print(f"process peak RSS (ru_maxrss, includes init): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


if __name__ == "__main__":
    main()
