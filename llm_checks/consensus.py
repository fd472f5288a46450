"""The paper's consensus measurement (SPEC §5) as one library call.

``measure_consensus(loaded, ConsensusOptions(...))`` draws random-token prompts, re-feeds them
through the model for ``passes`` passes (:mod:`llm_checks.runner`) and records ``E_first``,
``E_first_abs`` and ``E_pair`` (:mod:`llm_checks.metrics`) after every block for every prompt.
The summary is the mean across prompts with a 95% confidence band
``mean +- t_{0.975, n-1} sd / sqrt(n)`` (Student t; undefined, NaN, for one prompt).  The band
describes prompt-to-prompt variation of this model, not uncertainty of a limit.

Weights modes: ``trained`` (the loaded real weights, periodic in depth), ``random`` (the model's
own initialization, drawn once with ``seed``: random but periodic), ``random-fresh`` (random once,
then re-drawn after every pass with seed ``42 + i + 1``).  dtype and device are those of the
loaded model (``load_model(dtype=..., device=...)``), recorded in the result.
"""
from __future__ import annotations

import io
import json
import logging
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

from theorems.errors import InvalidInput

from ._deps import require_torch
from .loaders import LoadedModel, random_model
from .metrics import METRICS, consensus_metrics
from .prompts import random_prompts
from .runner import n_blocks as count_blocks
from .runner import refeed

log = logging.getLogger(__name__)

WEIGHTS_MODES = ("trained", "random", "random-fresh")


@dataclass(frozen=True)
class ConsensusOptions:
    prompts: int = 100
    tokens: int = 200
    passes: int = 1
    ffn: bool = True
    weights_mode: str = "trained"
    seed: int = 0
    batch_size: int = 10

    def __post_init__(self) -> None:
        for name in ("prompts", "tokens", "passes", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidInput(name, "a positive integer", value)
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise InvalidInput("seed", "a non-negative integer", self.seed)
        if self.weights_mode not in WEIGHTS_MODES:
            raise InvalidInput("weights_mode", f"one of {WEIGHTS_MODES}", self.weights_mode)


@dataclass(frozen=True)
class ConsensusResult:
    """``E[name]`` is ``(prompts, passes * n_blocks)``: the metric after every block."""

    options: ConsensusOptions
    provenance: dict
    n_blocks: int
    E: dict = field(repr=False)
    prompt_ids: np.ndarray = field(repr=False)
    seconds: float = 0.0

    def band(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(mean, lower, upper)`` across prompts at every depth (95% Student-t band)."""
        from scipy import stats

        values = self.E[name]
        n = values.shape[0]
        mean = values.mean(axis=0)
        if n < 2:
            nan = np.full_like(mean, np.nan)
            return mean, nan, nan
        half = stats.t.ppf(0.975, n - 1) * values.std(axis=0, ddof=1) / np.sqrt(n)
        return mean, mean - half, mean + half

    def summary(self) -> dict[str, Any]:
        out = {}
        for name in METRICS:
            mean, lo, hi = self.band(name)
            out[name] = {"final_mean": float(mean[-1]), "final_band": [float(lo[-1]), float(hi[-1])],
                         "first_block_mean": float(mean[0]), "min_mean": float(mean.min())}
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "options": asdict(self.options),
            "provenance": self.provenance,
            "n_blocks": self.n_blocks,
            "layers": int(self.E["E_first"].shape[1]),
            "seconds": self.seconds,
            "summary": self.summary(),
            "band": "mean +- t(0.975, n-1) * sd / sqrt(n) across prompts",
            "metrics": {"E_first": "1 - mean_j cos(x_1, x_j)", "E_first_abs": "1 - mean_j |cos(x_1, x_j)|",
                        "E_pair": "1 - mean_ij cos(x_i, x_j)"},
            "states": "raw residual stream after each block (no final LN, no centring)",
            "fresh_weight_seeds": [42 + i + 1 for i in range(self.options.passes - 1)]
            if self.options.weights_mode == "random-fresh" else [],
        }

    def to_npz_bytes(self) -> bytes:
        buffer = io.BytesIO()
        arrays = {name: self.E[name] for name in METRICS}
        for name in METRICS:
            mean, lo, hi = self.band(name)
            arrays.update({f"{name}_mean": mean, f"{name}_lower": lo, f"{name}_upper": hi})
        np.savez_compressed(buffer, prompt_ids=self.prompt_ids, **arrays,
                            meta=np.frombuffer(json.dumps(self.to_json()).encode(), dtype=np.uint8))
        return buffer.getvalue()


def _model_for(loaded: LoadedModel, mode: str, seed: int):
    if mode == "trained":
        if loaded.seed is not None:
            raise InvalidInput("weights_mode", "real weights for 'trained'", f"random init of {loaded.name}",
                               hint="use --weights-mode random or random-fresh, or load real weights")
        return loaded.model, loaded.provenance()
    if loaded.seed is not None:
        return loaded.model, loaded.provenance()
    model = random_model(loaded.model.config, seed, loaded.dtype).to(loaded.model.device)
    prov = dict(loaded.provenance(), source=f"random init (seed {seed}) from the config of {loaded.source}", seed=seed)
    return model, prov


def measure_consensus(
    loaded: LoadedModel,
    options: ConsensusOptions = ConsensusOptions(),
    progress: Callable[[int, int], None] | None = None,
) -> ConsensusResult:
    """Run the protocol; ``progress(done_blocks, total_blocks)`` after every block of every batch."""
    torch = require_torch()
    start = time.perf_counter()
    count_blocks(loaded.model)  # a GPT-2 / GPT-Neo model, before any work
    model, provenance = _model_for(loaded, options.weights_mode, options.seed)
    ids = random_prompts(options.prompts, options.tokens, int(model.config.vocab_size), options.seed)
    n_blocks = count_blocks(model)
    depth = options.passes * n_blocks
    E = {name: np.zeros((options.prompts, depth)) for name in METRICS}
    total = depth * ((options.prompts + options.batch_size - 1) // options.batch_size)
    done = 0
    for lo in range(0, options.prompts, options.batch_size):
        hi = min(lo + options.batch_size, options.prompts)

        def record(k, hidden, lo=lo, hi=hi):
            nonlocal done
            for name, value in consensus_metrics(hidden).items():
                E[name][lo:hi, k] = value.cpu().numpy()
            done += 1
            if progress is not None:
                progress(done, total)

        refeed(model, torch.as_tensor(ids[lo:hi]), passes=options.passes, ffn=options.ffn,
               fresh=options.weights_mode == "random-fresh", on_block=record)
    provenance = dict(provenance, device=str(model.device), dtype=str(next(model.parameters()).dtype).replace("torch.", ""))
    seconds = time.perf_counter() - start
    log.info("consensus measurement: %d prompts x %d blocks in %.1f s", options.prompts, depth, seconds)
    return ConsensusResult(options, provenance, n_blocks, E, ids, seconds)
