"""The LLM tasks of ``verify reproduce``: the one place besides the CLI entry that reaches
:mod:`llm_checks`, and only through ``load_model`` and ``measure_consensus`` (no torch import here).

Each task is a module-level function of plain arguments (a sizes dict and the device), so it runs
in this process or on a Dask worker; it returns the raw ``E_first`` curves ``(prompts, layers)``
with provenance, and :mod:`verify.reproduce.llm_parts` turns them into measurements and figures.

* :func:`depth_part`: a random-initialised GPT-2 / GPT-Neo shape (weights drawn once with seed 0:
  periodic in depth), feedforward removed or kept, via ``measure_consensus``.
* :func:`standin_part`: a stand-in model (SmolLM2-135M, all-MiniLM-L6-v2) with ``trained``
  weights, ``random`` weights (drawn once, seed 0: periodic in depth) or ``random-fresh`` weights
  (pass 0 with the seed-0 draw, then the fresh draw of :func:`llm_checks.runner.fresh_block_params`
  with seed ``42 + i`` before pass ``i >= 1``: the paper's non-periodic protocol), through the
  same ``measure_consensus`` as ``verify consensus``: one re-feed loop, so the same seed gives the
  same numbers in both commands.  ``E_first`` is read on each block's raw output.
"""
from __future__ import annotations

import gc
import time
from typing import Any

import numpy as np

LARGE_MODEL = 100_000_000
"""Parameters above which a finished model is collected at once (``gc.collect``): GPT-2 XL and
GPT-Neo 2.7B must not overlap in memory (the quick scale's ~11 GiB peak).  A full collection costs
about half a second in a process that holds the simulations' SymPy objects, so the smoke scale's
small models are left to reference counting."""


def _large(model) -> bool:
    """Whether ``model`` is worth a full collection once the caller has dropped every reference to it."""
    return sum(p.numel() for p in model.parameters()) > LARGE_MODEL


def depth_part(sizes: dict[str, Any], ffn: bool) -> dict[str, Any]:
    if sizes.get("model") is None:
        return {"skipped": sizes.get("skip_reason") or "skipped at this scale"}
    from llm_checks.consensus import ConsensusOptions, measure_consensus
    from llm_checks.loaders import load_model

    started = time.perf_counter()
    loaded = load_model(sizes["model"], random_init=True, seed=0, device=sizes.get("device", "cpu"))
    load_s = time.perf_counter() - started
    options = ConsensusOptions(prompts=sizes["prompts"], tokens=sizes["tokens"], passes=sizes["passes"], ffn=ffn,
                               weights_mode="random", seed=0, batch_size=max(1, min(sizes["prompts"], 10)))
    result = measure_consensus(loaded, options)
    out = {"raw": {"E": np.asarray(result.E["E_first"], dtype=float), "n_blocks": int(result.n_blocks), "ffn": ffn},
           "details": {"model": sizes["model"], "load_s": round(load_s, 2), "measure_s": round(result.seconds, 2)},
           "provenance": dict(result.provenance, options=result.to_json()["options"])}
    large = _large(loaded.model)
    del loaded, result
    if large:
        gc.collect()
    return out


def standin_part(sizes: dict[str, Any], mode: str) -> dict[str, Any]:
    if sizes.get("model") is None:
        return {"skipped": sizes.get("skip_reason") or "skipped at this scale"}
    from llm_checks.consensus import ConsensusOptions, measure_consensus
    from llm_checks.loaders import load_model

    name = sizes["model"]
    started = time.perf_counter()
    loaded = load_model(name, random_init=(mode != "trained"), seed=0, device=sizes.get("device", "cpu"))
    load_s = time.perf_counter() - started
    options = ConsensusOptions(prompts=sizes["prompts"], tokens=sizes["tokens"], passes=sizes["passes"], ffn=True,
                               weights_mode=mode, seed=0, batch_size=max(1, min(sizes["prompts"], 10)))
    result = measure_consensus(loaded, options)  # the one re-feed loop, the one draw of fresh weights
    E = np.asarray(result.E["E_first"], dtype=float)
    prov = dict(result.provenance, weights_mode=mode, options=result.to_json()["options"])
    if mode == "random-fresh":
        prov["fresh_weight_seeds"] = result.to_json()["fresh_weight_seeds"]
    out = {"raw": {"E": E, "n_layers": int(result.n_blocks), "mode": mode,
                   "mask": "causal" if loaded.family == "llama" else "full"},
           "details": {"model": name, mode: {"load_s": round(load_s, 2), "measure_s": round(result.seconds, 2),
                                             "layers": int(E.shape[1])}},
           "provenance": {mode: prov}}
    large = _large(loaded.model)
    del loaded, result
    if large:
        gc.collect()
    return out
