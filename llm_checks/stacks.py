"""One re-feeding stack per architecture: embed once, run one block, apply the final norm.

Every block is run by calling the model's own sub-modules with an explicit additive mask
(docs/model.md §5, pitfall: an eager GPT-2 block called without a mask is not causal in
transformers 5), so the feedforward can be removed the same way in every family ("the MLP returns zero and its LN becomes
the identity"):

- GPT-2 / GPT-Neo (pre-LN):  ``x + Attn(LN_1(x))`` then ``+ MLP(LN_2(.))``; final norm ``ln_f``.
- Llama-style (Llama, Mistral, Qwen2; pre-RMSNorm, RoPE):  ``x + Attn(RMS_1(x))`` then
  ``+ MLP(RMS_2(.))``; final norm ``norm``.  Rotary embeddings are computed once for positions
  ``0..N-1`` (the positions of every pass).  Mistral's and Qwen2's sliding-window layers get the
  window in their mask (eager attention ignores ``sliding_window`` and relies on the mask).
- BERT (post-LN encoder, full attention):  ``h = LN_attn(x + Attn(x))`` then
  ``LN_out(h + MLP(h))``; with the feedforward removed the block is ``LN_attn(x + Attn(x))`` (the
  MLP contributes zero and the LayerNorm of the MLP sub-layer, ``LN_out``, is the identity).  BERT
  has no final norm: every block already ends in a LayerNorm, so ``final_norm`` is the identity
  and ``--final-ln`` changes nothing (recorded in the result).

Embedding once means: GPT-2 / GPT-Neo ``wte(ids) + wpe(positions)``; Llama ``embed_tokens(ids)``;
BERT the full embedding module (word + position + token type 0, then its LayerNorm).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from theorems.errors import InvalidInput

from ._deps import require_torch

FAMILIES = ("gpt2", "gpt_neo", "llama", "mistral", "qwen2", "bert")
LLAMA_LIKE = ("llama", "mistral", "qwen2")


def core_of(model):
    """``(core, family)``: the bare transformer inside ``model`` and its ``model_type``."""
    family = str(getattr(model.config, "model_type", type(model).__name__))
    if family not in FAMILIES:
        raise InvalidInput("model", f"one of the architectures {FAMILIES} for the re-feeding measurement", family)
    attribute = {"gpt2": "h", "gpt_neo": "h", "bert": "encoder"}.get(family, "layers")
    core = model if hasattr(model, attribute) else getattr(model, "base_model", model)
    if not hasattr(core, attribute):
        raise InvalidInput("model", f"a {family} model with a '{attribute}' module", type(model).__name__)
    return core, family


def sliding_windows(config, family: str, n_layers: int) -> list[int | None]:
    """Per-layer attention window (``None``: every earlier token).  Mistral / Qwen2 are accepted
    only when their sliding-window configuration can be read; anything else is refused."""
    if family == "gpt_neo":
        return [int(config.window_size) if kind == "local" else None for kind in config.attention_layers]
    if family not in ("mistral", "qwen2"):
        return [None] * n_layers
    window = getattr(config, "sliding_window", None)
    types = getattr(config, "layer_types", None)
    if family == "qwen2" and not getattr(config, "use_sliding_window", False):
        window = None
    if window is None:
        return [None] * n_layers
    if types is None:
        if family == "mistral":
            return [int(window)] * n_layers
        raise InvalidInput("model", f"a {family} config with layer_types naming its sliding-window layers", "none",
                           hint="this transformers version does not say which layers use the window; refusing rather than guessing")
    unknown = sorted(set(types) - {"full_attention", "sliding_attention"})
    if unknown or len(types) < n_layers:
        raise InvalidInput("model", f"{family} layer_types of full_attention / sliding_attention for {n_layers} layers",
                           f"{list(types)[:4]}...", hint="attention kinds the adapter cannot reproduce are refused")
    return [int(window) if types[k] == "sliding_attention" else None for k in range(n_layers)]


def additive_mask(n: int, causal: bool, window: int | None, dtype, device):
    """``(1, 1, n, n)`` additive mask: 0 on allowed pairs (``j <= i`` when causal, and
    ``i - j < window`` with a window), the dtype's most negative finite value elsewhere."""
    torch = require_torch()
    i = torch.arange(n, device=device)[:, None]
    j = torch.arange(n, device=device)[None, :]
    allowed = (j <= i) if causal else torch.ones((n, n), dtype=torch.bool, device=device)
    if window is not None:
        allowed = allowed & ((i - j) < window)
    mask = torch.zeros((n, n), dtype=dtype, device=device)
    mask.masked_fill_(~allowed, torch.finfo(dtype).min)
    return mask[None, None]


