"""`verify consensus` end to end on a small random GPT-2 with the feedforward removed, plus the
protocol's options (weights modes, bands) and its input errors."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

from llm_checks.consensus import ConsensusOptions, measure_consensus  # noqa: E402
from llm_checks.loaders import load_model  # noqa: E402
from theorems.errors import InvalidInput  # noqa: E402
from verify.cli.main import main  # noqa: E402


def test_cli_consensus_no_ffn(tmp_path, capsys):
    plot = tmp_path / "fig" / "e.png"
    rc = main(["consensus", "gpt2-tiny", "--random-init", "--no-ffn", "--prompts", "4", "--tokens", "16",
               "--passes", "2", "--out", str(tmp_path / "run"), "--plot", str(plot), "--format", "json"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    payload = json.loads(captured.out)
    assert payload["options"]["ffn"] is False and payload["options"]["weights_mode"] == "random"
    assert payload["layers"] == 8 and payload["provenance"]["dtype"] == "float32"
    assert "blocks" in captured.err  # the progress bar
    npz = np.load(tmp_path / "run" / "consensus.npz")
    assert npz["E_first"].shape == (4, 8) and npz["prompt_ids"].shape == (4, 16)
    median = np.median(np.clip(npz["E_first"], 0, 2), axis=0)
    np.testing.assert_allclose(npz["E_first_median"], median, rtol=0, atol=1e-15)
    assert np.all(npz["E_first_lower"] <= median) and np.all(median <= npz["E_first_upper"])
    assert json.loads((tmp_path / "run" / "consensus.json").read_text())["summary"] == payload["summary"]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv,message", [
    (["--prompts", "0"], "prompts"),
    (["--weights-mode", "trained"], "real weights"),
    (["--device", "cuda:7"] if not torch.cuda.is_available() else ["--device", "tpu"], "device"),
])
def test_cli_consensus_bad_input_exits_2(argv, message, capsys):
    rc = main(["consensus", "gpt2-tiny", "--random-init", "--prompts", "2", "--tokens", "8", *argv, "--no-progress"]
              if "--prompts" not in argv else ["consensus", "gpt2-tiny", "--random-init", "--tokens", "8", *argv])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err


def test_weights_modes_and_band():
    loaded = load_model("gpt2-tiny", random_init=True, seed=0)
    base = dict(prompts=3, tokens=12, passes=3, ffn=False, seed=1)
    periodic = measure_consensus(loaded, ConsensusOptions(weights_mode="random", **base))
    fresh = measure_consensus(loaded, ConsensusOptions(weights_mode="random-fresh", **base))
    again = measure_consensus(loaded, ConsensusOptions(weights_mode="random-fresh", **base))
    L = periodic.n_blocks
    np.testing.assert_array_equal(periodic.E["E_pair"][:, :L], fresh.E["E_pair"][:, :L])  # pass 0: same weights
    assert not np.array_equal(periodic.E["E_pair"][:, L:], fresh.E["E_pair"][:, L:])  # later passes re-drawn
    np.testing.assert_array_equal(fresh.E["E_pair"], again.E["E_pair"])  # seeded 42+i+1: reproducible
    median, lo, hi = periodic.band("E_first")  # the one statistic: median, 10% and 90% quantiles over prompts
    values = periodic.E["E_first"]
    np.testing.assert_allclose(median, np.median(values, axis=0), rtol=1e-15, atol=0)
    np.testing.assert_allclose(lo, np.quantile(values, 0.1, axis=0), rtol=1e-15, atol=0)
    np.testing.assert_allclose(hi, np.quantile(values, 0.9, axis=0), rtol=1e-15, atol=0)
    with pytest.raises(InvalidInput):
        ConsensusOptions(weights_mode="fresh")
    llama = measure_consensus(load_model("llama-tiny", random_init=True), ConsensusOptions(prompts=1, tokens=4, weights_mode="random"))
    assert llama.E["E_first"].shape == (1, 2)  # every adapter is measured now (issue 12), not only GPT-2 / GPT-Neo


def test_cli_consensus_trained_weights_from_directory(tmp_path, capsys):
    load_model("gpt-neo-tiny", random_init=True, seed=9).model.save_pretrained(tmp_path / "neo")
    capsys.readouterr()  # save_pretrained draws its own bar
    rc = main(["consensus", "gpt-neo-tiny", "--weights", str(tmp_path / "neo"), "--prompts", "2", "--tokens", "12",
               "--passes", "2", "--format", "json", "--no-progress"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    doc = json.loads(captured.out)
    assert doc["options"]["weights_mode"] == "trained" and doc["options"]["ffn"] is True
    assert doc["provenance"]["source"].startswith("safetensors") and doc["layers"] == 8
    assert captured.err == ""


@pytest.mark.parametrize("extra, message", [
    (["--seed", "-1"], "--seed"),
    (["--out", "/proc/no/such/dir"], "--out"),
    (["--out", "FILE"], "--out"),
    (["--plot", "x.txt"], ".png"),
    (["--plot", "DIR.png"], "--plot"),
])
def test_cli_consensus_bad_outputs_exit_2_before_measuring(extra, message, tmp_path, capsys, monkeypatch):
    import llm_checks.consensus as consensus

    def never(*args, **kwargs):
        raise AssertionError("measured before checking the outputs")

    monkeypatch.setattr(consensus, "measure_consensus", never)
    (tmp_path / "FILE").write_text("x")
    (tmp_path / "DIR.png").mkdir()
    extra = [str(tmp_path / e) if e in ("FILE", "DIR.png") else e for e in extra]
    rc = main(["consensus", "gpt2-tiny", "--random-init", "--prompts", "2", "--tokens", "8", "--no-progress", *extra])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err
    assert (tmp_path / "FILE").read_text() == "x"


def test_cli_consensus_out_probe_leaves_no_directory(tmp_path, capsys):
    from verify.outputs import check_dir

    check_dir("--out", tmp_path / "a" / "b")  # the check that --out can be created creates nothing
    assert not (tmp_path / "a").exists()


def test_consensus_options_reject_a_negative_seed():
    with pytest.raises(InvalidInput, match="seed"):
        ConsensusOptions(seed=-1)
