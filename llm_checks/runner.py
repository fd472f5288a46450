"""Depth by re-feeding (SPEC §5), calling the model's own blocks with an explicit mask.

``x_0 = wte(ids) + wpe(positions)`` once; pass ``i`` runs every block, then the final LayerNorm,
and feeds the result back as the next pass's input.  A block is ``x + Attn(LN_1(x))`` followed by
``+ MLP(LN_2(.))`` when the feedforward is kept; with ``ffn=False`` the MLP contributes zero and its
LN is never evaluated (the identity), exactly the authors' "feedforward removed" variant.

Masks are built here, not by transformers: under eager attention in transformers 5 a GPT-2 block
called without a mask attends to every token (not causal).  The additive mask is 0 on allowed
pairs ``j <= i`` (and ``i - j < window`` on GPT-Neo's local layers) and the dtype's most negative
finite value elsewhere.

Weights: the model's own (``trained`` or random-once; both periodic in depth) or ``fresh`` draws
for every pass after the first: after pass ``i`` (0-based) the block parameters are re-drawn with
seed ``42 + i + 1`` following the architecture's initialization scheme, and used through
``torch.func.functional_call`` so the caller's model is never modified.
"""
from __future__ import annotations

import math
from typing import Callable

from theorems.errors import InvalidInput

from ._deps import require_torch

FAMILIES = ("gpt2", "gpt_neo")


def _core(model):
    core = model if hasattr(model, "h") else getattr(model, "base_model", model)
    family = str(core.config.model_type)
    if family not in FAMILIES or not hasattr(core, "h"):
        raise InvalidInput("model", "a GPT-2 or GPT-Neo model for the re-feeding measurement", family,
                           hint="the audit supports more architectures; the measurement follows the paper's two models")
    return core, family


def n_blocks(model) -> int:
    """Number of blocks of a GPT-2 / GPT-Neo model (InvalidInput for other families)."""
    return len(_core(model)[0].h)


def additive_mask(n: int, window: int | None, dtype, device):
    """``(1, 1, n, n)`` additive causal mask (optionally a sliding window of ``window`` tokens)."""
    torch = require_torch()
    i = torch.arange(n, device=device)[:, None]
    j = torch.arange(n, device=device)[None, :]
    allowed = j <= i
    if window is not None:
        allowed &= (i - j) < window
    mask = torch.zeros((n, n), dtype=dtype, device=device)
    mask.masked_fill_(~allowed, torch.finfo(dtype).min)
    return mask[None, None]


def _windows(core, family: str) -> list[int | None]:
    if family == "gpt_neo":
        return [int(core.config.window_size) if kind == "local" else None for kind in core.config.attention_layers]
    return [None] * len(core.h)


def fresh_block_params(block, family: str, config, generator, include_mlp: bool = True) -> dict:
    """New parameters for one block following the architecture's init (HF ``_init_weights``):
    weights ``N(0, initializer_range^2)`` (GPT-2 residual projections ``c_proj`` scaled by
    ``1/sqrt(2 n_layer)``), biases 0, LayerNorm scale 1 and shift 0.  The draw order is the
    block's parameter order and every parameter is drawn whatever ``include_mlp`` says (the
    MLP / ``ln_2`` ones are dropped afterwards), so a seed fixes the attention weights for both
    feedforward variants."""
    torch = require_torch()
    std = float(config.initializer_range)
    out = {}
    for name, param in block.named_parameters():
        leaf = name.rsplit(".", 1)[-1]
        if ".ln_" in f".{name}" or name.startswith("ln_"):
            value = torch.ones_like(param) if leaf == "weight" else torch.zeros_like(param)
        elif leaf == "bias":
            value = torch.zeros_like(param)
        else:
            scale = std / math.sqrt(2 * config.n_layer) if family == "gpt2" and name.endswith("c_proj.weight") else std
            value = torch.empty_like(param).normal_(0.0, scale, generator=generator)
        out[name] = value
    if not include_mlp:  # drawn above so the generator stream matches include_mlp=True; never evaluated
        out = {k: v for k, v in out.items() if not (k.startswith("mlp.") or k.startswith("ln_2."))}
    return out


def _run_block(block, x, mask, ffn: bool, params: dict | None):
    if params is not None:
        return _functional_block(block, x, mask, ffn, params)
    h = block.ln_1(x)
    x = x + block.attn(h, attention_mask=mask)[0]
    if ffn:
        x = x + block.mlp(block.ln_2(x))
    return x


def _functional_block(block, x, mask, ffn, params):
    torch = require_torch()
    call = torch.func.functional_call

    def sub(prefix):
        return {k[len(prefix) + 1 :]: v for k, v in params.items() if k.startswith(prefix + ".")}

    h = call(block.ln_1, sub("ln_1"), (x,))
    x = x + call(block.attn, sub("attn"), (h,), {"attention_mask": mask})[0]
    if ffn:
        x = x + call(block.mlp, sub("mlp"), (call(block.ln_2, sub("ln_2"), (x,)),))
    return x


def refeed(
    model,
    input_ids,
    *,
    passes: int,
    ffn: bool,
    fresh: bool = False,
    on_block: Callable[[int, object], None],
    on_pass_start: Callable[[int], None] | None = None,
) -> None:
    """Run ``passes`` passes over every block, calling ``on_block(depth, hidden)`` after each
    block (``depth`` counts blocks from 0 across passes; ``hidden`` is the residual stream
    ``(B, N, D)``).  ``fresh`` re-draws the block weights after every pass (module docstring)."""
    torch = require_torch()
    if passes < 1:
        raise InvalidInput("passes", "a positive integer", passes)
    core, family = _core(model)
    device = core.wte.weight.device
    dtype = core.wte.weight.dtype
    ids = input_ids.to(device)
    n = ids.shape[1]
    if n > core.config.max_position_embeddings:
        raise InvalidInput("tokens", f"at most {core.config.max_position_embeddings} tokens (learned positions)", n)
    masks = {w: additive_mask(n, w, dtype, device) for w in set(_windows(core, family))}
    windows = _windows(core, family)
    depth = 0
    with torch.no_grad():
        positions = torch.arange(n, device=device)[None, :]
        x = core.wte(ids) + core.wpe(positions)
        for p in range(passes):
            if on_pass_start is not None:
                on_pass_start(p)
            generator = None
            if fresh and p > 0:
                generator = torch.Generator(device=device).manual_seed(42 + (p - 1) + 1)
            for k, block in enumerate(core.h):
                params = fresh_block_params(block, family, core.config, generator, ffn) if generator is not None else None
                x = _run_block(block, x, masks[windows[k]], ffn, params)
                on_block(depth, x)
                depth += 1
            x = core.ln_f(x)
