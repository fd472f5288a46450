"""Long runs: interrupt a run after some blocks, resume it from its checkpoint, and get the same
JSON as an uninterrupted run (only wall-clock fields and the command line differ); the float32
drift report; GPU-path options on CPU (dtype, batch size)."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

from verify.cli.main import main  # noqa: E402

ARGS = ["consensus", "gpt-neo-tiny", "--random-init", "--weights-mode", "random-fresh", "--prompts", "5", "--tokens", "12",
        "--passes", "3", "--batch-size", "2", "--no-ffn", "--anchor", "2", "--center", "--no-progress"]
VOLATILE = ("run", "seconds", "cli_options", "files")


class Interrupt(Exception):
    pass


def _stable(path):
    doc = json.loads(path.read_text())
    return {k: v for k, v in doc.items() if k not in VOLATILE}


def test_interrupt_and_resume_gives_identical_json(tmp_path, capsys, monkeypatch):
    from verify.cli.main import run

    assert main([*ARGS, "--out", str(tmp_path / "full")]) == 0
    calls = {"n": 0}

    def stop(fraction, label=None):  # one progress call per block measured
        calls["n"] += 1
        if calls["n"] == 23:  # inside batch 2 (of 3), pass 3 (of 3): earlier passes were checkpointed
            raise Interrupt

    with pytest.raises(Interrupt):
        run(cmd_args([*ARGS, "--out", str(tmp_path / "cut")]), progress=stop)  # the CLI's call with this progress callback
    assert (tmp_path / "cut" / "checkpoint" / "state.npz").is_file() and not (tmp_path / "cut" / "consensus.json").exists()
    rc = main([*ARGS, "--out", str(tmp_path / "cut")])  # without --resume: refused, names the option
    assert rc == 2 and "--resume" in capsys.readouterr().err
    assert main([*ARGS, "--out", str(tmp_path / "cut"), "--resume"]) == 0
    resumed = json.loads((tmp_path / "cut" / "consensus.json").read_text())
    assert resumed["run"]["resumed_at"] == {"batch": 1, "pass": 2}
    assert _stable(tmp_path / "cut" / "consensus.json") == _stable(tmp_path / "full" / "consensus.json")
    assert not (tmp_path / "cut" / "checkpoint").exists()  # finished: nothing left to resume
    a, b = np.load(tmp_path / "cut" / "consensus.npz"), np.load(tmp_path / "full" / "consensus.npz")
    np.testing.assert_array_equal(a["E_pair"], b["E_pair"])


def cmd_args(argv):
    from verify.cli.main import build_parser

    return build_parser().parse_args(argv)


def test_resume_of_another_run_is_refused(tmp_path, capsys, monkeypatch):
    from verify.cli.main import run

    calls = {"n": 0}

    def stop(fraction, label=None):  # one progress call per block measured
        calls["n"] += 1
        if calls["n"] == 9:
            raise Interrupt

    with pytest.raises(Interrupt):
        run(cmd_args([*ARGS, "--out", str(tmp_path)]), progress=stop)
    rc = main([*[a if a != "3" else "4" for a in ARGS], "--out", str(tmp_path), "--resume"])
    assert rc == 2 and "resume" in capsys.readouterr().err


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_drift_is_measured_against_float32(dtype, capsys):
    rc = main(["consensus", "gpt2-tiny", "--random-init", "--prompts", "3", "--tokens", "10", "--passes", "2", "--dtype", dtype,
               "--batch-size", "2", "--compare-float32", "--weights-mode", "random-fresh", "--format", "json", "--no-progress"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    doc = json.loads(captured.out)
    drift = doc["float32_drift"]
    assert doc["provenance"]["dtype"] == dtype and drift["dtype"] == dtype and drift["prompts"] == 2
    per_block = drift["max_abs_diff_per_block"]["E_first"]
    assert len(per_block) == doc["layers"] == 8
    assert 0 < drift["max_abs_diff"]["E_first"] < 0.1  # half precision differs, but not wildly, over 8 blocks


def test_float32_drift_against_itself_is_zero():
    from llm_checks.consensus import ConsensusOptions, measure_consensus
    from llm_checks.loaders import load_model

    r = measure_consensus(load_model("llama-tiny", random_init=True), ConsensusOptions(prompts=2, tokens=8, passes=2, weights_mode="random",
                                                                                     compare_float32=True))
    assert r.drift["max_abs_diff"] == {"E_first": 0.0, "E_first_abs": 0.0, "E_pair": 0.0}