@dataclass(frozen=True)
class Stack:
    """The pieces of one architecture that re-feeding needs (see the module docstring)."""

    family: str
    core: Any
    blocks: tuple
    windows: tuple
    causal: bool
    final_norm_name: str | None

    @property
    def device(self):
        return next(self.core.parameters()).device

    @property
    def dtype(self):
        return next(self.core.parameters()).dtype

    def max_tokens(self) -> int | None:
        cfg = self.core.config
        if self.family in LLAMA_LIKE:
            return None  # rotary positions: no table to run past
        return int(getattr(cfg, "max_position_embeddings", None) or getattr(cfg, "n_positions"))

    def embed(self, ids):
        torch = require_torch()
        c = self.core
        if self.family in ("gpt2", "gpt_neo"):
            positions = torch.arange(ids.shape[1], device=ids.device)[None, :]
            return c.wte(ids) + c.wpe(positions)
        if self.family == "bert":
            return c.embeddings(input_ids=ids, token_type_ids=torch.zeros_like(ids))
        return c.embed_tokens(ids)

    def context(self, x) -> dict:
        """Per-input constants shared by every block and pass: masks and rotary embeddings."""
        torch = require_torch()
        n = x.shape[1]
        masks = {w: additive_mask(n, self.causal, w, x.dtype, x.device) for w in set(self.windows)}
        out: dict = {"masks": masks}
        if self.family in LLAMA_LIKE:
            position_ids = torch.arange(n, device=x.device)[None, :]
            out["rope"] = self.core.rotary_emb(x, position_ids=position_ids)
            out["position_ids"] = position_ids
        return out

    def final_norm(self, x):
        return x if self.final_norm_name is None else getattr(self.core, self.final_norm_name)(x)

    def run_block(self, k: int, x, ctx: dict, ffn: bool, params: dict | None = None):
        """Block ``k`` on ``x``; ``params`` (fresh weights, names relative to the block) are used
        through ``torch.func.functional_call`` so the model's own parameters are never changed."""
        torch = require_torch()
        block = self.blocks[k]
        mask = ctx["masks"][self.windows[k]]

        def call(name, *args, **kwargs):
            module = block.get_submodule(name)
            if params is None:
                return module(*args, **kwargs)
            own = {key[len(name) + 1:]: v for key, v in params.items() if key.startswith(name + ".")}
            return torch.func.functional_call(module, own, args, kwargs)

        if self.family in ("gpt2", "gpt_neo"):
            x = x + call("attn", call("ln_1", x), attention_mask=mask)[0]
            return x + call("mlp", call("ln_2", x)) if ffn else x
        if self.family in LLAMA_LIKE:
            h = call("input_layernorm", x)
            x = x + call("self_attn", hidden_states=h, attention_mask=mask, position_embeddings=ctx["rope"])[0]
            return x + call("mlp", call("post_attention_layernorm", x)) if ffn else x
        a = call("attention.self", x, attention_mask=mask)[0]
        h = call("attention.output", a, x)  # LN_attn(x + dense(a))
        return call("output", call("intermediate", h), h) if ffn else h


def stack_of(model) -> Stack:
    core, family = core_of(model)
    if family in ("gpt2", "gpt_neo"):
        blocks, final = tuple(core.h), "ln_f"
    elif family == "bert":
        blocks, final = tuple(core.encoder.layer), None
    else:
        blocks, final = tuple(core.layers), "norm"
    windows = tuple(sliding_windows(core.config, family, len(blocks)))
    return Stack(family, core, blocks, windows, causal=family != "bert", final_norm_name=final)


def is_norm_module(module) -> bool:
    """LayerNorm / RMSNorm-like modules (their parameters are re-drawn as scale 1, shift 0)."""
    name = type(module).__name__.lower()
    return "norm" in name
