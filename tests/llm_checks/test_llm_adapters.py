"""Adapter facts and a differential check: the layout reproduces each model's own projections."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

from llm_checks.adapters import adapt  # noqa: E402
from llm_checks.loaders import load_model  # noqa: E402

FACTS = {
    # name: (layers, heads, kv heads, D, d_head, temperature, mask, norm, positions, windows)
    "gpt2-tiny": (4, 4, 4, 64, 16, 0.25, "causal", "layernorm", "absolute", (None,) * 4),
    "gpt-neo-tiny": (4, 4, 4, 64, 16, 1.0, "causal", "layernorm", "absolute", (None, 8, None, 8)),
    "llama-tiny": (2, 4, 2, 64, 16, 0.25, "causal", "rmsnorm", "rope", (None,) * 2),
    "bert-tiny": (2, 4, 4, 64, 16, 0.25, "full", "layernorm", "absolute", (None,) * 2),
}


@pytest.mark.parametrize("name", sorted(FACTS))
def test_layout_facts(name):
    layout = adapt(load_model(name, random_init=True).model)
    L, H, Hkv, D, dh, temp, mask, norm, pos, windows = FACTS[name]
    assert (layout.n_layers, layout.n_heads, layout.layers[0].n_kv_heads, layout.d_model, layout.d_head) == (L, H, Hkv, D, dh)
    assert {l.temperature for l in layout.layers} == {temp}
    assert (layout.mask, layout.norm, layout.positions, layout.windows) == (mask, norm, pos, windows)
    assert layout.layers[0].W_Q.shape == (H, D, dh) and layout.layers[0].W_O.shape == (H, dh, D)
    assert not layout.layers[0].W_Q.flags.writeable


def _projections(name, model, layer, n):
    """(q, k, v) from the model's own modules for normalized inputs n: (T, D)."""
    core = model.base_model
    t = torch.as_tensor(n, dtype=torch.float32)
    if name == "gpt2-tiny":
        qkv = core.h[layer].attn.c_attn(t)
        return qkv.split(core.config.n_embd, dim=-1)
    if name == "gpt-neo-tiny":
        a = core.h[layer].attn.attention
        return a.q_proj(t), a.k_proj(t), a.v_proj(t)
    if name == "llama-tiny":
        a = core.layers[layer].self_attn
        return a.q_proj(t), a.k_proj(t), a.v_proj(t)
    a = core.encoder.layer[layer].attention.self
    return a.query(t), a.key(t), a.value(t)


@pytest.mark.parametrize("name", sorted(FACTS))
def test_layout_reproduces_the_models_projections(name):
    model = load_model(name, random_init=True, seed=3).model
    with torch.no_grad():  # nonzero biases so that their placement is tested too
        for p in model.parameters():
            if p.ndim == 1:
                p.add_(torch.randn_like(p) * 0.1)
    layout = adapt(model)
    n = np.random.default_rng(0).normal(size=(5, layout.d_model)).astype(np.float32)
    checked = 0
    for k, layer in enumerate(layout.layers):
        q, kk, v = (t.detach().numpy().reshape(5, -1, layout.d_head) for t in _projections(name, model, k, n))
        for h in range(layout.n_heads):
            kv = layer.kv_index(h)
            bq = 0 if layer.b_Q is None else layer.b_Q[h]
            bk = 0 if layer.b_K is None else layer.b_K[kv]
            bv = 0 if layer.b_V is None else layer.b_V[kv]
            np.testing.assert_allclose(n @ layer.W_Q[h] + bq, q[:, h], rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(n @ layer.W_K[kv] + bk, kk[:, kv], rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(n @ layer.W_V[kv] + bv, v[:, kv], rtol=1e-5, atol=1e-5)
            checked += 1
    assert checked == layout.n_layers * layout.n_heads


def test_output_projection_blocks_recombine_heads():
    model = load_model("gpt2-tiny", random_init=True, seed=1).model
    layout = adapt(model)
    rng = np.random.default_rng(2)
    heads = rng.normal(size=(3, layout.n_heads, layout.d_head)).astype(np.float32)
    proj = model.h[0].attn.c_proj
    with torch.no_grad():
        expected = proj(torch.as_tensor(heads.reshape(3, -1))).numpy()
    got = np.einsum("the,hed->td", heads, layout.layers[0].W_O) + layout.layers[0].b_O
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
