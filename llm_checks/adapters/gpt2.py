"""GPT-2 adapter: fused ``Conv1D`` ``c_attn`` (columns Q | K | V), Q/K/V biases, pre-LN blocks.

Facts recorded: temperature ``1/sqrt(d_head)`` (times ``1/(layer+1)`` when the config sets
``scale_attn_by_inverse_layer_idx``), causal mask, learned absolute positions (added to the token
embedding once, so the bilinear form of the scores does not depend on position).
"""
from __future__ import annotations

import math

from ..layout import LayerAttention, ModelLayout, frozen_array
from ._common import as_numpy, base_model, split_in, split_out


def adapt(model) -> ModelLayout:
    core = base_model(model, "h")
    config = core.config
    D, H = config.n_embd, config.n_head
    dh = D // H
    layers = []
    for index, block in enumerate(core.h):
        attn = block.attn
        fused = as_numpy(attn.c_attn.weight)  # (D, 3D): x @ W
        bias = as_numpy(attn.c_attn.bias)
        temperature = 1.0 / math.sqrt(dh) if config.scale_attn_weights else 1.0
        if getattr(config, "scale_attn_by_inverse_layer_idx", False):
            temperature /= index + 1
        layers.append(
            LayerAttention(
                index=index,
                W_Q=frozen_array(split_in(fused[:, :D], H, dh)),
                W_K=frozen_array(split_in(fused[:, D : 2 * D], H, dh)),
                W_V=frozen_array(split_in(fused[:, 2 * D :], H, dh)),
                W_O=frozen_array(split_out(as_numpy(attn.c_proj.weight), H, dh)),
                b_Q=frozen_array(bias[:D].reshape(H, dh)),
                b_K=frozen_array(bias[D : 2 * D].reshape(H, dh)),
                b_V=frozen_array(bias[2 * D :].reshape(H, dh)),
                b_O=frozen_array(as_numpy(attn.c_proj.bias)),
                norm_scale=frozen_array(as_numpy(block.ln_1.weight)),
                norm_shift=frozen_array(as_numpy(block.ln_1.bias)),
                temperature=temperature,
            )
        )
    return ModelLayout(
        architecture="gpt2",
        layers=tuple(layers),
        mask="causal",
        norm="layernorm",
        positions="absolute",
        pre_norm=True,
        notes=("fused Conv1D c_attn split into Q | K | V", "Q/K/V and output biases present"),
    )


