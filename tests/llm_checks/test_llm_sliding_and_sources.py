"""Mistral / Qwen2 through the Llama adapter only with their sliding windows (in the audit layout and
in the measurement's mask); Hugging Face ids from a local cache laid out in a temporary directory;
provenance that identifies the weights; the memory estimate before a random init."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")
transformers = pytest.importorskip("transformers")

from llm_checks.adapters import adapt  # noqa: E402
from llm_checks.loaders import load_model, random_model  # noqa: E402
from theorems.errors import InvalidInput  # noqa: E402
from verify.cli.main import main  # noqa: E402

SMALL = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
             vocab_size=100, max_position_embeddings=64)


def _states(model, ids):
    from llm_checks.runner import refeed

    out = {}
    refeed(model, ids, passes=1, ffn=True, on_block=lambda k, h: out.__setitem__(k, h.clone()))
    return out


@pytest.mark.parametrize("config", [transformers.MistralConfig(sliding_window=4, **SMALL),
                                    transformers.Qwen2Config(use_sliding_window=True, sliding_window=4, max_window_layers=1, **SMALL)])
def test_sliding_window_is_in_the_layout_and_the_mask(config):
    model = random_model(config, 0)
    layout = adapt(model)
    expected = [4, 4] if config.model_type == "mistral" else [None, 4]
    assert list(layout.windows) == expected
    ids = torch.randint(0, 100, (1, 10), generator=torch.Generator().manual_seed(0))
    changed = ids.clone()
    changed[0, 0] = (changed[0, 0] + 1) % 100  # token 0 is outside token 9's window of 4
    a, b = _states(model, ids), _states(model, changed)
    assert torch.equal(a[0][0, 9], b[0][0, 9]) is (expected[0] is not None)
    with torch.no_grad():  # the model's own forward (its own sliding-window mask) agrees with the re-feeding stack
        hs = model(input_ids=ids, output_hidden_states=True).hidden_states
    np.testing.assert_allclose(a[0].numpy(), hs[1].numpy(), rtol=0, atol=1e-5)


def test_unreadable_sliding_configuration_is_refused():
    config = transformers.Qwen2Config(use_sliding_window=True, sliding_window=4, max_window_layers=1, **SMALL)
    model = random_model(config, 0)
    model.config.layer_types = ["full_attention", "chunked_attention"]
    with pytest.raises(InvalidInput, match="layer_types"):
        adapt(model)


def _cache(tmp_path, repo="acme/tiny-gpt2"):
    model = load_model("gpt2-tiny", random_init=True, seed=4).model
    snap = tmp_path / "hub" / ("models--" + repo.replace("/", "--")) / "snapshots" / "abc123"
    model.save_pretrained(snap)
    (snap.parent.parent / "refs").mkdir()
    (snap.parent.parent / "refs" / "main").write_text("abc123")
    return tmp_path / "hub"


def test_hf_id_resolves_from_a_local_cache(tmp_path, monkeypatch, capsys):
    hub = _cache(tmp_path)
    capsys.readouterr()
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    loaded = load_model("gpt2-tiny", weights="acme/tiny-gpt2")
    prov = loaded.provenance()
    assert prov["weights"] == "loaded from file" and prov["model"] == "gpt2-tiny"
    assert prov["files"] and prov["files"][0]["path"].startswith(str(hub.resolve())) and len(prov["files"][0]["sha256"]) == 64
    rc = main(["consensus", "acme/missing-model", "--prompts", "2", "--tokens", "8", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "looked in" in err and str(hub) in err and "Traceback" not in err


def test_a_checkpoint_of_another_shape_is_not_labelled_with_the_name(tmp_path, capsys):
    load_model("gpt2-tiny", random_init=True, seed=4).model.save_pretrained(tmp_path / "small")
    capsys.readouterr()
    prov = load_model("gpt2-xl", weights=str(tmp_path / "small")).provenance()
    assert prov["model"] != "gpt2-xl" and "given as 'gpt2-xl'" in prov["model"]
    assert prov["shape"] == {"architecture": "gpt2", "n_layers": 4, "d_model": 64, "n_heads": 4}


def test_memory_estimate_is_announced_before_a_random_init():
    events = []
    load_model("gpt2-tiny", random_init=True, on_event=events.append)
    assert any("M parameters" in e and "GiB" in e for e in events)
    from llm_checks.registry import get_spec
    from llm_checks.sources import memory_estimate

    est = memory_estimate(get_spec("gpt2-xl").build_config(), "float32")
    assert 1.5e9 < est["parameters"] < 1.7e9 and est["bytes"] == 4 * est["parameters"]
