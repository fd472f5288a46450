"""The LLM cases of ``verify reproduce`` (SPEC §5), as plain JSON-able dicts plus PNG bytes.

``verify`` never imports this package; the CLI passes these functions to
:func:`verify.reproduce.runner.reproduce` as extra cases.  Each function takes a plain dict of
sizes (``model``, ``prompts``, ``tokens``, ``passes``, ``skip_reason``; ``model`` ``None`` means
skipped at this scale; optional ``device``, default ``cpu``) and a progress callback
``progress(fraction)``, and returns
``{"measurements": {name: {"mean", "low", "high", "n", "what", "band", "values"}}, "hypotheses":
[...], "figures": [{"name", "png", "caption"}], "details": {...}, "provenance": {...}}``.

* :func:`depth_case`: a random-initialised GPT-2 / GPT-Neo shape measured with
  :func:`llm_checks.consensus.measure_consensus` (weights ``random``: drawn once, periodic in depth),
  with the feedforward removed and kept.
* :func:`trained_vs_random_case`: real weights (SmolLM2-135M, all-MiniLM-L6-v2) against a random
  init of the same config, by re-feeding: embed once; each pass runs the model's layers with the
  model's own (causal for Llama, full for BERT) mask, applies the final normalisation (Llama's
  RMSNorm; BERT is post-LN, so its last layer already ends in a LayerNorm) and feeds the result
  back.  ``E_first`` is recorded on the raw output of every layer (forward hooks).

Bands: ``mean +- t_{0.975, n-1} sd / sqrt(n)`` across prompts.  Models are freed after use so at
most one large model is in memory at a time.
"""
from __future__ import annotations

import gc
import math
import time
from typing import Any

import numpy as np

from numerics.png import figure_png, new_figure
from numerics.progress import Progress

from ._deps import require_torch



def _band(values: np.ndarray, what: str) -> dict[str, Any]:
    from scipy.stats import t as student

    v = np.asarray(values, dtype=float)
    n = int(v.size)
    mean = float(v.mean())
    if n < 2:
        return {"mean": mean, "low": mean, "high": mean, "n": n, "what": what, "band": "single run (no band)", "values": v.tolist()}
    half = float(student.ppf(0.975, n - 1) * v.std(ddof=1) / math.sqrt(n))
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": n, "what": what, "band": "student-t 95%", "values": v.tolist()}


def _curves_png(curves: dict[str, np.ndarray], title: str, block_size: int) -> bytes:
    """``curves[label]``: ``(prompts, layers)`` E_first; mean and band against layer (log y)."""
    from scipy.stats import t as student

    fig = new_figure((7, 4), dpi=90)
    ax = fig.add_subplot(1, 1, 1)
    for label, E in curves.items():
        layers = np.arange(1, E.shape[1] + 1)
        mean = E.mean(axis=0)
        line, = ax.plot(layers, np.maximum(mean, 1e-12), label=label, lw=1.4)
        if E.shape[0] > 1:
            half = student.ppf(0.975, E.shape[0] - 1) * E.std(axis=0, ddof=1) / math.sqrt(E.shape[0])
            ax.fill_between(layers, np.maximum(mean - half, 1e-12), mean + half, color=line.get_color(), alpha=0.25, lw=0)
    depth = max(E.shape[1] for E in curves.values())
    for boundary in range(block_size, depth, block_size):
        ax.axvline(boundary + 0.5, color="0.8", lw=0.6, zorder=0)
    ax.set_yscale("log")
    ax.set_xlabel("layer (blocks across re-fed passes)")
    ax.set_ylabel("E_first (mean over prompts, 95% band)")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return figure_png(fig, bbox_inches="tight")


def _free(*objects) -> None:
    del objects
    gc.collect()


def _skipped(params: dict[str, Any]) -> dict[str, Any] | None:
    if params.get("model") is None:
        return {"measurements": {}, "skipped": params.get("skip_reason") or "skipped at this scale"}
    return None


