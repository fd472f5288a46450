"""TransformerLens models (the optional ``lens`` extra), measured through the same transformers path.

A ``HookedTransformer`` (TransformerLens 2.x / 3.x; removed in 4.0) stores one canonical layout,
``W_Q, W_K, W_V: (H, D, d_head)``, ``W_O: (H, d_head, D)``.  :func:`to_transformers` is the inverse
of TransformerLens's own converter for the architecture named in ``cfg.original_architecture``
(GPT-2, GPT-Neo, Llama): it builds the transformers config and state dict by exact reshapes and
transposes, so an unprocessed HookedTransformer gives the numbers of the checkpoint it came from,
bit for bit.  Tensors whose layout already matches (embeddings, GPT-2 MLP) are shared, the others
are contiguous copies.  Weight processing done by TransformerLens is measured as it stands: a
folded LayerNorm (``LNPre`` / ``RMSPre``) becomes a norm of scale 1 and shift 0, centred writing
weights and folded value biases stay as they are (recorded in ``in_memory.lens``).
Anything a transformers model of that architecture cannot express (attention-only models, QK
norms, soft caps, rotary scaling, biases Llama lacks) is refused, naming the field.

A ``TransformerBridge`` (TransformerLens 3.x / 4.x) is refused with a message saying what to pass
instead: booting it replaces the sub-modules of the transformers model it wraps by its own
components (GPT-2's fused ``c_attn`` becomes separate q, k, v), so ``original_model`` is no longer
the checkpoint's architecture.  Pass the transformers model before booting, or its directory.
"""
from __future__ import annotations

import math
import sys
from typing import Any, Callable

from theorems.errors import InvalidInput, MissingDependency

from ._deps import require_torch, require_transformers

INSTALL = "pip install 'consensus-verify[lens]'"
ARCHITECTURES = {"GPT2LMHeadModel": "gpt2", "GPTNeoForCausalLM": "gpt_neo", "LlamaForCausalLM": "llama"}
_REFUSED = {"attn_only": False, "use_qk_norm": False, "parallel_attn_mlp": False, "post_embedding_ln": False,
            "use_normalization_before_and_after": False, "use_NTK_by_parts_rope": False, "use_yarn_rope": False,
            "use_dynamic_ntk_rope": False, "use_logn_attn": False, "rotary_adjacent_pairs": False,
            "use_attention_sinks": False, "num_experts": None, "clip_qkv": None}


def _classes():
    module = sys.modules.get("transformer_lens")
    if module is None:
        return ()
    found = []
    for owner, name in (("transformer_lens.HookedTransformer", "HookedTransformer"),
                        ("transformer_lens.model_bridge.bridge", "TransformerBridge")):
        cls = getattr(sys.modules.get(owner), name, None)
        if isinstance(cls, type):
            found.append(cls)
    return tuple(found)


def is_lens_model(model: Any) -> bool:
    """True for a HookedTransformer or TransformerBridge (only if transformer_lens is imported already)."""
    classes = _classes()
    return bool(classes) and isinstance(model, classes)


def _check(cfg) -> str:
    arch = getattr(cfg, "original_architecture", None)
    if arch not in ARCHITECTURES:
        raise InvalidInput("model.cfg.original_architecture", f"one of {sorted(ARCHITECTURES)}", arch,
                           hint="a HookedTransformer converted from a transformers checkpoint of a supported architecture")
    for field, default in _REFUSED.items():
        value = getattr(cfg, field, default)
        if value not in (default, 0):
            raise InvalidInput(f"model.cfg.{field}", f"{default} (a transformers {arch} cannot express it)", value)
    for field in ("attn_scores_soft_cap", "output_logits_soft_cap"):
        if (getattr(cfg, field, -1.0) or -1.0) > 0:
            raise InvalidInput(f"model.cfg.{field}", "no soft cap", getattr(cfg, field))
    if getattr(cfg, "normalization_type", None) not in ("LN", "LNPre", "RMS", "RMSPre"):
        raise InvalidInput("model.cfg.normalization_type", "LN, LNPre, RMS or RMSPre", cfg.normalization_type)
    family = ARCHITECTURES[arch]
    scale = float(getattr(cfg, "attn_scale", -1.0))
    wants_scale = family != "gpt_neo"
    if bool(cfg.use_attn_scale) != wants_scale or (wants_scale and not math.isclose(scale, math.sqrt(cfg.d_head), rel_tol=1e-12)):
        raise InvalidInput("model.cfg.attn_scale", f"{'sqrt(d_head)' if wants_scale else 'none'} as in {arch}",
                           f"use_attn_scale={cfg.use_attn_scale}, attn_scale={scale}")
    if family == "llama" and (cfg.rotary_dim != cfg.d_head or float(getattr(cfg, "rotary_scaling_factor", 1.0)) != 1.0):
        raise InvalidInput("model.cfg.rotary_dim", f"d_head = {cfg.d_head} and no rotary scaling", cfg.rotary_dim)
    return family


