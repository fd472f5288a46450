"""Per-head factors and layer-input token directions for the certified fate of real heads.

For layer ``k`` and head ``h`` of a model in the canonical layout (:mod:`llm_checks.layout`,
row vectors, the normalization scale ``g`` folded in as in :mod:`llm_checks.factors`):

    U^h = V^h O^h,  V^h = diag(g) W_V^h (D x d_head),  O^h = W_O^h (d_head x D)
    P^h = A^h (B^h)^T,  A^h = sqrt(D) diag(g) W_Q^h,  B^h = sqrt(D) diag(g) W_K^h,  beta = 1/sqrt(d_head)

``P^h`` is on the unit-sphere scale: the normalized token ``n`` (LayerNorm: centred and divided
by its standard deviation; RMSNorm: divided by its root mean square) has ``|n| = sqrt(D)``, so
with ``x = n / |n|`` the model's score is ``beta <x_i, P^h x_j>`` (bias terms dropped, as in the
paper's model).  The tokens are the directions ``n_i / |n_i|`` of the prompt's hidden states at
the layer's input (post-LN BERT: ``n = (h - b) / g`` with the LayerNorm that produced ``h``).

Every array is float64.  ``V`` is the product of two float32 arrays, which float64 holds exactly
(24 + 24 significant bits), so ``V``, ``O`` and ``tokens`` are exact binary rationals: the
certification code (``verify._fate.heads``) reads them as exact data, not as approximations.
Nothing here is a proof; this module only measures.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from theorems.errors import InvalidInput

from ._deps import require_torch


@dataclass(frozen=True)
class LayerHeads:
    """One layer: ``V`` ``(H, D, d_head)``, ``O`` ``(H, d_head, D)``, ``A``, ``B`` ``(H, D, d_head)``,
    ``tokens`` ``(N, D)`` (the layer input directions before normalisation to length one)."""

    index: int
    V: np.ndarray
    O: np.ndarray
    A: np.ndarray
    B: np.ndarray
    tokens: np.ndarray
    beta: float


@dataclass(frozen=True)
class HeadFactors:
    """Every layer of one model for one prompt, with the facts the report needs."""

    model: str
    family: str
    mask: str
    positions: str
    norm: str
    token_ids: tuple[int, ...]
    token_text: tuple[str, ...]
    layers: tuple[LayerHeads, ...]
    provenance: dict[str, Any]

    @property
    def n_layers(self) -> int:
        return len(self.layers)

    @property
    def n_heads(self) -> int:
        return int(self.layers[0].V.shape[0])


def _exact_f64(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def layer_heads(layer, hidden: np.ndarray, norm: str, pre_norm: bool) -> LayerHeads:
    """The factors of one :class:`~llm_checks.layout.LayerAttention` and the directions of ``hidden``
    (``(N, D)``, the residual stream at the layer input; post-LN: the previous LayerNorm's output)."""
    g = _exact_f64(layer.norm_scale)
    kv = np.array([layer.kv_index(h) for h in range(layer.n_heads)])
    D = layer.d_model
    h = np.asarray(hidden, dtype=np.float64)
    if pre_norm:
        n = h - h.mean(axis=1, keepdims=True) if norm == "layernorm" else h
    else:  # post-LN: undo the scale and shift of the LayerNorm that produced the input
        if np.any(g == 0):
            raise InvalidInput(f"layers[{layer.index}].norm_scale", "nonzero LayerNorm scales", "a zero scale")
        shift = np.zeros(D) if layer.norm_shift is None else _exact_f64(layer.norm_shift)
        n = (h - shift) / g
    root_d = np.sqrt(float(D))
    return LayerHeads(
        index=layer.index,
        V=g[None, :, None] * _exact_f64(layer.W_V)[kv],
        O=_exact_f64(layer.W_O),
        A=root_d * g[None, :, None] * _exact_f64(layer.W_Q),
        B=root_d * g[None, :, None] * _exact_f64(layer.W_K)[kv],
        tokens=n,
        beta=float(layer.temperature),
    )


def head_factors(loaded, ids, token_text=()) -> HeadFactors:
    """Factors and layer-input directions of ``loaded`` (a :class:`~llm_checks.loaders.LoadedModel`)
    for one prompt ``ids`` (token ids, length >= 2), from one forward pass with hidden states."""
    torch = require_torch()
    from .adapters import adapt

    ids = [int(i) for i in ids]
    if len(ids) < 2:
        raise InvalidInput("prompt", "at least 2 tokens", len(ids))
    layout = adapt(loaded.model)
    with torch.no_grad():
        out = loaded.model(input_ids=torch.tensor([ids]), output_hidden_states=True)
    hidden = [np.asarray(hs[0].detach().float().cpu().numpy(), dtype=np.float64) for hs in out.hidden_states]
    layers = tuple(layer_heads(layer, hidden[k], layout.norm, layout.pre_norm) for k, layer in enumerate(layout.layers))
    return HeadFactors(model=loaded.name, family=loaded.family, mask=layout.mask, positions=layout.positions,
                       norm=layout.norm, token_ids=tuple(ids), token_text=tuple(token_text), layers=layers,
                       provenance=loaded.provenance())


def prompt_ids(loaded, text: str, max_tokens: int | None = None) -> tuple[list[int], list[str]]:
    """Token ids of ``text`` with the model's own tokenizer (special tokens as the tokenizer adds
    them), cut to ``max_tokens``; and their strings."""
    from .loaders import tokenizer_factory

    factory = tokenizer_factory(loaded)
    if factory is None:
        what = "a random init" if loaded.seed is not None else "a model given in memory (no weights directory)"
        raise InvalidInput("prompt", "a model with its tokenizer (a registry name, or weights with tokenizer files "
                           "beside them) to tokenize the prompt", what,
                           hint="a random init takes random token ids instead (--random-init --seed S)")
    try:
        tok = factory()
    except InvalidInput as exc:  # the loader's wording is the consensus command's (--prompts as token ids)
        raise InvalidInput("prompt", "the tokenizer stored with the weights (tokenizer.json or vocabulary files "
                           "beside them) to tokenize the prompt", exc.got,
                           hint="copy the model's tokenizer files into the weights directory") from None
    ids = list(tok(text)["input_ids"])
    if not ids and text.strip():
        raise InvalidInput("prompt", "the tokenizer stored with the weights (tokenizer.json or vocabulary files "
                           "beside them) to tokenize the prompt",
                           f"a tokenizer that gives no tokens for {text[:40]!r} ({loaded.path}: no tokenizer files?)",
                           hint="copy the model's tokenizer files into the weights directory")
    if max_tokens is not None:
        ids = ids[:max_tokens]
    return ids, [str(t) for t in tok.convert_ids_to_tokens(ids)]


__all__ = ["HeadFactors", "LayerHeads", "head_factors", "layer_heads", "prompt_ids"]
