"""The re-feeding measurement on every architecture equals an independent computation with plain
transformers (``output_hidden_states``), feedforward kept and removed, over two passes.

Independent computation: pass 1 is ``model(input_ids, output_hidden_states=True)``; pass 2 feeds
the final-normed output back (``inputs_embeds`` minus the learned positions for GPT-2 / GPT-Neo,
which add them again; ``inputs_embeds`` for Llama; the encoder for BERT).  ``hidden_states[k]`` is
the output of block ``k`` except the last entry, which has the final norm applied: it is compared
with the run's ``--final-ln`` value.  Feedforward removed: the MLP modules are patched to return
zero (BERT: the output sub-layer returns its input, i.e. no MLP and no LN_out)."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

from llm_checks.consensus import ConsensusOptions, measure_consensus  # noqa: E402
from llm_checks.loaders import load_model  # noqa: E402
from llm_checks.metrics import consensus_metrics  # noqa: E402
from verify.cli.main import main  # noqa: E402

TOL = 1e-6


def _remove_ffn(model, family):
    core = getattr(model, "base_model", model)
    if family == "bert":
        for layer in core.encoder.layer:
            layer.output.forward = lambda hidden, input_tensor: input_tensor
    else:
        for block in (core.h if family in ("gpt2", "gpt_neo") else core.layers):
            block.mlp.forward = lambda x: torch.zeros_like(x)


def _independent(model, family, ids, passes):
    """``(raw, normed)``: E_first after every block (raw states; final norm applied)."""
    core = getattr(model, "base_model", model)
    norm = {"gpt2": "ln_f", "gpt_neo": "ln_f", "bert": None}.get(family, "norm")
    raw, normed = [], []
    with torch.no_grad():
        x = None
        for p in range(passes):
            if family == "bert" and p > 0:  # embed once: the embedding module hands the state back unchanged
                embed = core.embeddings.forward
                core.embeddings.forward = lambda *a, x=x, **k: x
                try:
                    out = core(input_ids=ids, output_hidden_states=True)
                finally:
                    core.embeddings.forward = embed
            elif p == 0:
                out = core(input_ids=ids, output_hidden_states=True)
            elif family in ("gpt2", "gpt_neo"):
                out = core(inputs_embeds=x - core.wpe(torch.arange(ids.shape[1])[None]), output_hidden_states=True)
            else:
                out = core(inputs_embeds=x, output_hidden_states=True, use_cache=False)
            hs = out.hidden_states[1:]
            f = (lambda h: h) if norm is None else getattr(core, norm)
            for k, h in enumerate(hs):
                last = k == len(hs) - 1
                raw.append(None if last and norm is not None else consensus_metrics(h)["E_first"].numpy())
                normed.append(consensus_metrics(h if last else f(h))["E_first"].numpy())
            x = out.last_hidden_state
    return raw, np.stack(normed, axis=1)


def _compare(loaded, family, ffn, ids, normed_too=True):
    base = dict(prompts=ids.shape[0], tokens=ids.shape[1], passes=2, ffn=ffn, batch_size=ids.shape[0])
    rows = list(ids.numpy())
    raw_run = measure_consensus(loaded, ConsensusOptions(**base), prompts=rows).E["E_first"]
    normed_run = measure_consensus(loaded, ConsensusOptions(final_ln=True, **base), prompts=rows).E["E_first"] if normed_too else None
    if not ffn:
        _remove_ffn(loaded.model, family)
    raw, normed = _independent(loaded.model, family, ids, 2)
    checked = 0
    for k, value in enumerate(raw):
        if value is not None:
            np.testing.assert_allclose(raw_run[:, k], value, rtol=0, atol=TOL)
            checked += 1
    if normed_run is not None:
        np.testing.assert_allclose(normed_run, normed, rtol=0, atol=TOL)
    assert checked >= len(raw) - 2 and raw_run.shape[1] == len(raw)


@pytest.mark.parametrize("ffn", [True, False])
@pytest.mark.parametrize("name,family", [("gpt2-tiny", "gpt2"), ("gpt-neo-tiny", "gpt_neo"), ("llama-tiny", "llama"),
                                         ("bert-tiny", "bert")])
def test_refeed_equals_output_hidden_states_tiny(name, family, ffn):
    loaded = load_model(name, random_init=True, seed=3)
    loaded = type(loaded)(loaded.name, loaded.family, loaded.model, loaded.source, None, loaded.dtype)  # as if trained
    ids = torch.randint(0, 1000, (2, 12), generator=torch.Generator().manual_seed(1))  # 12 > GPT-Neo's local window 8
    _compare(loaded, family, ffn, ids)


@pytest.mark.parametrize("ffn", [True, False])
def test_refeed_equals_output_hidden_states_minilm(minilm_loaded, ffn):
    from llm_checks.loaders import load_model as fresh

    loaded = fresh("minilm") if not ffn else minilm_loaded  # the ffn-removed check patches the model
    ids = torch.randint(0, 30000, (2, 10), generator=torch.Generator().manual_seed(2))
    _compare(loaded, "bert", ffn, ids)


def test_refeed_equals_output_hidden_states_smollm2(smollm2_loaded):
    ids = torch.randint(0, 49000, (1, 10), generator=torch.Generator().manual_seed(2))
    _compare(smollm2_loaded, "llama", True, ids, normed_too=False)  # the final-norm variant is checked on llama-tiny


def test_smollm2_no_ffn_equals_independent(smollm2_loaded, monkeypatch):
    ids = torch.randint(0, 49000, (1, 10), generator=torch.Generator().manual_seed(4))
    rows = list(ids.numpy())
    base = dict(prompts=1, tokens=10, passes=2, ffn=False, batch_size=1)
    raw_run = measure_consensus(smollm2_loaded, ConsensusOptions(**base), prompts=rows).E["E_first"]
    for block in smollm2_loaded.model.layers:
        monkeypatch.setattr(block.mlp, "forward", lambda x: torch.zeros_like(x))
    raw, _ = _independent(smollm2_loaded.model, "llama", ids, 2)
    for k, value in enumerate(raw):
        if value is not None:
            np.testing.assert_allclose(raw_run[:, k], value, rtol=0, atol=TOL)


@pytest.mark.parametrize("argv", [["minilm", "--passes", "2"], ["smollm2", "--passes", "2", "--no-ffn"]])
def test_cli_consensus_real_models_exit_0(argv, capsys, minilm_loaded, smollm2_loaded, monkeypatch):
    import llm_checks.loaders as loaders

    cached = {"minilm": minilm_loaded, "smollm2": smollm2_loaded}
    real = loaders.load_model
    monkeypatch.setattr(loaders, "load_model", lambda name, **kw: cached[name] if name in cached and not kw.get("random_init") else real(name, **kw))
    rc = main(["consensus", *argv, "--prompts", "2", "--tokens", "8", "--format", "json", "--no-progress"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    doc = json.loads(captured.out)
    per = doc["metrics"]["E_first"]["per_prompt"]
    assert len(per) == 2 and len(per[0]) == doc["layers"] == 2 * doc["n_blocks"]
    assert doc["options"]["ffn"] is ("--no-ffn" not in argv)
    assert doc["cli_options"]["anchor"] == "first" and doc["provenance"]["weights"] == "loaded from file"
    median = np.median(np.clip(np.asarray(per), 0, 2), axis=0)
    assert doc["summary"]["E_first"]["final_median"] == pytest.approx(median[-1], rel=1e-12)
