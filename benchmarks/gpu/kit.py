"""The paper's LLM protocol and the torch DOP853 batch on one GPU, in one budgeted command.

Run by ``benchmarks/gpu/run.sh`` (which makes the project importable first); by hand::

    python benchmarks/gpu/kit.py --out OUT --device cuda --budget 480
    python benchmarks/gpu/kit.py --out OUT --dry-run          # CPU, tiny shapes: what the test suite runs

What it measures (docs/model.md §5; every run random init, seed 0, fp32, ``E`` on the raw residual
stream after every block, anchor token 1, and on the embeddings before block 1):

1. GPT-2 XL shape: weights ``random`` (drawn once: periodic in depth) and ``random-fresh`` (re-drawn
   every pass, seed 42+i+1), feedforward removed and kept, 100 prompts x 200 random tokens, as many
   passes as the budget allows (at most 1000), all prompts in one batch; and the headline run,
   ``random``, feedforward removed, 1000 passes (48,000 layers) with as many of the 100 prompts as fit.
2. GPT-Neo 2.7B shape: the same four variants.
3. float16 drift: the GPT-2 XL weights rounded to float16, 10 prompts, feedforward removed, against
   float32 arithmetic on the same rounded weights (``compare_float32``).
4. The torch DOP853 batch, 1024 instances of (N = 256, d = 64), full attention, U = I, one shared
   P: torch float64 and float32 on the device for all 1024; numpy DOP853 (CPU) on the first
   ``--numpy-instances`` with its time scaled linearly to 1024 (stated as such); the largest
   difference of the final states on the common instances.

The budget: every phase gets a share of ``--budget`` seconds; before a long run one pass is timed
and the passes are chosen to fit the time left.  Nothing is checkpointed (a one-shot command).

Outputs in ``--out`` (each file under 16 MiB, checked): ``summary.json`` (the plan, every figure,
the environment) and one ``<run>.npz`` (compressed) per run: per layer the mean, median, 10% and 90%
quantiles, min and max across prompts of ``E_first``, ``E_first_abs`` and ``E_pair`` (float32,
``(6, layers)``, rows in :data:`QUANTILES` order), per prompt the metrics on the embeddings
(``<metric>_embed``), after every block of the first pass (``<metric>_pass1``) and after the last
block of every pass (``<metric>_pass_end``, ``(prompts, passes)``).
"""
from __future__ import annotations

import argparse
import copy
import dataclasses
import io
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

QUANTILES = ("mean", "median", "q10", "q90", "min", "max")
MAX_FILE = 16 * 2 ** 20
VARIANTS = (("random", False), ("random-fresh", False), ("random", True), ("random-fresh", True))
FULL = {"models": ("gpt2-xl", "gpt-neo-2.7B"), "prompts": 100, "tokens": 200, "headline_passes": 1000, "max_passes": 1000,
        "drift_prompts": 10, "ode": (1024, 256, 64), "numpy_instances": 64, "t_end": 1.0}
DRY = {"models": ("gpt2-tiny", "gpt-neo-tiny"), "prompts": 3, "tokens": 8, "headline_passes": 20, "max_passes": 3,
       "drift_prompts": 2, "ode": (8, 8, 4), "numpy_instances": 4, "t_end": 0.5}
SHARES = {"gpt2-headline": 0.22, "gpt2": 0.30, "neo": 0.30, "fp16": 0.06, "ode": 0.07}
"""Shares of the budget per phase (the rest, 5%, is margin); a phase that finishes early leaves its time to the next."""


class Clock:
    def __init__(self, budget: float) -> None:
        self.start, self.budget, self.planned = time.perf_counter(), budget, 0.0

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def phase(self, share: float) -> float:
        """Seconds this phase may use: its share plus what earlier phases left."""
        self.planned += share * self.budget
        return max(0.0, self.planned - self.elapsed())


