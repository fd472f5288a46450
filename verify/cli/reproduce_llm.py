"""The LLM tasks of ``verify reproduce``: the one place besides the CLI entry that reaches
:mod:`llm_checks`, and only through its public functions (``load_model``, ``random_model``,
``random_prompts``, ``consensus_metrics``, ``measure_consensus``).  No torch import here: the models
come from :mod:`llm_checks` with gradients off, and token ids become tensors through the model's
own embedding (``weight.new_tensor``).

Each task is a module-level function of plain arguments (a sizes dict and the device), so it runs
in this process or on a Dask worker; it returns the raw ``E_first`` curves ``(prompts, layers)``
with provenance, and :mod:`verify.reproduce.llm_parts` turns them into measurements and figures.

* :func:`depth_part`: a random-initialised GPT-2 / GPT-Neo shape (weights drawn once with seed 0:
  periodic in depth), feedforward removed or kept, via ``measure_consensus``.
* :func:`standin_part`: a stand-in model (SmolLM2-135M, all-MiniLM-L6-v2) with ``trained``
  weights, ``random`` weights (drawn once, seed 0: periodic in depth) or ``random-fresh`` weights
  (pass 0 with the seed-0 draw, then a fresh draw with seed ``42 + i`` for pass ``i >= 1``,
  i.e. ``42 + i + 1`` for the re-draw after pass ``i``: the paper's non-periodic protocol).  Each
  pass runs every layer with the model's own mask (causal for Llama, full for BERT) and final
  normalisation and feeds the output back; ``E_first`` is read on each layer's raw output.  This
  is the reproduce-side re-feed loop (with a re-drawn-weights mode).
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


def _refeed(models, family: str, ids: np.ndarray, passes: int):
    """``(prompts, passes * layers)`` E_first after every layer; pass ``i`` runs ``models[i]``
    (``models`` is a function of the pass index), the embedding is pass 0's."""
    from llm_checks.metrics import consensus_metrics

    record: list = []

    def hook(_module, _inputs, output):
        hidden = output[0] if isinstance(output, tuple) else output
        record.append(consensus_metrics(hidden)["E_first"].cpu().numpy())

    first = models(0)
    embed = first.embed_tokens if family == "llama" else first.embeddings.word_embeddings
    ids_t = embed.weight.new_tensor(ids).long()
    x = first.embed_tokens(ids_t) if family == "llama" else first.embeddings(input_ids=ids_t)
    n_layers = 0
    for p in range(passes):
        model = first if p == 0 else models(p)
        layers = model.layers if family == "llama" else model.encoder.layer
        n_layers = len(layers)
        handles = [layer.register_forward_hook(hook) for layer in layers]
        try:
            x = (model(inputs_embeds=x, use_cache=False).last_hidden_state if family == "llama"
                 else model.encoder(x).last_hidden_state).detach()
        finally:
            for h in handles:
                h.remove()
        if model is not first:
            large = _large(model)
            del model
            if large:
                gc.collect()
    if len(record) != passes * n_layers:
        raise RuntimeError(f"expected {passes * n_layers} layer outputs, recorded {len(record)}")
    return np.stack(record, axis=1), n_layers


def standin_part(sizes: dict[str, Any], mode: str) -> dict[str, Any]:
    if sizes.get("model") is None:
        return {"skipped": sizes.get("skip_reason") or "skipped at this scale"}
    from llm_checks.loaders import load_model, random_model
    from llm_checks.prompts import random_prompts

    name = sizes["model"]
    started = time.perf_counter()
    loaded = load_model(name, random_init=(mode != "trained"), seed=0, device=sizes.get("device", "cpu"))
    load_s = time.perf_counter() - started
    ids = random_prompts(sizes["prompts"], sizes["tokens"], int(loaded.model.config.vocab_size), 0)
    device = next(loaded.model.parameters()).device

    def models(p: int):
        if p == 0 or mode != "random-fresh":
            return loaded.model
        return random_model(loaded.model.config, 42 + p, loaded.dtype).to(device)

    started = time.perf_counter()
    E, n_layers = _refeed(models, loaded.family, ids, sizes["passes"])
    prov = dict(loaded.provenance(), device=str(device), weights_mode=mode)
    if mode == "random-fresh":
        prov["fresh_weight_seeds"] = [42 + p for p in range(1, sizes["passes"])]
    out = {"raw": {"E": np.asarray(E, dtype=float), "n_layers": int(n_layers), "mode": mode,
                   "mask": "causal" if loaded.family == "llama" else "full"},
           "details": {"model": name, mode: {"load_s": round(load_s, 2), "measure_s": round(time.perf_counter() - started, 2),
                                             "layers": int(E.shape[1])}},
           "provenance": {mode: prov}}
    large = _large(loaded.model)
    del loaded
    if large:
        gc.collect()
    return out
