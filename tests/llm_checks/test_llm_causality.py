"""The measurement is causal: changing the last prompt token leaves every earlier token's state
unchanged after every block of every pass; and the pitfall it guards against is real (a GPT-2
block called without a mask under eager attention is not causal)."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

from llm_checks.loaders import load_model  # noqa: E402
from llm_checks.runner import refeed  # noqa: E402


def _states(model, ids, **kw):
    out = {}
    refeed(model, ids, on_block=lambda k, h: out.__setitem__(k, h.clone()), **kw)
    return out


@pytest.mark.parametrize("name", ["gpt2-tiny", "gpt-neo-tiny"])
@pytest.mark.parametrize("ffn,fresh", [(True, False), (False, False), (False, True)])
def test_changing_the_last_token_leaves_earlier_states_unchanged(name, ffn, fresh):
    model = load_model(name, random_init=True, seed=1).model
    ids = torch.randint(0, 1000, (2, 20), generator=torch.Generator().manual_seed(0))  # 20 > GPT-Neo local window 8
    changed = ids.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 1000
    a = _states(model, ids, passes=2, ffn=ffn, fresh=fresh)
    b = _states(model, changed, passes=2, ffn=ffn, fresh=fresh)
    assert len(a) == 2 * len(model.h)
    for k in a:
        assert torch.equal(a[k][:, :-1], b[k][:, :-1]), f"block {k}: an earlier token saw the last one"
        assert not torch.equal(a[k][:, -1], b[k][:, -1]), f"block {k}: the last token did not change"


def test_gpt2_block_without_mask_is_not_causal():
    """The pitfall (docs/model.md §5): eager GPT-2 attention with attention_mask=None attends to the future."""
    model = load_model("gpt2-tiny", random_init=True, seed=1).model
    ids = torch.randint(0, 1000, (1, 12), generator=torch.Generator().manual_seed(0))
    changed = ids.clone()
    changed[0, -1] = (changed[0, -1] + 1) % 1000
    block = model.h[0]
    with torch.no_grad():
        outs = []
        for x in (ids, changed):
            h = model.wte(x) + model.wpe(torch.arange(12)[None])
            outs.append(block.attn(block.ln_1(h), attention_mask=None)[0])
    assert not torch.equal(outs[0][:, :-1], outs[1][:, :-1])
    assert (outs[0][:, 0] - outs[1][:, 0]).abs().max() > 1e-6
