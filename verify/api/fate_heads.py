"""``verify audit MODEL --fate``: the layer x head map of certified fates (dispatch file; the report is
:func:`verify.audit`'s).

This module imports :mod:`llm_checks` inside the call only (listed in ``tests/test_import_graph.py``
with the other dispatch files): :mod:`llm_checks.head_factors` extracts the float32 weights and the
prompt's hidden states; :mod:`verify._fate.head_map` certifies each head from those exact binary
rationals.
"""
from __future__ import annotations

from theorems.errors import InvalidInput

DEFAULT_PROMPT = "The cat sat on the warm mat today."


def audit_fate(model, *, prompt: str | None = None, prompts: str | None = None, max_tokens: int | None = 8,
               weights=None, on_event=None, observe: bool = True, random_init: bool = False, seed: int = 0,
               allow_pickle: bool = False, progress=None, fate_budget: float = 600.0, fate_workers: int = 1):
    """:class:`~verify._fate.head_map.HeadFateMap` of ``model`` (registry name, path or model object, as
    :func:`llm_checks.sources.resolve_model` accepts) for one prompt:
    ``prompt`` (text), or the first line of the text file ``prompts``, or a default sentence; the
    tokenizer's ids cut to ``max_tokens``.  ``observe``: also simulate every head in floats
    (``verify._fate.head_observe``; shown beside the certified fates, never counted as one).
    ``progress(fraction, label)`` is called after each head.  ``fate_budget``: wall-clock seconds for the
    validated enclosures of the heads whose tokens straddle ``ker w`` (:mod:`verify._fate.head_entry`; 0: none);
    ``fate_workers >= 2``: those enclosures on a Dask ``LocalCluster`` of that many processes.
    ``random_init``: random weights from the named config (no tokenizer is used: the prompt is
    ``max_tokens`` random token ids drawn with ``seed``, and ``prompt`` / ``prompts`` are refused)."""
    from llm_checks.head_factors import head_factors, prompt_ids
    from llm_checks.prompts import random_prompts
    from llm_checks.sources import resolve_model

    from verify._fate.head_map import certify_heads

    if prompt is not None and prompts is not None:
        raise InvalidInput("prompt", "either --prompt or --prompts, not both", "both")
    if random_init and (prompt is not None or prompts is not None):
        raise InvalidInput("prompt", "no --prompt / --prompts with --random-init (a random model's prompt is random "
                           "token ids drawn with --seed; a text prompt needs the model's tokenizer)", "a prompt")
    if prompts is not None:
        from pathlib import Path

        lines = [line for line in Path(prompts).read_text().splitlines() if line.strip()]
        if not lines:
            raise InvalidInput("prompts", "a text file with at least one non-empty line", prompts)
        prompt = lines[0]
    text = DEFAULT_PROMPT if prompt is None else prompt
    loaded = resolve_model(model, weights=weights, random_init=random_init, seed=seed, allow_pickle=allow_pickle,
                           on_event=on_event)
    if random_init:
        text = f"random token ids (seed {seed})"
        ids = [int(i) for i in random_prompts(1, max_tokens or 8, int(loaded.model.config.vocab_size), seed)[0]]
        strings = [str(i) for i in ids]
    else:
        ids, strings = prompt_ids(loaded, text, max_tokens)
    factors = head_factors(loaded, ids, strings)
    total = sum(int(layer.V.shape[0]) for layer in factors.layers)
    done = [0]

    share = 0.5 if fate_budget > 0 else 1.0  # with enclosures, the first pass is the first half of the progress

    def on_head(head):
        done[0] += 1
        if progress is not None:
            progress(share * done[0] / total, f"layer {head.layer} head {head.head}: {head.fate}")

    def on_entry(k: int, n: int, head):
        if progress is not None:
            progress(0.5 + 0.5 * k / n, f"enclosure of layer {head.layer} head {head.head}: {head.fate}")

    record = certify_heads(factors.layers, model=factors.model, mask=factors.mask, tokens=strings, observe=observe,
                           on_head=on_head, flow_budget_s=fate_budget, on_entry=on_entry, workers=fate_workers,
                           provenance={**factors.provenance, "prompt": text, "token_ids": list(ids),
                                       "positions": factors.positions, "norm": factors.norm})
    if progress is not None and share < 1:
        progress(1.0, f"{record.certified} of {len(record.heads)} heads certified")
    return record


__all__ = ["DEFAULT_PROMPT", "audit_fate"]
