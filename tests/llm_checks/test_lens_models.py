"""TransformerLens models (the `lens` extra; CI installs it): a HookedTransformer built from a small
random transformers model (GPT-2, GPT-Neo, Llama with grouped-query attention) gives the audit and
the consensus measurement exactly the numbers of that model's save_pretrained directory.  After
TransformerLens's weight processing (folded LayerNorm, centred writing weights, folded value
biases) the converted model is checked against TransformerLens's own forward pass, block by block.
A TransformerBridge, which rewrites the model it wraps, is refused with what to pass instead."""
from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")
transformers = pytest.importorskip("transformers")
lens = pytest.importorskip("transformer_lens", reason="needs the lens extra: pip install 'consensus-verify[lens]'")

from llm_checks.audit import audit  # noqa: E402
from llm_checks.consensus import measure_consensus  # noqa: E402
from llm_checks.prompts import random_prompts  # noqa: E402
from llm_checks.runner import refeed  # noqa: E402
from llm_checks.sources import resolve_model  # noqa: E402
from theorems.errors import InvalidInput  # noqa: E402

from in_memory_helpers import OPTIONS, VOCAB, assert_same_audit, assert_same_consensus  # noqa: E402

HookedTransformer = pytest.importorskip("transformer_lens.HookedTransformer").HookedTransformer
loading = pytest.importorskip("transformer_lens.loading_from_pretrained")
conversions = pytest.importorskip("transformer_lens.pretrained.weight_conversions")

CAUSAL = {
    "gpt2": (lambda: transformers.GPT2LMHeadModel(transformers.GPT2Config(
        n_layer=2, n_embd=32, n_head=4, vocab_size=VOCAB, n_positions=16, n_ctx=16)), "convert_gpt2_weights"),
    "gpt_neo": (lambda: transformers.GPTNeoForCausalLM(transformers.GPTNeoConfig(
        num_layers=2, hidden_size=32, num_heads=4, vocab_size=VOCAB, max_position_embeddings=16,
        attention_types=[[["global", "local"], 1]], window_size=4)), "convert_neo_weights"),
    "llama": (lambda: transformers.LlamaForCausalLM(transformers.LlamaConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        vocab_size=VOCAB, max_position_embeddings=16)), "convert_llama_weights"),
}


def hooked(family: str, directory, processed: bool = False, seed: int = 0):
    """``(HookedTransformer, the transformers model)``: TransformerLens's own config and weight conversion
    of a small random model saved in ``directory`` (offline: from_pretrained wants a hub name)."""
    make, convert = CAUSAL[family]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        hf = make().eval()
    hf.save_pretrained(directory)
    config = loading.convert_hf_model_config(str(directory))
    config.pop("tokenizer_name", None)  # random shapes have no tokenizer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # HookedTransformer is deprecated in TransformerLens 3
        cfg = lens.HookedTransformerConfig(**config)
        model = HookedTransformer(cfg)
        model.load_and_process_state_dict(getattr(conversions, convert)(hf, cfg), fold_ln=processed,
                                          center_writing_weights=processed, center_unembed=processed,
                                          fold_value_biases=processed)
    return model.eval(), hf


@pytest.mark.parametrize("family", sorted(CAUSAL))
def test_hooked_transformer_and_the_saved_directory_give_equal_numbers(family, tmp_path):
    model, _ = hooked(family, tmp_path)
    prompts = random_prompts(2, 8, VOCAB, 0)
    from_lens = audit(model, prompts=prompts)
    assert_same_audit(from_lens, audit(str(tmp_path), prompts=prompts))
    assert_same_consensus(measure_consensus(model, OPTIONS), measure_consensus(str(tmp_path), OPTIONS))
    facts = from_lens.provenance["in_memory"]["lens"]
    assert facts["class"] == "HookedTransformer" and facts["original_architecture"] == CAUSAL_ARCH[family]
    assert facts["ln_folded"] is False and from_lens.provenance["weights"] == "given in memory"


CAUSAL_ARCH = {"gpt2": "GPT2LMHeadModel", "gpt_neo": "GPTNeoForCausalLM", "llama": "LlamaForCausalLM"}


@pytest.mark.parametrize("family", sorted(CAUSAL))
def test_processed_weights_are_measured_as_transformer_lens_runs_them(family, tmp_path):
    model, _ = hooked(family, tmp_path, processed=True)
    ids = torch.as_tensor(random_prompts(1, 12, VOCAB, 1))
    with torch.no_grad():
        _, cache = model.run_with_cache(ids)
    loaded = resolve_model(model)
    assert loaded.provenance()["in_memory"]["lens"]["ln_folded"] is True
    blocks = {}
    refeed(loaded.model, ids, passes=1, ffn=True, on_block=lambda k, h: blocks.__setitem__(k, h.clone()))
    assert len(blocks) == 2
    for k, state in blocks.items():
        theirs = cache[f"blocks.{k}.hook_resid_post"]
        scale = float(theirs.abs().max())
        assert 0 < scale and float((state - theirs).abs().max()) <= 1e-6 * max(1.0, scale), k


def test_what_transformers_cannot_express_is_refused(tmp_path):
    model, _ = hooked("gpt2", tmp_path)
    model.cfg.original_architecture = "OPTForCausalLM"
    with pytest.raises(InvalidInput, match="original_architecture"):
        resolve_model(model)
    model.cfg.original_architecture = "GPT2LMHeadModel"
    model.cfg.attn_only = True
    with pytest.raises(InvalidInput, match="attn_only"):
        resolve_model(model)
    model.cfg.attn_only = False
    neo, _ = hooked("gpt_neo", tmp_path / "neo")
    with torch.no_grad():
        neo.blocks[1].attn.b_K += 1.0
    with pytest.raises(InvalidInput, match="b_K"):
        resolve_model(neo)


def test_a_transformer_bridge_is_refused_with_what_to_pass_instead(tmp_path):
    bridge_module = pytest.importorskip("transformer_lens.model_bridge")
    _, hf = hooked("gpt2", tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bridge = bridge_module.TransformerBridge.boot_transformers(str(tmp_path), hf_model=hf)
    with pytest.raises(InvalidInput, match="booted from") as info:
        audit(bridge)
    assert info.value.got == "TransformerBridge"
    # booting rewrote the transformers model in place: its attention is no longer GPT-2's own module
    assert type(hf.transformer.h[0].attn).__name__ != "GPT2Attention"
