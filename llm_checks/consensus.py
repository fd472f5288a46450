"""The paper's consensus measurement (docs/model.md §5) as one library call.

``measure_consensus(loaded, ConsensusOptions(...))`` takes random-token prompts (or given ones),
re-feeds them through the model for ``passes`` passes (:mod:`llm_checks.runner`) and records
``E_first``, ``E_first_abs`` and ``E_pair`` (:mod:`llm_checks.metrics`, with the anchor, centring
and final-norm options of docs/model.md §4) after every block for every prompt.  The summary is the mean
across prompts with a 95% band ``mean +- t_{0.975, n-1} sd / sqrt(n)`` (Student t; NaN for one
prompt).  The band describes prompt-to-prompt variation of this model, not uncertainty of a limit.

Weights modes: ``trained`` (the loaded real weights, periodic in depth), ``random`` (the model's
own initialization, drawn once with ``seed``: random but periodic), ``random-fresh`` (random once,
then re-drawn before every later pass with seed ``42 + i + 1``).

Long runs: ``checkpoint(state)`` is called after every pass of every prompt batch with everything
needed to continue, in the versioned format of :mod:`llm_checks.checkpoint` (which stores it):
``format``, ``version``, ``fingerprint``, ``batch``, ``next_pass``, ``dtype``, the residual stream
``x`` mid-batch and ``segment``: the metric cells ``E`` and ``done`` mask of the pass just measured
(batch rows x blocks of one pass), so each checkpoint costs one pass, whatever the depth.
``resume=state`` is checked against this run (:func:`llm_checks.checkpoint.check_checkpoint`)
before any work, then continues and gives the same numbers as an uninterrupted run, bit for bit
(each pass's state and fresh-weight seed are reproduced exactly).  ``compare_float32`` re-runs the
first batch with float32 arithmetic on the same (rounded) weights and reports the per-block drift
of every metric.
"""
from __future__ import annotations

import copy
import hashlib
import io
import json
import logging
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

from theorems.errors import InvalidInput

from numerics.spread import DESCRIPTION, METRIC_RANGES, Spread, spread
from numerics.support.progress import Progress

from ._deps import require_torch
from .checkpoint import FORMAT, VERSION, RunShape, check_checkpoint
from .loaders import LoadedModel, random_model
from .metrics import METRICS, check_metric_options, consensus_metrics
from .prompts import batches, random_prompts
from .runner import embedding_metrics, fresh_seed, n_blocks as count_blocks, refeed

log = logging.getLogger(__name__)

WEIGHTS_MODES = ("trained", "random", "random-fresh")
DEFINITIONS = {"E_first": "1 - mean_j cos(a, x_j)", "E_first_abs": "1 - mean_j |cos(a, x_j)|", "E_pair": "1 - mean_ij cos(x_i, x_j)"}


