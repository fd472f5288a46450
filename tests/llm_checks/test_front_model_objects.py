"""The public calls verify.audit / verify.consensus take a model in memory: per family (GPT-2,
GPT-Neo, Llama, BERT) a small random transformers model, and a TransformerLens HookedTransformer
(the `lens` extra, installed by CI), give the numbers of the same weights' save_pretrained directory."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")
transformers = pytest.importorskip("transformers")

import verify  # noqa: E402
from theorems.errors import InvalidInput  # noqa: E402

from in_memory_helpers import FAMILIES, assert_same_audit, assert_same_consensus, tiny  # noqa: E402

AUDIT = dict(hemisphere_prompts=2, hemisphere_tokens=8, seed=3)
CONSENSUS = dict(prompts=2, tokens=8, passes=2, batch_size=2, no_ffn=True, seed=3)


def _same_reports(model, directory) -> None:
    a, b = verify.audit(model, **AUDIT), verify.audit(str(directory), **AUDIT)
    assert_same_audit(a.record, b.record)
    assert a.exit_code == b.exit_code and a.payload["verdict"] == b.payload["verdict"]
    assert a.payload["provenance"]["weights"] == "given in memory" and b.payload["provenance"]["files"]
    c, d = verify.consensus(model, **CONSENSUS), verify.consensus(directory, **CONSENSUS)
    assert_same_consensus(c.record, d.record)
    assert c.payload["summary"] == d.payload["summary"]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_verify_calls_take_a_transformers_model(family, tmp_path):
    model = tiny(family)
    model.save_pretrained(tmp_path)
    _same_reports(model, tmp_path)
    assert model.training  # the caller's object was not switched to eval mode


def test_verify_calls_take_a_hooked_transformer(tmp_path):
    pytest.importorskip("transformer_lens", reason="needs the lens extra: pip install 'consensus-verify[lens]'")
    from test_lens_models import hooked

    model, _ = hooked("llama", tmp_path)
    _same_reports(model, tmp_path)


def test_loading_options_are_refused_for_an_object():
    model = tiny("gpt2")
    with pytest.raises(InvalidInput, match="random_init"):
        verify.audit(model, random_init=True)
    with pytest.raises(InvalidInput, match="PreTrainedModel"):
        verify.consensus(np.zeros(3), prompts=2, tokens=8)
