"""Differential test: E_first / E_first_abs / E_pair from the measurement equal an independent
few-line numpy computation from the model's own output_hidden_states (fp32, to 1e-6)."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

from llm_checks.consensus import ConsensusOptions, measure_consensus  # noqa: E402
from llm_checks.loaders import load_model  # noqa: E402
from llm_checks.prompts import random_prompts  # noqa: E402


def _independent(x):
    x = np.asarray(x, dtype=np.float64)
    u = x / np.linalg.norm(x, axis=-1, keepdims=True)
    c = u @ u[0]
    return 1 - c.mean(), 1 - np.abs(c).mean(), 1 - (u @ u.T).mean()


@pytest.mark.parametrize("name", ["gpt2-tiny", "gpt-neo-tiny"])
def test_E_matches_output_hidden_states(name):
    loaded = load_model(name, random_init=True, seed=2)
    options = ConsensusOptions(prompts=3, tokens=24, passes=1, ffn=True, weights_mode="random", seed=4, batch_size=2)
    result = measure_consensus(loaded, options)
    ids = random_prompts(3, 24, 1000, 4)
    assert np.array_equal(ids, result.prompt_ids)
    model = loaded.model
    last = {}
    hook = model.h[-1].register_forward_hook(lambda mod, inp, out: last.__setitem__("x", out[0] if isinstance(out, tuple) else out))
    try:
        with torch.no_grad():
            out = model(input_ids=torch.as_tensor(ids), output_hidden_states=True)
    finally:
        hook.remove()
    hidden = out.hidden_states  # [embeddings, block 1, ..., block L-1, ln_f(block L)]
    L = len(model.h)
    compared = 0
    for p in range(3):
        for k in range(L):
            state = last["x"][p] if k == L - 1 else hidden[k + 1][p]
            expected = _independent(state.numpy())
            got = (result.E["E_first"][p, k], result.E["E_first_abs"][p, k], result.E["E_pair"][p, k])
            for e, g in zip(expected, got):
                assert abs(e - g) <= 1e-6
            compared += 1
    assert compared == 3 * L
    assert 0.0 < result.E["E_first"].min() < 2.0
