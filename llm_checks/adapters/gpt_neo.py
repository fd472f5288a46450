"""GPT-Neo adapter: separate bias-free Q/K/V projections, output bias, **no** attention scaling
(temperature 1), alternating global / local attention (local layers see only the last
``window_size`` tokens, 256 in GPT-Neo 2.7B), pre-LN blocks, learned absolute positions.
"""
from __future__ import annotations

from ..layout import LayerAttention, ModelLayout, frozen_array
from ._common import as_numpy, base_model, split_in, split_out


def _bias(linear):
    return None if linear.bias is None else as_numpy(linear.bias)


def adapt(model) -> ModelLayout:
    core = base_model(model, "h")
    config = core.config
    D, H = config.hidden_size, config.num_heads
    dh = D // H
    layers = []
    for index, block in enumerate(core.h):
        attn = block.attn.attention
        kind = config.attention_layers[index]
        heads = {}
        for name, linear in (("Q", attn.q_proj), ("K", attn.k_proj), ("V", attn.v_proj)):
            heads[name] = split_in(as_numpy(linear.weight).T, H, dh)  # Linear stores (out, in)
            bias = _bias(linear)
            heads["b" + name] = None if bias is None else bias.reshape(H, dh)
        layers.append(
            LayerAttention(
                index=index,
                W_Q=frozen_array(heads["Q"]),
                W_K=frozen_array(heads["K"]),
                W_V=frozen_array(heads["V"]),
                W_O=frozen_array(split_out(as_numpy(attn.out_proj.weight).T, H, dh)),
                b_Q=frozen_array(heads["bQ"]),
                b_K=frozen_array(heads["bK"]),
                b_V=frozen_array(heads["bV"]),
                b_O=frozen_array(_bias(attn.out_proj)),
                norm_scale=frozen_array(as_numpy(block.ln_1.weight)),
                norm_shift=frozen_array(as_numpy(block.ln_1.bias)),
                temperature=1.0,
                window=int(config.window_size) if kind == "local" else None,
            )
        )
    return ModelLayout(
        architecture="gpt_neo",
        layers=tuple(layers),
        mask="causal",
        norm="layernorm",
        positions="absolute",
        pre_norm=True,
        notes=(
            "no 1/sqrt(d_head) scaling: temperature 1",
            f"attention layers {list(config.attention_layers)}; local window {config.window_size}",
        ),
    )