def _config(cfg, family: str, sd: dict):
    transformers = require_transformers()
    common = dict(vocab_size=cfg.d_vocab)
    if family == "gpt2":
        return transformers.GPT2Config(n_embd=cfg.d_model, n_layer=cfg.n_layers, n_head=cfg.n_heads, n_inner=cfg.d_mlp,
                                       n_positions=sd["pos_embed.W_pos"].shape[0], activation_function=cfg.act_fn,
                                       layer_norm_epsilon=cfg.eps, scale_attn_weights=True,
                                       scale_attn_by_inverse_layer_idx=bool(cfg.scale_attn_by_inverse_layer_idx), **common)
    if family == "gpt_neo":
        kinds = list(cfg.attn_types) if cfg.use_local_attn else ["global"] * cfg.n_layers
        return transformers.GPTNeoConfig(hidden_size=cfg.d_model, num_layers=cfg.n_layers, num_heads=cfg.n_heads,
                                         intermediate_size=cfg.d_mlp, attention_types=[[[k], 1] for k in kinds],
                                         window_size=int(cfg.window_size or 256), activation_function=cfg.act_fn,
                                         max_position_embeddings=sd["pos_embed.W_pos"].shape[0], layer_norm_epsilon=cfg.eps, **common)
    bias = any(bool(sd[k].abs().max() > 0) for k in sd if k.split(".")[-1] in ("b_Q", "b_K", "b_V", "_b_K", "_b_V", "b_O"))
    return transformers.LlamaConfig(hidden_size=cfg.d_model, intermediate_size=cfg.d_mlp, num_hidden_layers=cfg.n_layers,
                                    num_attention_heads=cfg.n_heads, num_key_value_heads=cfg.n_key_value_heads or cfg.n_heads,
                                    head_dim=cfg.d_head, hidden_act=cfg.act_fn, max_position_embeddings=cfg.n_ctx,
                                    rms_norm_eps=cfg.eps, rope_theta=float(cfg.rotary_base), attention_bias=bias,
                                    tie_word_embeddings=False, **common)


def _state_dict(cfg, family: str, sd: dict, bias: bool) -> dict:
    """transformers' base-model state dict from TransformerLens's (exact reshapes / transposes)."""
    torch = require_torch()
    H, dh, D = cfg.n_heads, cfg.d_head, cfg.d_model

    def norm(key, like):  # LNPre / RMSPre: the scale (and shift) were folded into the next weights
        return sd.get(key, torch.ones_like(like) if key.endswith(".w") else torch.zeros_like(like))

    def rows(W):  # (H, D, dh) -> (H*dh, D), nn.Linear's layout
        return W.permute(0, 2, 1).reshape(-1, D)

    ones = torch.ones(D, dtype=sd["embed.W_E"].dtype, device=sd["embed.W_E"].device)
    out: dict[str, Any] = {}
    if family in ("gpt2", "gpt_neo"):
        out.update({"wte.weight": sd["embed.W_E"], "wpe.weight": sd["pos_embed.W_pos"],
                    "ln_f.weight": norm("ln_final.w", ones), "ln_f.bias": norm("ln_final.b", ones)})
    else:
        out.update({"embed_tokens.weight": sd["embed.W_E"], "norm.weight": norm("ln_final.w", ones)})
    for l in range(cfg.n_layers):
        g = lambda name: sd[f"blocks.{l}.{name}"]  # noqa: E731
        a = lambda name: sd.get(f"blocks.{l}.attn.{name}", sd.get(f"blocks.{l}.attn._{name}"))  # noqa: E731
        if family == "gpt2":
            p = f"h.{l}."
            out[p + "attn.c_attn.weight"] = torch.cat([rows(a(w)).T for w in ("W_Q", "W_K", "W_V")], dim=1)
            out[p + "attn.c_attn.bias"] = torch.cat([a(b).reshape(-1) for b in ("b_Q", "b_K", "b_V")])
            out[p + "attn.c_proj.weight"], out[p + "attn.c_proj.bias"] = g("attn.W_O").reshape(H * dh, D), g("attn.b_O")
            out[p + "mlp.c_fc.weight"], out[p + "mlp.c_fc.bias"] = g("mlp.W_in"), g("mlp.b_in")
            out[p + "mlp.c_proj.weight"], out[p + "mlp.c_proj.bias"] = g("mlp.W_out"), g("mlp.b_out")
        elif family == "gpt_neo":
            p = f"h.{l}."
            for w, b in (("W_Q", "b_Q"), ("W_K", "b_K"), ("W_V", "b_V")):
                if bool(a(b).abs().max() > 0):
                    raise InvalidInput(f"model.blocks.{l}.attn.{b}", "zero (GPT-Neo has no query/key/value bias)", "nonzero")
                out[p + f"attn.attention.{w[-1].lower()}_proj.weight"] = rows(a(w))
            out[p + "attn.attention.out_proj.weight"] = g("attn.W_O").reshape(H * dh, D).T
            out[p + "attn.attention.out_proj.bias"] = g("attn.b_O")
            out[p + "mlp.c_fc.weight"], out[p + "mlp.c_fc.bias"] = g("mlp.W_in").T, g("mlp.b_in")
            out[p + "mlp.c_proj.weight"], out[p + "mlp.c_proj.bias"] = g("mlp.W_out").T, g("mlp.b_out")
        else:
            p = f"layers.{l}."
            for w, b in (("W_Q", "b_Q"), ("W_K", "b_K"), ("W_V", "b_V")):
                out[p + f"self_attn.{w[-1].lower()}_proj.weight"] = rows(a(w))
                if bias:
                    out[p + f"self_attn.{w[-1].lower()}_proj.bias"] = a(b).reshape(-1)
            out[p + "self_attn.o_proj.weight"] = g("attn.W_O").reshape(H * dh, D).T
            if bias:
                out[p + "self_attn.o_proj.bias"] = g("attn.b_O")
            for name in ("mlp.b_in", "mlp.b_out"):
                if bool(g(name).abs().max() > 0):
                    raise InvalidInput(f"model.blocks.{l}.{name}", "zero (Llama's MLP has no bias here)", "nonzero")
            out[p + "mlp.up_proj.weight"], out[p + "mlp.gate_proj.weight"] = g("mlp.W_in").T, g("mlp.W_gate").T
            out[p + "mlp.down_proj.weight"] = g("mlp.W_out").T
        names = ("input_layernorm", "post_attention_layernorm") if family == "llama" else ("ln_1", "ln_2")
        for ours, theirs in zip(names, ("ln1", "ln2")):
            out[p + ours + ".weight"] = norm(f"blocks.{l}.{theirs}.w", ones)
            if family != "llama":
                out[p + ours + ".bias"] = norm(f"blocks.{l}.{theirs}.b", ones)
    return {k: v.detach().contiguous() for k, v in out.items()}


