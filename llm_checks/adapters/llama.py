"""Llama-style adapter (SmolLM2, Llama, Mistral): RMSNorm (no centring, no shift), grouped-query
attention, rotary position embeddings, temperature ``1/sqrt(d_head)``.

With RoPE the score is ``q_i R(theta (j - i)) k_j``: the bilinear form ``P`` depends on the
relative position, so the layout records ``positions = "rope"``; ``P`` computed from the layout is
the offset-0 form, and ``||P(offset)||_2 <= ||A||_2 ||B||_2`` for every offset because ``R`` is
orthogonal.  Mistral and Qwen2 are read with the same adapter only together with their
sliding-window attention (per-layer ``window``); a config whose windowed layers cannot be read is
refused (:func:`llm_checks.stacks.sliding_windows`).
"""
from __future__ import annotations

from ..layout import LayerAttention, ModelLayout, frozen_array
from ..stacks import sliding_windows
from ._common import as_numpy, base_model, split_in, split_out


def _bias(linear, heads, d_head):
    return None if linear.bias is None else as_numpy(linear.bias).reshape(heads, d_head)


def adapt(model) -> ModelLayout:
    core = base_model(model, "layers")
    config = core.config
    D, H = config.hidden_size, config.num_attention_heads
    H_kv = getattr(config, "num_key_value_heads", None) or H
    dh = getattr(config, "head_dim", None) or D // H
    layers = []
    # Mistral / Qwen2 share Llama's layout; their sliding windows are read here (refused when the
    # config does not say which layers use them), so the mask facts stay true.
    windows = sliding_windows(config, str(config.model_type), len(core.layers))
    for index, block in enumerate(core.layers):
        attn = block.self_attn
        layers.append(
            LayerAttention(
                index=index,
                W_Q=frozen_array(split_in(as_numpy(attn.q_proj.weight).T, H, dh)),
                W_K=frozen_array(split_in(as_numpy(attn.k_proj.weight).T, H_kv, dh)),
                W_V=frozen_array(split_in(as_numpy(attn.v_proj.weight).T, H_kv, dh)),
                W_O=frozen_array(split_out(as_numpy(attn.o_proj.weight).T, H, dh)),
                b_Q=frozen_array(_bias(attn.q_proj, H, dh)),
                b_K=frozen_array(_bias(attn.k_proj, H_kv, dh)),
                b_V=frozen_array(_bias(attn.v_proj, H_kv, dh)),
                b_O=frozen_array(None if attn.o_proj.bias is None else as_numpy(attn.o_proj.bias)),
                norm_scale=frozen_array(as_numpy(block.input_layernorm.weight)),
                norm_shift=None,
                temperature=float(dh) ** -0.5,
                window=windows[index],
            )
        )
    return ModelLayout(
        architecture=str(config.model_type),
        layers=tuple(layers),
        mask="causal",
        norm="rmsnorm",
        positions="rope",
        pre_norm=True,
        notes=(
            f"grouped-query attention: {H} query heads share {H_kv} key/value heads",
            "rotary positions: P depends on the relative position; the audit reports the offset-0 P",
        ),
    )