def _sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _measure(loaded, mode, ffn, prompts, tokens, passes, device, dtype_note="float32"):
    from llm_checks.consensus import ConsensusOptions, measure_consensus
    from llm_checks.prompts import random_prompts
    from llm_checks.runner import embedding_metrics
    import torch

    options = ConsensusOptions(prompts=prompts, tokens=tokens, passes=passes, ffn=ffn, weights_mode=mode, seed=0,
                               batch_size=prompts)
    _sync(device)
    result = measure_consensus(loaded, options)
    _sync(device)
    ids = np.stack(list(random_prompts(prompts, tokens, int(loaded.model.config.vocab_size), 0)))
    assert np.array_equal(ids, result.prompt_ids), "the embedding metrics must see the measured prompts"
    embed = embedding_metrics(loaded.model, torch.as_tensor(ids))
    return result, embed


def _compact(result, embed) -> tuple[bytes, dict]:
    """The run's npz (see the module docstring) and its summary figures."""
    arrays, figures = {}, {}
    nb = result.n_blocks
    for name, E in result.E.items():
        with np.errstate(invalid="ignore"):
            q = np.stack([E.mean(0), np.median(E, 0), np.quantile(E, 0.1, 0), np.quantile(E, 0.9, 0), E.min(0), E.max(0)])
        arrays[name] = q.astype(np.float32)
        arrays[f"{name}_embed"] = embed[name].astype(np.float32)
        arrays[f"{name}_pass1"] = E[:, :nb].astype(np.float32)
        arrays[f"{name}_pass_end"] = E[:, nb - 1::nb].astype(np.float32)
        last = E[:, -1]
        figures[name] = {"embed_median": float(np.median(embed[name])), "block1_median": float(np.median(E[:, 0])),
                         "last_median": float(np.median(last)), "last_q10_q90": [float(np.quantile(last, 0.1)),
                                                                                  float(np.quantile(last, 0.9))],
                         "min_median_over_depth": float(np.median(E, 0).min()),
                         "share_last_below": {t: float(np.mean(last < float(t))) for t in ("1e-2", "1e-4", "1e-6")}}
    buffer = io.BytesIO()
    meta = {k: v for k, v in result.to_json(per_prompt=False).items() if k in ("options", "provenance", "n_blocks", "layers")}
    np.savez_compressed(buffer, **arrays, quantile_rows=np.array(QUANTILES), meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))
    return buffer.getvalue(), figures


def _record(out: Path, tag: str, result, embed, extra: dict) -> dict:
    payload, figures = _compact(result, embed)
    if len(payload) >= MAX_FILE:
        raise RuntimeError(f"{tag}.npz would be {len(payload)} bytes, above 16 MiB")
    (out / f"{tag}.npz").write_bytes(payload)
    o = result.options
    return {"run": tag, "model": result.provenance.get("model"), "weights_mode": o.weights_mode, "ffn": o.ffn,
            "prompts": o.prompts, "tokens": o.tokens, "passes": o.passes, "layers": o.passes * result.n_blocks,
            "dtype": result.provenance.get("dtype"), "device": result.provenance.get("device"),
            "seconds": round(result.seconds, 2), "seconds_per_pass": round(result.seconds / o.passes, 4),
            "E": figures, "file": f"{tag}.npz", "bytes": len(payload), **extra}


def _load(name: str, device: str):
    from llm_checks.loaders import load_model

    started = time.perf_counter()
    loaded = load_model(name, random_init=True, seed=0, device=device)
    return loaded, time.perf_counter() - started