def depth_case(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """E_first after block 1 and after the last layer, feedforward removed (``noffn``) and kept
    (``ffn``), for a random-initialised model of ``params["model"]``."""
    skipped = _skipped(params)
    if skipped:
        return skipped
    from .consensus import ConsensusOptions, measure_consensus
    from .loaders import load_model

    name = params["model"]
    started = time.perf_counter()
    loaded = load_model(name, random_init=True, seed=0, device=params.get("device", "cpu"))
    load_s = time.perf_counter() - started
    out: dict[str, Any] = {"measurements": {}, "figures": [], "details": {"load_s": round(load_s, 2), "model": name}}
    curves = {}
    n_blocks = 1
    for k, ffn in enumerate((False, True)):
        tag = "ffn" if ffn else "noffn"
        options = ConsensusOptions(prompts=params["prompts"], tokens=params["tokens"], passes=params["passes"], ffn=ffn,
                                   weights_mode="random", seed=0, batch_size=max(1, min(params["prompts"], 10)))
        result = measure_consensus(loaded, options, progress=lambda frac, *_, k=k: progress(0.1 + 0.45 * (k + frac)))
        E = result.E["E_first"]
        n_blocks = result.n_blocks
        label = "feedforward kept" if ffn else "feedforward removed"
        out["measurements"][f"E_first_block1_{tag}"] = _band(E[:, 0], f"{name}, random weights: E_first after block 1 ({label}), across prompts")
        out["measurements"][f"E_first_last_{tag}"] = _band(E[:, -1], f"{name}, random weights: E_first after the last of {E.shape[1]} "
                                                                      f"layers ({label}), across prompts")
        out["details"][tag] = {"seconds": round(result.seconds, 2), "summary": result.summary(), "layers": int(E.shape[1])}
        out["provenance"] = dict(result.provenance, options=result.to_json()["options"])
        curves[label] = E
    out["figures"].append({"name": f"llm-{name}.png", "png": _curves_png(curves, f"{name}, random init: {params['prompts']} prompts x "
                                                                           f"{params['tokens']} tokens, {params['passes']} pass(es)", n_blocks),
                           "caption": f"{name} shape with random weights (drawn once): E_first after every block, mean over "
                                      f"{params['prompts']} random-token prompts of {params['tokens']} tokens with 95% band, "
                                      "feedforward removed and kept."})
    mask = "mask_causal"
    out["hypotheses"] = [
        {"theorem": "4.2", "instances": f"{name} random init (variants: feedforward removed, kept)", "predicate": mask, "holds": 2, "fails": 0, "unknown": 0, "n": 2,
         "example": "causal self-attention (explicit causal mask in the measurement)"},
        {"theorem": "4.2", "instances": f"{name} random init (variants: feedforward removed, kept)", "predicate": "U_identity", "holds": 0, "fails": 2, "unknown": 0, "n": 2,
         "example": "random Gaussian value and output projections are not the identity (by construction; `verify audit` measures the deviation)"},
        {"theorem": "4.2", "instances": f"{name} random init (variants: feedforward removed, kept)", "predicate": "no_feedforward",
         "holds": 1, "fails": 1, "unknown": 0, "n": 2,
         "example": "the continuous model has no feedforward: the 'removed' variant matches it, the 'kept' variant lies outside the theory"},
    ]
    _free(loaded)
    progress(1.0)
    return out


def _refeed_generic(model, family: str, ids, passes: int):
    """``(prompts, passes * layers)`` E_first after every layer (module docstring)."""
    torch = require_torch()
    from .metrics import consensus_metrics

    layers = model.layers if family == "llama" else model.encoder.layer
    record: list = []

    def hook(_module, _inputs, output):
        hidden = output[0] if isinstance(output, tuple) else output
        record.append(consensus_metrics(hidden)["E_first"].cpu().numpy())

    handles = [layer.register_forward_hook(hook) for layer in layers]
    try:
        with torch.no_grad():
            ids_t = torch.as_tensor(ids).to(next(model.parameters()).device)
            if family == "llama":
                x = model.embed_tokens(ids_t)
                for _ in range(passes):
                    x = model(inputs_embeds=x, use_cache=False).last_hidden_state
            else:
                x = model.embeddings(input_ids=ids_t)
                for _ in range(passes):
                    x = model.encoder(x).last_hidden_state
    finally:
        for h in handles:
            h.remove()
    if len(record) != passes * len(layers):
        raise RuntimeError(f"expected {passes * len(layers)} layer outputs, recorded {len(record)}")
    return np.stack(record, axis=1), len(layers)


def trained_vs_random_case(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """E_first at equal depth for the real weights of ``params["model"]`` and a random init of
    its config (seed 0), on the same random-token prompts."""
    skipped = _skipped(params)
    if skipped:
        return skipped
    from .loaders import load_model
    from .prompts import random_prompts

    name = params["model"]
    out: dict[str, Any] = {"measurements": {}, "figures": [], "details": {"model": name}, "provenance": {}}
    curves = {}
    n_layers = 1
    for k, mode in enumerate(("trained", "random")):
        started = time.perf_counter()
        loaded = load_model(name, random_init=(mode == "random"), seed=0, device=params.get("device", "cpu"))
        load_s = time.perf_counter() - started
        progress(0.5 * k + 0.3)
        ids = random_prompts(params["prompts"], params["tokens"], int(loaded.model.config.vocab_size), 0)
        started = time.perf_counter()
        E, n_layers = _refeed_generic(loaded.model, loaded.family, ids, params["passes"])
        out["details"][mode] = {"load_s": round(load_s, 2), "measure_s": round(time.perf_counter() - started, 2), "layers": int(E.shape[1])}
        out["measurements"][f"E_first_block1_{mode}"] = _band(E[:, 0], f"{name}: E_first after layer 1 ({mode} weights), across prompts")
        out["measurements"][f"E_first_last_{mode}"] = _band(E[:, -1], f"{name}: E_first after the last of {E.shape[1]} layers "
                                                                       f"({mode} weights), across prompts")
        prov = loaded.provenance()
        prov["device"] = str(next(loaded.model.parameters()).device)
        out["provenance"][mode] = prov
        curves[f"{mode} weights"] = E
        mask = "causal" if loaded.family == "llama" else "full"
        _free(loaded)
        progress(0.5 * (k + 1))
    out["figures"].append({"name": f"llm-{name}-trained-vs-random.png",
                           "png": _curves_png(curves, f"{name}: trained vs random init, {params['prompts']} prompts x {params['tokens']} "
                                                      f"tokens, {params['passes']} passes", n_layers),
                           "caption": f"{name}: E_first after every layer across {params['passes']} re-fed passes, trained weights vs a random "
                                      f"init of the same config; mean over {params['prompts']} random-token prompts with 95% band."})
    theorem = "4.2" if mask == "causal" else "3.2"
    out["hypotheses"] = [
        {"theorem": theorem, "instances": f"{name} (trained and random)", "predicate": f"mask_{mask}", "holds": 2, "fails": 0, "unknown": 0, "n": 2,
         "example": f"{mask} self-attention"},
        {"theorem": theorem, "instances": f"{name} (trained and random)", "predicate": "U_identity", "holds": 0, "fails": 2, "unknown": 0, "n": 2,
         "example": "learned / random value-output maps are not the identity (`verify audit " + name + "` lists the deviations)"},
    ]
    out["details"]["protocol"] = ("embed once; each pass runs every layer with the model's own mask and final normalisation, "
                                  "then feeds the output back; E_first on each layer's raw output")
    return out
