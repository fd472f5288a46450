"""Measurements and figures of the LLM cases, from the raw ``E_first`` curves their tasks return.

The tasks themselves (``verify.consensus`` calls) are :mod:`.llm_tasks`; here only numpy.  A
part's ``raw["E"]`` is ``(prompts, layers)``: ``E_first`` after every layer across the re-fed
passes.  ``details["reached"]`` says what a curve covers (prompts, layers, passes x blocks): every
LLM row of the report names it.

* ``E_first_block1_<v>`` / ``E_first_last_<v>``: after the first and the last layer, across prompts
  (the per-prompt values are stored: the claims' per-prompt rules read them).
* ``E_first_slope_<v>``: per prompt, the least-squares slope of ``E_first`` against the layer index
  over the **last half** of depth, then its mean and band across prompts: a significant downward
  trend is a slope band below 0.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .figures import curves_png
from numerics.spread import METRIC_RANGES

from .stats import UNBOUNDED, median_band
from .tasks import merge


def last_half_slopes(E: np.ndarray) -> np.ndarray:
    """Per prompt (row), the slope of ``E`` against layer over the last half of the columns."""
    E = np.asarray(E, dtype=float)
    start = E.shape[1] // 2
    layers = np.arange(start, E.shape[1], dtype=float)
    if layers.size < 2:
        return np.full(E.shape[0], np.nan)
    return np.polyfit(layers, E[:, start:].T, 1)[0]


def _skipped(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    for p in parts:
        if p.get("skipped"):
            return {"measurements": {}, "skipped": p["skipped"]}
    return None


def reached(E: np.ndarray, n_blocks: int) -> str:
    """What a curve covers: prompts, layers, passes x blocks."""
    return f"{E.shape[0]} prompts, {E.shape[1]} layers ({E.shape[1] // n_blocks} passes x {n_blocks} blocks)"


def _curve_measurements(name: str, tag: str, label: str, E: np.ndarray) -> dict[str, Any]:
    E_range = METRIC_RANGES["E_first"]
    return {
        f"E_first_block1_{tag}": median_band(E[:, 0], f"{name}, {label}: E_first after layer 1, across prompts", E_range),
        f"E_first_last_{tag}": median_band(E[:, -1], f"{name}, {label}: E_first after the last of {E.shape[1]} layers, "
                                                     "across prompts", E_range),
        f"E_first_slope_{tag}": median_band(last_half_slopes(E), f"{name}, {label}: slope of E_first per layer over the last half of "
                                                                f"depth (layers {E.shape[1] // 2 + 1}-{E.shape[1]}), across prompts",
                                            UNBOUNDED),
    }


def depth_finish(scale, parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    skipped = _skipped(parts)
    if skipped:
        return skipped
    out = merge(parts)
    name = parts[0]["details"]["model"]
    curves = {}
    out["provenance"] = {}
    for p in parts:
        fresh = p["raw"].get("mode") == "random-fresh"
        tag, label = ("ffn", "feedforward kept") if p["raw"]["ffn"] else ("noffn", "feedforward removed")
        tag, weights = (tag + "-fresh", "random weights re-drawn every pass") if fresh else (tag, "random weights")
        out["measurements"].update(_curve_measurements(name, tag, f"{weights}, {label}", p["raw"]["E"]))
        out["details"][tag] = {"measure_s": p["details"]["measure_s"], "layers": int(p["raw"]["E"].shape[1])}
        out["provenance"][tag] = p["provenance"]
        curves[f"{label}, re-drawn" if fresh else label] = p["raw"]["E"]
    E = parts[0]["raw"]["E"]
    out["details"] = {k: v for k, v in out["details"].items() if k != "measure_s"}
    out["details"]["reached"] = reached(E, parts[0]["raw"]["n_blocks"])
    out["figures"] = [{"name": f"llm-{name}.png",
                       "png": curves_png(curves, f"{name}, random init: {E.shape[0]} prompts, {E.shape[1]} layers", parts[0]["raw"]["n_blocks"]),
                       "caption": f"{name} shape with random weights (drawn once, and re-drawn every pass where shown): E_first "
                                  f"after every block over {E.shape[1]} layers (re-fed passes), median over {E.shape[0]} random-token "
                                  "prompts with the 10-90% band, feedforward removed and kept."}]
    inst = f"{name} random init ({len(parts)} variants)"
    n, kept = len(parts), sum(1 for p in parts if not p["raw"]["ffn"])
    out["hypotheses"] = [
        {"theorem": "4.2", "instances": inst, "predicate": "mask_causal", "holds": n, "fails": 0, "unknown": 0, "n": n,
         "example": "causal self-attention (explicit causal mask in the measurement)"},
        {"theorem": "4.2", "instances": inst, "predicate": "U_identity", "holds": 0, "fails": n, "unknown": 0, "n": n,
         "example": "random Gaussian value and output projections are not the identity (by construction; `verify audit` measures the deviation)"},
        {"theorem": "4.2", "instances": inst, "predicate": "no_feedforward", "holds": kept, "fails": n - kept, "unknown": 0, "n": n,
         "example": "the continuous model has no feedforward: the 'removed' variant matches it, the 'kept' variant lies outside the theory"},
    ]
    return out


MODE_LABEL = {"trained": "trained weights", "random": "random weights (drawn once: periodic)",
              "random-fresh": "random weights re-drawn every pass (seed 42+i+1: non-periodic)"}


def standin_finish(scale, parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    skipped = _skipped(parts)
    if skipped:
        return skipped
    out = merge(parts)
    name = parts[0]["details"]["model"]
    out["provenance"] = {}
    curves = {}
    for p in parts:
        mode = p["raw"]["mode"]
        out["measurements"].update(_curve_measurements(name, mode, MODE_LABEL[mode], p["raw"]["E"]))
        out["provenance"].update(p["provenance"])
        curves[MODE_LABEL[mode]] = p["raw"]["E"]
    E, mask = parts[0]["raw"]["E"], parts[0]["raw"]["mask"]
    passes = E.shape[1] // parts[0]["raw"]["n_layers"]
    out["details"]["role"] = "stand-in for GPT-2 XL (trained GPT-2 XL weights are not available offline)"
    out["details"]["reached"] = reached(E, parts[0]["raw"]["n_layers"])
    out["details"]["protocol"] = ("embed once; each pass runs every layer with the model's own mask and final normalisation, "
                                  "then feeds the output back; E_first on each layer's raw output")
    out["figures"] = [{"name": f"llm-{name}-trained-vs-random.png",
                       "png": curves_png(curves, f"{name} (stand-in): {E.shape[0]} prompts, {passes} passes", parts[0]["raw"]["n_layers"]),
                       "caption": f"{name} (a stand-in model): E_first after every layer across {passes} re-fed passes, trained weights vs "
                                  f"random weights drawn once (periodic in depth) and re-drawn every pass (non-periodic); median over "
                                  f"{E.shape[0]} random-token prompts with the 10-90% band."}]
    theorem = "4.2" if mask == "causal" else "3.2"
    inst = f"{name} (trained, random, random re-drawn)"
    out["hypotheses"] = [
        {"theorem": theorem, "instances": inst, "predicate": f"mask_{mask}", "holds": len(parts), "fails": 0, "unknown": 0,
         "n": len(parts), "example": f"{mask} self-attention"},
        {"theorem": theorem, "instances": inst, "predicate": "U_identity", "holds": 0, "fails": len(parts), "unknown": 0,
         "n": len(parts), "example": f"learned / random value-output maps are not the identity (`verify audit {name}` lists the deviations)"},
    ]
    return out
