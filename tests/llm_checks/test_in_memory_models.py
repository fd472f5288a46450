"""Models in memory: a transformers PreTrainedModel of every family (GPT-2, GPT-Neo, Llama, BERT; task
heads included) gives the audit and the consensus measurement exactly the numbers of its own
save_pretrained directory, and the caller's object is left as it was (training mode, SDPA, weights,
dtype).  The same through llm_checks.sources.resolve_model, which takes every kind of model."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")
transformers = pytest.importorskip("transformers")

from llm_checks.audit import audit  # noqa: E402
from llm_checks.consensus import measure_consensus  # noqa: E402
from llm_checks.loaders import LoadedModel  # noqa: E402
from llm_checks.prompts import random_prompts  # noqa: E402
from llm_checks.sources import is_model_object, resolve_model  # noqa: E402
from theorems.errors import InvalidInput  # noqa: E402

from in_memory_helpers import FAMILIES, OPTIONS, VOCAB, assert_same_audit, assert_same_consensus, tiny  # noqa: E402

def _snapshot(model):
    return {name: p.detach().clone() for name, p in model.named_parameters()}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_object_and_its_saved_directory_give_equal_numbers(family, tmp_path):
    model = tiny(family)
    model.save_pretrained(tmp_path)
    before, attention = _snapshot(model), model.config._attn_implementation
    prompts = random_prompts(2, 8, VOCAB, 0)
    from_object = audit(model, prompts=prompts)
    from_path = audit(resolve_model(str(tmp_path)), prompts=prompts)
    assert_same_audit(from_object, from_path)
    assert_same_consensus(measure_consensus(model, OPTIONS), measure_consensus(str(tmp_path), OPTIONS))
    # the caller's model is untouched: still training, same attention (SDPA but GPT-Neo), weights, gradients on
    assert model.training and model.config._attn_implementation == attention == ("eager" if family == "gpt_neo" else "sdpa")
    assert all(p.requires_grad for p in model.parameters())
    assert all(torch.equal(before[n], p) for n, p in model.named_parameters())
    prov = from_object.provenance
    assert prov["weights"] == "given in memory" and prov["files"] == [] and prov["family"] == family
    assert prov["in_memory"]["class"] == type(model).__qualname__ and len(prov["in_memory"]["weights_sha256"]) == 64


def test_the_view_shares_the_weights_and_the_digest_identifies_them():
    model = tiny("gpt2")
    loaded = resolve_model(model)
    assert isinstance(loaded, LoadedModel) and is_model_object(model) and is_model_object(loaded)
    assert not is_model_object("gpt2") and loaded.model is not model.transformer
    theirs = model.transformer.h[0].attn.c_attn.weight
    assert loaded.model.h[0].attn.c_attn.weight is theirs  # no copy of the weights
    assert not loaded.model.training and loaded.model.config._attn_implementation == "eager"
    other = tiny("gpt2", seed=1)
    digest = loaded.provenance()["in_memory"]["weights_sha256"]
    assert resolve_model(tiny("gpt2")).provenance()["in_memory"]["weights_sha256"] == digest
    assert resolve_model(other).provenance()["in_memory"]["weights_sha256"] != digest


def test_a_dtype_asked_for_is_a_converted_copy_the_caller_keeps_its_own():
    model = tiny("llama")
    loaded = resolve_model(model, dtype="float64")
    assert loaded.dtype == "float64" and next(model.parameters()).dtype == torch.float32
    assert loaded.model.layers[0].self_attn.q_proj.weight.dtype == torch.float64
    np.testing.assert_array_equal(loaded.model.layers[0].self_attn.q_proj.weight.numpy(),
                                  model.model.layers[0].self_attn.q_proj.weight.detach().double().numpy())


def test_bad_objects_and_options_are_refused_with_what_was_expected():
    model = tiny("gpt2")
    with pytest.raises(InvalidInput, match="no loading option") as info:
        resolve_model(model, random_init=True)
    assert info.value.field == "random_init"
    with pytest.raises(InvalidInput, match="PreTrainedModel"):
        resolve_model(torch.nn.Linear(2, 2))
    with pytest.raises(InvalidInput, match="architectures"):
        resolve_model(transformers.GPTJModel(transformers.GPTJConfig(n_layer=1, n_embd=32, n_head=4, vocab_size=VOCAB,
                                                                    rotary_dim=4, n_positions=16)))
    half = tiny("gpt2")
    half.transformer.h[0].attn.c_attn.to(torch.float64)
    with pytest.raises(InvalidInput, match="one floating dtype"):
        resolve_model(half)
    with pytest.raises(InvalidInput, match="dtype"):
        resolve_model(model, dtype="int8")
    loaded = resolve_model(model)
    assert resolve_model(loaded) is loaded
    with pytest.raises(InvalidInput, match="LoadedModel's own"):
        resolve_model(loaded, dtype="float16")


def test_a_bert_task_checkpoint_without_pooler_loads_without_a_random_pooler(tmp_path):
    tiny("bert").save_pretrained(tmp_path)
    loaded = resolve_model(str(tmp_path))
    assert loaded.model.pooler is None  # removed, not initialised at random
    state = {k for k in loaded.model.state_dict()}
    assert not any(k.startswith("pooler.") for k in state) and any(k.startswith("encoder.layer.0.") for k in state)