def to_transformers(model):
    """``(transformers base model, facts)`` for a HookedTransformer (module docstring); eval, eager."""
    transformers = require_transformers()
    try:
        from accelerate import init_empty_weights
    except ImportError as exc:  # pragma: no cover - accelerate is in the llm extra
        raise MissingDependency("accelerate", "pip install 'consensus-verify[llm]'") from exc
    cfg = model.cfg
    family = _check(cfg)
    sd = dict(model.state_dict())
    config = _config(cfg, family, sd)
    with init_empty_weights(include_buffers=False):  # parameters on meta, buffers (RoPE tables) computed
        hf = transformers.AutoModel.from_config(config, attn_implementation="eager")
    try:
        hf.load_state_dict(_state_dict(cfg, family, sd, bool(getattr(config, "attention_bias", False))), strict=True, assign=True)
    except RuntimeError as exc:
        raise InvalidInput("model", f"a HookedTransformer with the parameters of a {cfg.original_architecture}",
                           str(exc).splitlines()[0]) from None
    for parameter in hf.parameters():
        parameter.requires_grad_(False)
    facts = {"class": type(model).__qualname__, "original_architecture": cfg.original_architecture,
             "model_name": str(getattr(cfg, "model_name", "")), "normalization_type": cfg.normalization_type,
             "ln_folded": cfg.normalization_type in ("LNPre", "RMSPre"),
             "transformer_lens": _version()}
    return hf.eval(), facts


def from_lens(model, *, dtype: str | None = None, device: str | None = None, on_event: Callable[[str], None] | None = None):
    """A :class:`~llm_checks.loaders.LoadedModel` for a HookedTransformer (a TransformerBridge is refused)."""
    from .in_memory import from_pretrained_object

    if not hasattr(model, "cfg") or hasattr(type(model), "original_model"):
        raise InvalidInput("model", "a HookedTransformer, a transformers PreTrainedModel, a name or a path",
                           type(model).__name__, hint="a TransformerBridge rewrites the model it wraps: pass the "
                           "transformers model it was booted from (before booting) or that model's directory")
    hf, facts = to_transformers(model)
    label = f"{type(model).__name__} ({facts['original_architecture']}{', ' + facts['model_name'] if facts['model_name'] else ''})"
    return from_pretrained_object(hf, dtype=dtype, device=device, on_event=on_event, origin={"lens": facts, "label": label})


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("transformer-lens")
    except PackageNotFoundError:  # pragma: no cover - imported from a source tree
        return "unknown"
