"""Loader error paths: clear InvalidInput (CLI exit 2), never a traceback; pickle only on opt-in."""
from __future__ import annotations


import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

from theorems.errors import InvalidInput, UnknownName  # noqa: E402
from llm_checks.adapters import adapt  # noqa: E402
from llm_checks.loaders import load_model  # noqa: E402
from verify.cli.main import main  # noqa: E402


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    directory = tmp_path_factory.mktemp("gpt2tiny")
    loaded = load_model("gpt2-tiny", random_init=True, seed=5)
    loaded.model.save_pretrained(directory)
    return directory, loaded


def test_safetensors_round_trip(saved):
    directory, original = saved
    back = load_model("gpt2-tiny", weights=directory)
    a, b = adapt(original.model), adapt(back.model)
    assert back.source.startswith("safetensors")
    assert all(np.array_equal(x.W_Q, y.W_Q) and np.array_equal(x.W_O, y.W_O) for x, y in zip(a.layers, b.layers))
    as_path = load_model(str(directory))
    assert np.array_equal(adapt(as_path.model).layers[1].W_V, a.layers[1].W_V)


def test_pickle_refused_unless_opted_in(saved, tmp_path):
    directory, original = saved
    (tmp_path / "config.json").write_text((directory / "config.json").read_text())
    torch.save(original.model.state_dict(), tmp_path / "pytorch_model.bin")
    with pytest.raises(InvalidInput, match="pickle"):
        load_model("gpt2-tiny", weights=tmp_path)
    back = load_model("gpt2-tiny", weights=tmp_path, allow_pickle=True)
    assert "weights_only" in back.source
    assert np.array_equal(adapt(back.model).layers[3].W_K, adapt(original.model).layers[3].W_K)


def test_error_paths(saved, tmp_path):
    directory, _ = saved
    with pytest.raises(InvalidInput, match="existing directory"):
        load_model("gpt2-tiny", weights=tmp_path / "nope")
    with pytest.raises(InvalidInput, match="config.json"):
        load_model("gpt2-tiny", weights=tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(InvalidInput, match="readable transformers config"):
        load_model("gpt2-tiny", weights=tmp_path)
    (tmp_path / "config.json").write_text((directory / "config.json").read_text())
    with pytest.raises(InvalidInput, match="safetensors files next to config.json"):
        load_model("gpt2-tiny", weights=tmp_path)
    (tmp_path / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{garbage")
    with pytest.raises(InvalidInput, match="readable safetensors"):
        load_model("gpt2-tiny", weights=tmp_path)
    truncated = (directory / "model.safetensors").read_bytes()
    (tmp_path / "model.safetensors").write_bytes(truncated[: len(truncated) // 2])
    with pytest.raises(InvalidInput, match="safetensors"):
        load_model("gpt2-tiny", weights=tmp_path)
    with pytest.raises(InvalidInput, match="gpt_neo checkpoint"):
        load_model("gpt-neo-tiny", weights=directory)
    with pytest.raises(InvalidInput, match="--random-init"):
        load_model("gpt2-xl")
    with pytest.raises(InvalidInput, match="not both"):
        load_model("gpt2-tiny", weights=directory, random_init=True)
    with pytest.raises(InvalidInput, match="device"):
        load_model("gpt2-tiny", random_init=True, device="tpu")
    with pytest.raises(UnknownName, match="did you mean 'gpt2-xl'"):
        load_model("gpt2-xll", random_init=True)


def test_incomplete_checkpoint_is_rejected(saved, tmp_path):
    from safetensors.torch import load_file, save_file

    directory, _ = saved
    state = load_file(str(directory / "model.safetensors"))
    dropped = {k: v for k, v in state.items() if "h.2.attn.c_attn" not in k}
    (tmp_path / "config.json").write_text((directory / "config.json").read_text())
    save_file(dropped, str(tmp_path / "model.safetensors"), metadata={"format": "pt"})
    with pytest.raises(InvalidInput, match="missing"):
        load_model("gpt2-tiny", weights=tmp_path)


def test_cli_reports_bad_weights_with_exit_2(tmp_path, capsys):
    rc = main(["audit", "gpt2-tiny", "--weights", str(tmp_path / "missing")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "expected an existing directory" in err and "Traceback" not in err


def test_seeded_random_init_is_reproducible():
    a = adapt(load_model("gpt-neo-tiny", random_init=True, seed=7).model)
    b = adapt(load_model("gpt-neo-tiny", random_init=True, seed=7).model)
    c = adapt(load_model("gpt-neo-tiny", random_init=True, seed=8).model)
    assert np.array_equal(a.layers[0].W_Q, b.layers[0].W_Q)
    assert not np.array_equal(a.layers[0].W_Q, c.layers[0].W_Q)




def test_random_init_leaves_the_global_torch_rng_alone():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    state = torch.random.get_rng_state()
    load_model("gpt2-tiny", random_init=True, seed=0)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert torch.equal(torch.rand(3), expected)


def test_fresh_block_params_attention_is_the_same_with_and_without_mlp():
    from llm_checks.runner import fresh_block_params

    for name, family in (("gpt2-tiny", "gpt2"), ("gpt-neo-tiny", "gpt_neo")):
        model = load_model(name, random_init=True, seed=0).model
        g_with, g_without = torch.Generator().manual_seed(43), torch.Generator().manual_seed(43)
        kept = [fresh_block_params(b, family, model.config, g_with, True) for b in model.h]
        removed = [fresh_block_params(b, family, model.config, g_without, False) for b in model.h]
        assert len(kept) >= 2  # the shift showed from the second block on
        for with_mlp, without in zip(kept, removed):
            assert not any(k.startswith(("mlp.", "ln_2.")) for k in without)
            assert any(k.startswith("mlp.") for k in with_mlp)
            attn = [k for k in without if k.startswith("attn.")]
            assert attn
            for k in without:
                assert torch.equal(with_mlp[k], without[k]), (name, k)


@pytest.mark.parametrize("extra, message", [
    (["--seed", "-5"], "--seed"),
    (["--hemisphere-tokens", "1000"], "--hemisphere-tokens"),
])
def test_cli_audit_bad_seed_or_too_many_tokens_exit_2(extra, message, capsys):
    rc = main(["audit", "gpt2-tiny", "--random-init", *extra])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err


def test_hemisphere_states_rejects_prompts_longer_than_the_positions():
    from llm_checks.audit import hemisphere_states

    model = load_model("gpt2-tiny", random_init=True, seed=0).model
    n = int(model.config.max_position_embeddings)
    with pytest.raises(InvalidInput, match="tokens"):
        hemisphere_states(model, np.zeros((1, n + 1), dtype=np.int64))
