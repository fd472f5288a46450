"""Depth by re-feeding (docs/model.md §5), for every architecture of :mod:`llm_checks.stacks`.

``x_0 = embed(ids)`` once; pass ``i`` runs every block (the model's own sub-modules, an explicit
additive mask: causal, with sliding windows where the architecture has them, full for BERT), then
the final norm, and feeds the result back as the next pass's input.  With ``ffn=False`` the MLP
contributes zero and its norm is the identity (the authors' "feedforward removed" variant; for
post-LN BERT see :mod:`llm_checks.stacks`).

Weights: the model's own (``trained`` or random-once; both periodic in depth) or ``fresh`` draws
for every pass after the first: before pass ``p >= 1`` the block parameters are re-drawn with seed
``42 + (p - 1) + 1`` following the architecture's initialization, and used through
``torch.func.functional_call`` so the caller's model is never modified.  Each pass's generator is
seeded on its own, so a run resumed at pass ``p`` draws exactly the weights of an uninterrupted run.
"""
from __future__ import annotations

import math
from typing import Callable

from theorems.errors import InvalidInput

from ._deps import require_torch
from .stacks import FAMILIES, additive_mask, is_norm_module, stack_of  # noqa: F401  (re-exported)

_MLP_PREFIXES = {"gpt2": ("mlp.", "ln_2."), "gpt_neo": ("mlp.", "ln_2."), "bert": ("intermediate.", "output.")}
_LLAMA_MLP = ("mlp.", "post_attention_layernorm.")


def n_blocks(model) -> int:
    """Number of blocks (InvalidInput for an architecture the measurement does not support)."""
    return len(stack_of(model).blocks)


def fresh_seed(pass_index: int) -> int:
    """Seed of the weights of pass ``pass_index >= 1`` in the ``random-fresh`` mode: ``42 + i + 1``
    with ``i = pass_index - 1`` the pass after which they are re-drawn."""
    return 42 + (pass_index - 1) + 1


def fresh_block_params(block, family: str, config, generator, include_mlp: bool = True, round_to=None) -> dict:
    """New parameters for one block following the architecture's init (HF ``_init_weights``):
    weights ``N(0, initializer_range^2)`` (GPT-2 residual projections ``c_proj`` scaled by
    ``1/sqrt(2 n_layer)``), biases 0, norm scales 1 and shifts 0.  Values are drawn in float32 in
    the block's parameter order, then cast to the parameter's dtype (or rounded through
    ``round_to`` and kept in float32, for a float32 reference of a half-precision run).  Every
    parameter is drawn whatever ``include_mlp`` says (the MLP ones are dropped afterwards), so a
    seed fixes the attention weights for both feedforward variants."""
    torch = require_torch()
    std = float(config.initializer_range)
    n_layer = int(getattr(config, "n_layer", 0) or getattr(config, "num_hidden_layers", 1))
    norm_params = set()
    for prefix, module in block.named_modules():
        if is_norm_module(module):
            norm_params |= {f"{prefix}.{n}" if prefix else n for n, _ in module.named_parameters(recurse=False)}
    out = {}
    for name, param in block.named_parameters():
        leaf = name.rsplit(".", 1)[-1]
        if name in norm_params:
            value = torch.ones_like(param) if leaf == "weight" else torch.zeros_like(param)
        elif leaf == "bias":
            value = torch.zeros_like(param)
        else:
            scale = std / math.sqrt(2 * n_layer) if family == "gpt2" and name.endswith("c_proj.weight") else std
            value = torch.empty(param.shape, dtype=torch.float32, device=param.device).normal_(0.0, scale, generator=generator)
            value = value.to(round_to).to(param.dtype) if round_to is not None else value.to(param.dtype)
        out[name] = value
    if not include_mlp:  # drawn above so the generator stream matches include_mlp=True; never evaluated
        prefixes = _MLP_PREFIXES.get(family, _LLAMA_MLP)
        out = {k: v for k, v in out.items() if not k.startswith(prefixes)}
    return out


def refeed(
    model,
    input_ids,
    *,
    passes: int,
    ffn: bool,
    fresh: bool = False,
    on_block: Callable[[int, object], None],
    on_pass_start: Callable[[int], None] | None = None,
    on_pass_end: Callable[[int, object], None] | None = None,
    start_pass: int = 0,
    start_state=None,
    round_fresh_to=None,
) -> None:
    """Run passes ``start_pass..passes-1`` over every block, calling ``on_block(depth, hidden)``
    after each block (``depth`` counts blocks from 0 across passes; ``hidden`` is the residual
    stream ``(B, N, D)``) and ``on_pass_end(p, x_next)`` with the input of pass ``p + 1`` (after
    the final norm): a checkpoint.  ``start_state`` is that input when resuming at ``start_pass``."""
    torch = require_torch()
    if passes < 1:
        raise InvalidInput("passes", "a positive integer", passes)
    if not 0 <= start_pass < passes:
        raise InvalidInput("start_pass", f"a pass in [0, {passes})", start_pass)
    stack = stack_of(model)
    device = stack.device
    ids = input_ids.to(device)
    n = ids.shape[1]
    limit = stack.max_tokens()
    if limit is not None and n > limit:
        raise InvalidInput("tokens", f"at most {limit} tokens (learned positions)", n)
    config = stack.core.config
    depth = start_pass * len(stack.blocks)
    with torch.no_grad():
        if start_state is None:
            if start_pass:
                raise InvalidInput("start_state", "the state of the pass to resume", None)
            x = stack.embed(ids)
        else:
            x = start_state.to(device=device, dtype=stack.dtype)
        ctx = stack.context(x)
        for p in range(start_pass, passes):
            if on_pass_start is not None:
                on_pass_start(p)
            generator = None
            if fresh and p > 0:
                generator = torch.Generator(device=device).manual_seed(fresh_seed(p))
            for k, block in enumerate(stack.blocks):
                params = None
                if generator is not None:
                    params = fresh_block_params(block, stack.family, config, generator, ffn, round_to=round_fresh_to)
                x = stack.run_block(k, x, ctx, ffn, params)
                on_block(depth, x)
                depth += 1
            x = stack.final_norm(x)
            if on_pass_end is not None:
                on_pass_end(p, x)


def embedding_metrics(model, input_ids, anchor="first", center: bool = False) -> dict:
    """The metrics of docs/model.md §4 on ``x_0 = embed(ids)``, before block 1 (the authors record E
    there too): ``{name: (prompts,) float64 numpy array}`` for ``input_ids`` ``(prompts, tokens)``."""
    torch = require_torch()
    from .metrics import consensus_metrics

    stack = stack_of(model)
    with torch.no_grad():
        x = stack.embed(input_ids.to(stack.device))
        return {name: value.cpu().numpy() for name, value in consensus_metrics(x, anchor, center).items()}