@dataclass(frozen=True)
class ConsensusOptions:
    prompts: int = 100
    tokens: int = 200
    passes: int = 1
    ffn: bool = True
    weights_mode: str = "trained"
    seed: int = 0
    batch_size: int = 10
    anchor: str | int = "first"
    center: bool = False
    final_ln: bool = False
    prompts_source: str = "random"
    compare_float32: bool = False

    def __post_init__(self) -> None:
        for name in ("prompts", "tokens", "passes", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidInput(name, "a positive integer", value)
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise InvalidInput("seed", "a non-negative integer", self.seed)
        if self.weights_mode not in WEIGHTS_MODES:
            raise InvalidInput("weights_mode", f"one of {WEIGHTS_MODES}", self.weights_mode)
        object.__setattr__(self, "anchor", check_metric_options(self.anchor, self.center))


@dataclass(frozen=True)
class ConsensusResult:
    """``E[name]`` is ``(prompts, passes * n_blocks)``: the metric after every block."""

    options: ConsensusOptions
    provenance: dict
    n_blocks: int
    E: dict = field(repr=False)
    prompt_ids: np.ndarray = field(repr=False)
    seconds: float = 0.0
    drift: dict | None = None
    run: dict = field(default_factory=dict)
    embedded: dict | None = field(default=None, repr=False)
    """E on the embeddings before block 1, per prompt (the authors record it too); ``None``: not measured."""

    def spread(self, name: str) -> Spread:
        """The one statistic across prompts at every depth: median and 10-90% band, clipped to the
        metric's range (:mod:`numerics.spread`); the text, the JSON and the figure all show it."""
        return spread(self.E[name], METRIC_RANGES[name])

    def band(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(median, low, high)`` across prompts at every depth (:meth:`spread`)."""
        s = self.spread(name)
        return s.median, s.low, s.high

    def summary(self) -> dict[str, Any]:
        out = {}
        for name in METRICS:
            s = self.spread(name)
            last, first = s.at(-1), s.at(0)
            out[name] = {"final_median": last["median"], "final_band": last["band"],
                         "first_block_median": first["median"], "first_block_band": first["band"],
                         "min_median": float(s.median.min())}
            if "raw_min" in last:
                out[name]["final_raw_min"] = last["raw_min"]
        return out

    def render(self) -> str:
        """The console text (:func:`llm_checks.render.render_consensus`)."""
        from .render import render_consensus
        return render_consensus(self)

    def figure(self, ax: Any = None, *, title: str | None = None) -> Any:
        """E across depth: the median and the 10-90% band of every metric (the numbers of :meth:`summary`)."""
        from numerics.support.plot_layers import consensus_curves_figure, consensus_title

        return consensus_curves_figure(self.E, self.n_blocks, title or consensus_title(self.provenance, asdict(self.options)),
                                       ax=ax)

    def to_json(self, per_prompt: bool = True) -> dict[str, Any]:
        """Everything but ``run`` (wall time, resume facts) is identical for a resumed run."""
        o = self.options
        anchor = "token 1" if o.anchor == "first" else ("mean of the tokens" if o.anchor == "mean" else f"token index {o.anchor}")
        metrics = {}
        for name in METRICS:
            metrics[name] = {"definition": DEFINITIONS[name] + ("" if name == "E_pair" else f", a = {anchor}")}
            if per_prompt:
                metrics[name]["per_prompt"] = self.E[name].tolist()
        return {
            "options": asdict(o),
            "provenance": self.provenance,
            "n_blocks": self.n_blocks,
            "layers": int(self.E["E_first"].shape[1]),
            "seconds": self.seconds,
            "summary": self.summary(),
            "band": DESCRIPTION,
            "metrics": metrics,
            "per_prompt_layout": "metrics.NAME.per_prompt[prompt][block], blocks counted across passes",
            "states": ("after each block, " + ("the final norm applied" if o.final_ln else "raw residual stream (no final norm)")
                       + (", mean-centred over the tokens" if o.center else ", not centred")),
            "fresh_weight_seeds": [fresh_seed(p) for p in range(1, o.passes)] if o.weights_mode == "random-fresh" else [],
            "before_block_1": None if self.embedded is None else {
                name: {**spread(self.embedded[name][:, None], METRIC_RANGES[name]).at(0),
                       **({"per_prompt": self.embedded[name].tolist()} if per_prompt else {})} for name in METRICS},
            "float32_drift": self.drift,
            "run": self.run,
        }

    def to_npz_bytes(self) -> bytes:
        buffer = io.BytesIO()
        arrays = {name: self.E[name] for name in METRICS}
        for name in METRICS:
            median, lo, hi = self.band(name)
            arrays.update({f"{name}_median": median, f"{name}_lower": lo, f"{name}_upper": hi})
        meta = json.dumps(self.to_json(per_prompt=False)).encode()
        np.savez_compressed(buffer, prompt_ids=self.prompt_ids, **arrays, meta=np.frombuffer(meta, dtype=np.uint8))
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
    prov = dict(loaded.provenance(), source=f"random init (seed {seed}) from the config of {loaded.source}", seed=seed,
                weights="random init")
    return model, prov


def check_cell_budget(prompts: int, passes: int, loaded: LoadedModel, budget: int) -> None:
    """``prompts x passes x blocks`` within ``budget`` cells (the per-block record held in memory and
    checkpointed); ``InvalidInput`` naming ``passes`` otherwise."""
    blocks = count_blocks(loaded.model)
    if prompts * passes * blocks > budget:
        raise InvalidInput("passes", f"prompts x passes x blocks at most {budget:,} cells (the run's budget: the "
                           "per-block record kept in memory and checkpointed)",
                           f"{prompts} x {passes} x {blocks} = {prompts * passes * blocks:,}",
                           "fewer prompts or passes, or several runs")


def padded_ids(prompts: list[np.ndarray]) -> np.ndarray:
    """``(n, max_len)`` int64 ids, ``-1`` after the end of shorter prompts."""
    width = max(len(p) for p in prompts)
    out = np.full((len(prompts), width), -1, dtype=np.int64)
    for i, p in enumerate(prompts):
        out[i, : len(p)] = p
    return out


def fingerprint(options: ConsensusOptions, provenance: dict, ids: np.ndarray) -> str:
    """What a checkpoint must match to be resumed: options, the weights' identity, the prompts."""
    keep = {k: provenance.get(k) for k in ("model", "family", "source", "seed", "dtype", "device", "weights", "files", "shape")}
    text = json.dumps({"options": asdict(options), "model": keep}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode() + ids.tobytes()).hexdigest()


def measure_consensus(
    loaded: LoadedModel | Any,
    options: ConsensusOptions = ConsensusOptions(),
    progress: Progress | None = None,
    *,
    prompts: list[np.ndarray] | None = None,
    checkpoint: Callable[[dict], None] | None = None,
    resume: dict | None = None,
    on_resume: Callable[[int, int], None] | None = None,
) -> ConsensusResult:
    """Run the protocol; ``progress(fraction)`` (blocks done / all blocks) after every block of every batch.

    ``loaded``: a :class:`LoadedModel` or anything :func:`llm_checks.sources.resolve_model` accepts
    (a ``transformers.PreTrainedModel`` or a TransformerLens model in memory, a name, a path, a hub id).

    ``prompts`` (token-id arrays, lengths >= 2) replace the random prompts; then ``options.prompts``
    must equal their number.  ``checkpoint`` / ``resume``: see the module docstring; a ``resume``
    state that does not fit this run raises :class:`InvalidInput` naming the field, before any work;
    ``on_resume(batch, next_pass)`` is called once it passed.
    """
    torch = require_torch()
    start = time.perf_counter()
    if not isinstance(loaded, LoadedModel):
        from .sources import resolve_model

        loaded = resolve_model(loaded)
    count_blocks(loaded.model)  # a supported architecture, before any work
    model, provenance = _model_for(loaded, options.weights_mode, options.seed)
    provenance = dict(provenance, device=str(next(model.parameters()).device),
                      dtype=str(next(model.parameters()).dtype).replace("torch.", ""))
    if prompts is None:
        prompts = list(random_prompts(options.prompts, options.tokens, int(model.config.vocab_size), options.seed))
    elif len(prompts) != options.prompts:
        raise InvalidInput("prompts", f"{options.prompts} prompts (options.prompts)", len(prompts))
    for p in prompts:
        check_metric_options(options.anchor, options.center, len(p))
    ids = padded_ids(prompts)
    n_blocks = count_blocks(model)
    depth = options.passes * n_blocks
    plan = batches(prompts, options.batch_size)
    key = fingerprint(options, provenance, ids)
    stack_dtype = next(model.parameters()).dtype
    E = {name: np.zeros((options.prompts, depth)) for name in METRICS}
    measured = np.zeros((options.prompts, depth), dtype=bool)
    first_batch, first_pass, state = 0, 0, None
    if resume is not None:
        shape = RunShape(key, str(stack_dtype), options.passes, n_blocks, tuple(plan),
                         tuple(len(prompts[lo]) for lo, _ in plan), int(model.config.hidden_size))
        resume = check_checkpoint(resume, shape)
        for name in METRICS:
            E[name][...] = resume["E"][name]
        measured[...] = resume["done"]
        first_batch, first_pass, state = resume["batch"], resume["next_pass"], resume["x"]
        if on_resume is not None:
            on_resume(first_batch, first_pass)
    total = depth * len(plan)
    done = first_batch * depth + first_pass * n_blocks

    for b in range(first_batch, len(plan)):
        lo, hi = plan[b]
        batch = torch.as_tensor(np.stack(prompts[lo:hi]))

        def record(k, hidden, lo=lo, hi=hi):
            nonlocal done
            for name, value in _metrics(model, hidden, options).items():
                E[name][lo:hi, k] = value.cpu().numpy()
            measured[lo:hi, k] = True
            done += 1
            if progress is not None:
                progress(done / max(1, total))

        def saved(p, x_next, b=b, lo=lo, hi=hi):
            if checkpoint is None:
                return
            last = p + 1 == options.passes
            cols = slice(p * n_blocks, (p + 1) * n_blocks)  # this pass's cells only: O(pass), not O(run)
            segment = {"batch": b, "pass": p, "E": {n: E[n][lo:hi, cols].copy() for n in METRICS},
                       "done": measured[lo:hi, cols].copy()}
            checkpoint({"format": FORMAT, "version": VERSION, "fingerprint": key, "segment": segment,
                        "batch": b + 1 if last else b, "next_pass": 0 if last else p + 1,
                        "x": None if last else _host(x_next), "dtype": str(stack_dtype)})

        start_pass = first_pass if b == first_batch else 0
        start_state = None
        if b == first_batch and state is not None:
            start_state = torch.as_tensor(state).to(stack_dtype)
        refeed(model, batch, passes=options.passes, ffn=options.ffn, fresh=options.weights_mode == "random-fresh",
               on_block=record, on_pass_end=saved, start_pass=start_pass, start_state=start_state)
    drift = _float32_drift(model, prompts[plan[0][0]:plan[0][1]], options, E, plan[0]) if options.compare_float32 else None
    embedded = {name: np.zeros(options.prompts) for name in METRICS}  # E on the embeddings, before block 1
    for lo, hi in plan:
        for name, value in embedding_metrics(model, torch.as_tensor(np.stack(prompts[lo:hi])), options.anchor,
                                             options.center).items():
            embedded[name][lo:hi] = value
    seconds = time.perf_counter() - start
    log.info("consensus measurement: %d prompts x %d blocks in %.1f s", options.prompts, depth, seconds)
    run = {"seconds": seconds, "resumed_at": None if resume is None else {"batch": first_batch, "pass": first_pass}}
    return ConsensusResult(options, provenance, n_blocks, E, ids, seconds, drift, run, embedded)


def _host(x):
    """The state on the CPU, exactly: float32 holds float16 / bfloat16 / float32 values, float64 stays."""
    torch = require_torch()
    return x.to(torch.float64 if x.dtype == torch.float64 else torch.float32).cpu().numpy()


def _metrics(model, hidden, options: ConsensusOptions):
    if options.final_ln:
        from .stacks import stack_of

        hidden = stack_of(model).final_norm(hidden)
    return consensus_metrics(hidden, options.anchor, options.center)


def _float32_drift(model, prompts, options: ConsensusOptions, E: dict, span: tuple[int, int]) -> dict:
    """Per-block ``max_prompts |E_dtype - E_float32|`` on the first batch, same rounded weights."""
    torch = require_torch()
    dtype = next(model.parameters()).dtype
    reference = model if dtype == torch.float32 else copy.deepcopy(model).float()
    lo, hi = span
    ref = {name: np.zeros((hi - lo, E[name].shape[1])) for name in METRICS}

    def record(k, hidden):
        for name, value in _metrics(reference, hidden, options).items():
            ref[name][:, k] = value.cpu().numpy()

    refeed(reference, torch.as_tensor(np.stack(prompts)), passes=options.passes, ffn=options.ffn,
           fresh=options.weights_mode == "random-fresh", on_block=record, round_fresh_to=dtype)
    if reference is not model:
        del reference
    diff = {name: np.abs(E[name][lo:hi] - ref[name]).max(axis=0) for name in METRICS}
    return {"reference": "float32 arithmetic on the same weights (rounded to the run's dtype), first batch",
            "dtype": str(dtype).replace("torch.", ""), "prompts": hi - lo,
            "max_abs_diff_per_block": {n: d.tolist() for n, d in diff.items()},
            "max_abs_diff": {n: float(d.max()) for n, d in diff.items()},
            "final_block": {n: float(d[-1]) for n, d in diff.items()}}