def _fit(seconds: float, per_pass: float, cap: int) -> int:
    return int(max(1, min(cap, seconds // max(per_pass, 1e-9))))


def run_model(name, cfg, clock, share, out, device, runs, plan, headline: bool) -> object:
    loaded, load_s = _load(name, device)
    plan[name] = {"load_s": round(load_s, 1)}
    if headline:  # the paper's depth first: one pass timed on every prompt, then the prompts that fit 1000 passes
        allowed = clock.phase(SHARES["gpt2-headline"])
        probe, _ = _measure(loaded, "random", False, cfg["prompts"], cfg["tokens"], 1, device)
        per_prompt_pass = probe.seconds / cfg["prompts"]
        prompts = int(max(1, min(cfg["prompts"], allowed * 0.9 // (cfg["headline_passes"] * per_prompt_pass))))
        plan[name]["headline"] = {"probe_s_one_pass_all_prompts": round(probe.seconds, 3), "prompts": prompts,
                                  "passes": cfg["headline_passes"], "allowed_s": round(allowed, 1)}
        result, embed = _measure(loaded, "random", False, prompts, cfg["tokens"], cfg["headline_passes"], device)
        runs.append(_record(out, f"{name}_random_noffn_{cfg['headline_passes']}passes", result, embed, {"headline": True}))
    allowed = clock.phase(share)
    probes = {}
    for mode, ffn in VARIANTS:  # one pass each, all prompts: the time per pass of every variant
        probes[(mode, ffn)] = _measure(loaded, mode, ffn, cfg["prompts"], cfg["tokens"], 1, device)[0].seconds
    left = max(0.0, allowed - sum(probes.values()))
    per_variant = left * 0.9 / len(VARIANTS)
    plan[name]["variants"] = {}
    for mode, ffn in VARIANTS:
        passes = _fit(per_variant, probes[(mode, ffn)], cfg["max_passes"])
        tag = f"{name}_{mode}_{'ffn' if ffn else 'noffn'}"
        plan[name]["variants"][tag] = {"probe_s_per_pass": round(probes[(mode, ffn)], 3), "passes": passes}
        result, embed = _measure(loaded, mode, ffn, cfg["prompts"], cfg["tokens"], passes, device)
        runs.append(_record(out, tag, result, embed, {}))
    return loaded


def fp16_drift(loaded, cfg, clock, device) -> dict:
    """float16 weights (the float32 draw rounded) against float32 arithmetic on them, feedforward removed."""
    from llm_checks.consensus import ConsensusOptions, measure_consensus

    allowed = clock.phase(SHARES["fp16"])
    half = dataclasses.replace(loaded, model=copy.deepcopy(loaded.model).half(), dtype="float16")
    prompts = cfg["drift_prompts"]
    probe = measure_consensus(half, ConsensusOptions(prompts=prompts, tokens=cfg["tokens"], passes=1, ffn=False,
                                                     weights_mode="random", batch_size=prompts, compare_float32=True))
    passes = _fit(allowed * 0.8, probe.seconds, cfg["max_passes"])
    r = measure_consensus(half, ConsensusOptions(prompts=prompts, tokens=cfg["tokens"], passes=passes, ffn=False,
                                                 weights_mode="random", batch_size=prompts, compare_float32=True))
    drift = r.drift
    del half
    return {"model": loaded.name, "prompts": prompts, "tokens": cfg["tokens"], "passes": passes, "layers": r.E["E_first"].shape[1],
            "seconds": round(r.seconds, 2), "reference": drift["reference"], "max_abs_diff": drift["max_abs_diff"],
            "final_block": drift["final_block"],
            "max_abs_diff_by_pass": {n: [float(max(v[k * r.n_blocks:(k + 1) * r.n_blocks])) for k in range(passes)]
                                     for n, v in drift["max_abs_diff_per_block"].items()}}


def ode_batch(cfg, clock, device) -> dict:
    """torch DOP853 (device) against numpy DOP853 (CPU) on one batch of (N, d) instances, U = I."""
    from numerics import DOP853, TorchDOP853
    from theorems.system_build import simple_system

    clock.phase(SHARES["ode"])
    B, N, d = cfg["ode"]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((B, N, d))
    X /= np.linalg.norm(X, axis=2, keepdims=True)
    base = simple_system((rng.standard_normal((d, d)) / np.sqrt(d)).tolist(), "identity", X[0].tolist(), beta=1)
    systems = [base] + [dataclasses.replace(base, tokens=X[i], name=f"instance {i}") for i in range(1, B)]
    for s in systems[1:]:  # the same heads object: BatchedField's shared-heads path (one P for the whole batch)
        object.__setattr__(s, "heads", base.heads)
    t_end, out = cfg["t_end"], {"instances": B, "N": N, "d": d, "t_end": cfg["t_end"], "P": "one shared random P / sqrt(d)"}

    def timed(integrator, batch):
        started = time.perf_counter()
        traj = integrator.integrate(batch, t_end, samples=2)
        _sync(device)
        return traj, time.perf_counter() - started

    TorchDOP853(rtol=1e-8, atol=1e-10, device=device).integrate(systems[:2], 0.05, samples=2)  # context and kernels
    g64, t64 = timed(TorchDOP853(rtol=1e-8, atol=1e-10, device=device), systems)
    g32, t32 = timed(TorchDOP853(rtol=1e-5, atol=1e-7, dtype="float32", device=device), systems)
    k = min(B, cfg["numpy_instances"])
    cpu, tc = timed(DOP853(rtol=1e-8, atol=1e-10), systems[:k])
    out.update({"torch_float64_s": round(t64, 3), "torch_float64_steps": g64.stats.steps,
                "torch_float32_s": round(t32, 3), "torch_float32_steps": g32.stats.steps,
                "numpy_instances": k, "numpy_s": round(tc, 3), "numpy_steps": cpu.stats.steps,
                "numpy_s_scaled_to_batch": round(tc * B / k, 2),
                "numpy_scaling": "measured on the first numpy_instances, times B / numpy_instances (linear: the field is per instance)",
                "max_diff_float64_vs_numpy": float(np.abs(g64.final[:k] - cpu.final).max()),
                "max_diff_float32_vs_numpy": float(np.abs(g32.final[:k] - cpu.final).max())})
    out["speedup_float64"] = round(out["numpy_s_scaled_to_batch"] / max(t64, 1e-9), 2)
    return out


def environment(device: str) -> dict:
    import torch
    import transformers

    env = {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
           "numpy": np.__version__, "device": device, "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32)}
    if device.startswith("cuda"):
        env.update(gpu=torch.cuda.get_device_name(0), cuda=torch.version.cuda)
    return env


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--budget", type=float, default=480.0, help="seconds for everything (default 480)")
    parser.add_argument("--dry-run", action="store_true", help="tiny shapes on the CPU (the test suite's run)")
    args = parser.parse_args(argv)
    cfg = DRY if args.dry_run else FULL
    device = "cpu" if args.dry_run else args.device
    import torch

    if device.startswith("cuda") and not torch.cuda.is_available():
        sys.stderr.write(f"torch {torch.__version__}: CUDA is not available; use --dry-run on a CPU\n")
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    clock, runs, plan = Clock(args.budget), [], {}
    summary = {"kit": "benchmarks/gpu/kit.py", "dry_run": args.dry_run, "budget_s": args.budget, "config": cfg,
               "environment": environment(device), "plan": plan, "runs": runs}
    phases = {}
    try:
        gpt2 = run_model(cfg["models"][0], cfg, clock, SHARES["gpt2"], out, device, runs, plan, headline=True)
        phases["fp16_drift"] = fp16_drift(gpt2, cfg, clock, device)
        del gpt2
        if device.startswith("cuda"):
            torch.cuda.empty_cache()
        run_model(cfg["models"][1], cfg, clock, SHARES["neo"], out, device, runs, plan, headline=False)
        phases["ode_batch"] = ode_batch(cfg, clock, device)
    except Exception as exc:  # a partial summary is still worth bringing back
        summary["error"] = f"{type(exc).__name__}: {exc}"
    summary.update(phases, seconds=round(clock.elapsed(), 1))
    text = json.dumps(summary, indent=1, default=str)
    (out / "summary.json").write_text(text + "\n")
    sys.stdout.write(json.dumps({"seconds": summary["seconds"], "error": summary.get("error"),
                                 "runs": [(r["run"], r["passes"], r["prompts"], r["E"]["E_first"]["last_median"]) for r in runs]}) + "\n")
    return 1 if "error" in summary else 0


if __name__ == "__main__":
    sys.exit(main())
