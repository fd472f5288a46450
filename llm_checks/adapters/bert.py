"""BERT adapter: post-LN encoder with full (bidirectional) attention, Q/K/V and output biases,
temperature ``1/sqrt(d_head)``, learned absolute positions.

Post-LN: block ``k`` computes ``LN_k(x + Attn(x))``, so the normalization whose scale is folded
into layer ``k``'s ``P`` and ``U`` is the one that produced its input: the embedding LayerNorm for
layer 0, the previous layer's output LayerNorm otherwise.  Under re-feeding, layer 0 of every
later pass reads the output of the last layer, so it folds in the last layer's output LayerNorm:
``refeed_layer0`` of the layout.
"""
from __future__ import annotations

from ..layout import LayerAttention, ModelLayout, frozen_array
from ._common import as_numpy, base_model, split_in, split_out


def adapt(model) -> ModelLayout:
    core = base_model(model, "encoder")
    config = core.config
    D, H = config.hidden_size, config.num_attention_heads
    dh = D // H
    layers = []
    blocks = list(core.encoder.layer)

    def layer(index, block, previous_norm):
        attn = block.attention.self
        out = block.attention.output.dense
        return LayerAttention(
                index=index,
                W_Q=frozen_array(split_in(as_numpy(attn.query.weight).T, H, dh)),
                W_K=frozen_array(split_in(as_numpy(attn.key.weight).T, H, dh)),
                W_V=frozen_array(split_in(as_numpy(attn.value.weight).T, H, dh)),
                W_O=frozen_array(split_out(as_numpy(out.weight).T, H, dh)),
                b_Q=frozen_array(as_numpy(attn.query.bias).reshape(H, dh)),
                b_K=frozen_array(as_numpy(attn.key.bias).reshape(H, dh)),
                b_V=frozen_array(as_numpy(attn.value.bias).reshape(H, dh)),
                b_O=frozen_array(as_numpy(out.bias)),
                norm_scale=frozen_array(as_numpy(previous_norm.weight)),
                norm_shift=frozen_array(as_numpy(previous_norm.bias)),
                temperature=float(dh) ** -0.5,
            )

    previous_norm = core.embeddings.LayerNorm
    for index, block in enumerate(blocks):
        layers.append(layer(index, block, previous_norm))
        previous_norm = block.output.LayerNorm
    return ModelLayout(
        architecture="bert",
        layers=tuple(layers),
        mask="full",
        norm="layernorm",
        positions="absolute",
        pre_norm=False,
        notes=("post-LN encoder: layer k folds in the LayerNorm that produced its input",
               "re-feeding: from pass 2 on, layer 0 reads the last layer's output LayerNorm (measured as well)"),
        refeed_layer0=layer(0, blocks[0], blocks[-1].output.LayerNorm),
    )
