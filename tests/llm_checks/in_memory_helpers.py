"""Shared by the in-memory model tests (transformers objects, TransformerLens, the verify front):
small random models of every family, the run options, and exact-equality checks of two audits or
two consensus measurements."""
from __future__ import annotations

import numpy as np
import torch
import transformers

from llm_checks.consensus import ConsensusOptions

VOCAB = 50
FAMILIES = {
    "gpt2": lambda: transformers.GPT2LMHeadModel(transformers.GPT2Config(
        n_layer=2, n_embd=32, n_head=4, vocab_size=VOCAB, n_positions=16, bos_token_id=0, eos_token_id=0)),
    "gpt_neo": lambda: transformers.GPTNeoForCausalLM(transformers.GPTNeoConfig(
        num_layers=2, hidden_size=32, num_heads=4, vocab_size=VOCAB, max_position_embeddings=16,
        attention_types=[[["global", "local"], 1]], window_size=4, bos_token_id=0, eos_token_id=0)),
    "llama": lambda: transformers.LlamaForCausalLM(transformers.LlamaConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        vocab_size=VOCAB, max_position_embeddings=16, bos_token_id=0, eos_token_id=0)),
    "bert": lambda: transformers.BertForMaskedLM(transformers.BertConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, vocab_size=VOCAB,
        max_position_embeddings=16, pad_token_id=0)),
}
OPTIONS = ConsensusOptions(prompts=2, tokens=8, passes=2, batch_size=2, ffn=False)


def tiny(family: str, seed: int = 0):
    """A small random model in training mode (as a constructor returns it), SDPA attention."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return FAMILIES[family]()


def assert_same_audit(a, b) -> None:
    assert set(a.measurements.heads) == set(b.measurements.heads)
    checked = 0
    for name, value in a.measurements.heads.items():
        np.testing.assert_array_equal(value, b.measurements.heads[name], err_msg=name)
        checked += 1
    for name, value in a.measurements.layers.items():
        np.testing.assert_array_equal(value, b.measurements.layers[name], err_msg=name)
    assert checked >= 5
    assert [h.result.margin for h in a.hemisphere] == [h.result.margin for h in b.hemisphere] and a.hemisphere
    assert [t.to_json() for t in a.theorems] == [t.to_json() for t in b.theorems]


def assert_same_consensus(a, b) -> None:
    for name in ("E_first", "E_first_abs", "E_pair"):
        np.testing.assert_array_equal(a.E[name], b.E[name], err_msg=name)
    assert a.E["E_first"].shape == (OPTIONS.prompts, OPTIONS.passes * 2)
