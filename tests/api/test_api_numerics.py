"""The numeric-side façade calls: ``verify.simulate``, ``verify.audit``, ``verify.consensus`` return the
frozen report the CLI renders, with the typed library record behind it; high-precision metrics carry
their digits; options that would have no effect are refused, never ignored."""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import subprocess
import sys

import mpmath
import numpy as np
import pytest

import verify
from numerics.metrics import E_first, E_pair, V_first
from numerics.metrics_mp import E_first_mp, E_pair_mp, V_first_mp, decimal
from numerics.trajectory import Trajectory
from theorems.errors import InvalidInput
from theorems.system_json import system_from_dict
from verify.cli.main import main
from verify.simulation import Simulation

os.environ.setdefault("HF_HUB_OFFLINE", "1")
TORCH = importlib.util.find_spec("torch") is not None and importlib.util.find_spec("transformers") is not None
needs_torch = pytest.mark.skipif(not TORCH, reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

TWO = {"name": "two", "d": 3, "beta": 1, "mask": "full", "heads": [{"P": "zero", "U": [[5, 0, 0], [0, 5, 0], [0, 0, 5]]}],
       "tokens": [[1, 0, 0], ["3/5", "4/5", 0]]}
"""Two tokens, full attention, P = 0, U = 5 I: a = <x_1, x_2> solves da/dt = 5 (1 - a^2), so
a(t) = tanh(5 t + artanh(3/5)) and E_pair = (1 - a)/2 = 1 / (4 e^(10 t) + 1) exactly."""


CTX = mpmath.MPContext()
CTX.prec = 200  # a private context for the oracle (mpmath.mp is never changed)


def _exact_E_pair(t: float):
    return 1 / (4 * CTX.exp(10 * CTX.mpf(t)) + 1)


def test_simulate_without_a_preset_says_which_one_it_used_and_returns_a_frozen_report():
    r = verify.simulate(t_end=2, points=5)
    assert r.kind == "simulate" and r.status == "completed" and r.exit_code == 0 and r.verdict is None
    source = r.payload["source"]
    assert source == {"kind": "preset", "name": "constant-identity-full", "default": True, "tokens": 12, "dim": 3, "seed": 0}
    assert r.text.splitlines()[0].startswith("no preset or instance given: simulating the default preset constant-identity-full")
    traj = r.record.trajectory
    assert isinstance(r.record, Simulation) and isinstance(traj, Trajectory) and traj.states.shape == (5, 1, 12, 3)
    assert r.payload["final"]["E_pair"] == pytest.approx(float(E_pair(traj.states[-1, 0])), rel=1e-12, abs=0)
    assert {k: v for k, v in r.to_json().items() if k not in ("schema_version", "kind")} == r.record.to_json()
    assert r.record.render() == r.text  # the record owns its text and its JSON; the report wraps them
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.exit_code = 3
    copy = r.to_json()
    copy["final"]["E_pair"] = -1.0
    copy["source"]["name"] = "tampered"
    assert r.to_json()["final"]["E_pair"] >= 0 and r.payload["source"]["name"] == "constant-identity-full"
    given = verify.simulate("constant-identity-full", t_end=2, points=5)
    assert given.payload["source"]["default"] is False and not given.text.startswith("no preset")
    assert given.payload["final"] == r.payload["final"]  # the same instance, the same numbers


def test_simulate_an_instance_with_digits_computes_the_metrics_at_that_precision():
    r = verify.simulate(instance=system_from_dict(TWO), t_end=5, digits=30, points=11)
    assert r.payload["source"] == {"kind": "instance", "file": None} and r.payload["metrics_precision"]["digits"] == 30
    text = r.payload["final"]["E_pair"]
    assert isinstance(text, str) and len(re.sub(r"e.*$|[-.]", "", text)) == 30  # 30 significant digits
    exact = _exact_E_pair(5.0)
    got = CTX.mpf(text)
    assert abs(got - exact) <= CTX.mpf(10) ** -25 * exact  # two-sided, relative: 25 digits agree
    float64 = float(E_pair(r.record.trajectory.states[-1, 0]))
    assert float64 <= 0 or abs(float64 - float(exact)) > 1e-3 * float(exact)  # float64 is round-off here (~1e-16 vs 5e-23)
    assert f"E_pair={text}" in r.text
    assert r.payload["fitted_rate"]["rate"] == pytest.approx(10.0, rel=1e-6)  # the exact rate, read off the mp series


def test_simulate_an_instance_file_through_the_facade(tmp_path):
    path = tmp_path / "two.json"
    path.write_text(json.dumps(TWO))
    out = tmp_path / "sim.json"
    r = verify.simulate(instance=path, t_end=1, points=5, json_out=out)
    assert r.payload["source"] == {"kind": "instance", "file": str(path)} and r.payload["instance"] == "two"
    assert r.files == (str(out),) and json.loads(out.read_text()) == r.to_json()
    assert r.payload["final"]["E_pair"] == pytest.approx(float(_exact_E_pair(1.0)), rel=1e-6)


def test_mp_metrics_agree_with_float64_where_float64_is_accurate():
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(5):
        X = rng.standard_normal((6, 4)) * rng.uniform(0.5, 3.0, size=(6, 1))  # unnormalised rows: cosines
        for variant in ("cos", "abs"):
            assert float(E_first_mp(X, variant, anchor=2, prec=100)) == pytest.approx(float(E_first(X, variant, 2)), rel=1e-12)
        assert float(E_pair_mp(X, prec=100)) == pytest.approx(float(E_pair(X)), rel=1e-12)
        assert float(V_first_mp(X, prec=100)) == pytest.approx(float(V_first(X)), rel=1e-12)
        checked += 1
    assert checked == 5
    assert decimal(mpmath.mpf(1) / 3, 12) == "3.33333333333e-1"
    with pytest.raises(InvalidInput, match="anchor"):
        E_first_mp(np.eye(3), anchor=3, prec=80)


@pytest.mark.parametrize("kwargs, field", [
    ({"instance": TWO, "tokens": 5}, "tokens"),
    ({"instance": TWO, "dim": 4}, "dim"),
    ({"instance": TWO, "seed": 1}, "seed"),
    ({"digits": 20, "rtol": 1e-8}, "rtol"),
    ({"digits": 20, "atol": 1e-8}, "atol"),
    ({"force": True}, "force"),
    ({"digits": 20, "samples": 3}, "samples"),
])
def test_simulate_refuses_an_option_it_would_ignore(kwargs, field):
    with pytest.raises(InvalidInput) as info:
        verify.simulate(t_end=1, points=3, **kwargs)
    assert info.value.field == field and str(info.value).startswith(f"{field}: ")


@pytest.mark.parametrize("extra, flag", [(["--tokens", "5"], "--tokens"), (["--dim", "4"], "--dim"), (["--seed", "2"], "--seed"),
                                         (["--digits", "20", "--rtol", "1e-8"], "--rtol")])
def test_the_cli_refuses_a_flag_it_would_ignore_naming_it(extra, flag, tmp_path, capsys):
    path = tmp_path / "two.json"
    path.write_text(json.dumps(TWO))
    assert main(["simulate", "--instance", str(path), "--t-end", "1", "--points", "3", *extra]) == 2
    err = capsys.readouterr().err
    assert f"error: {flag}: has no effect" in err and "Traceback" not in err


def test_importing_verify_and_simulating_never_imports_torch():
    code = ("import sys, verify; r = verify.simulate(t_end=1, points=3); verify.audit; verify.consensus; "
            "assert r.status == 'completed'; print(sorted(m for m in ('torch', 'transformers', 'llm_checks') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def tiny():
    """gpt2-tiny with random weights, loaded once (no download, no weight files)."""
    if not TORCH:
        pytest.skip("needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")
    from llm_checks.loaders import load_model

    return load_model("gpt2-tiny", random_init=True, seed=0)


@needs_torch
def test_audit_on_a_tiny_random_model_returns_the_audit_record(tiny):
    from llm_checks.audit import AuditReport
    from theorems.verdict import VERDICT_EXIT, applicability

    r = verify.audit(tiny, theorem="4.2", hemisphere_tokens=8)
    assert r.kind == "audit" and isinstance(r.record, AuditReport)
    assert r.verdict == applicability(r.record.status) and r.exit_code == VERDICT_EXIT[r.verdict]
    assert [t["id"] for t in r.payload["theorems"]] == ["4.2"] and r.payload["hemisphere"]
    assert r.verdict == "not_applicable"  # gpt2's U^h has rank d_head < D: U = I fails in every head
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.record.seconds = {}
    copy = r.to_json()
    copy["theorems"].clear()
    assert r.to_json()["theorems"] and r.text.startswith("audit of gpt2-tiny")
    with pytest.raises(InvalidInput, match="random_init"):
        verify.audit(tiny, random_init=True)  # a loading option on a loaded model has no effect


@needs_torch
def test_consensus_on_a_tiny_model_returns_the_measurement_and_writes_its_files(tmp_path):
    from llm_checks.consensus import ConsensusResult

    out = tmp_path / "run"
    r = verify.consensus("gpt2-tiny", random_init=True, prompts=2, tokens=8, out=out)
    assert r.kind == "consensus" and r.status == "completed" and r.exit_code == 0 and r.verdict is None
    assert isinstance(r.record, ConsensusResult) and r.record.E["E_first"].shape == (2, r.record.n_blocks)
    assert r.payload["summary"] == json.loads(json.dumps(r.record.summary()))
    assert r.files == (str(out / "consensus.json"), str(out / "consensus.npz"))
    assert json.loads((out / "consensus.json").read_text()) == r.to_json()
    assert not (out / "checkpoint").exists()  # a finished run leaves no checkpoint directory
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.record.n_blocks = 0
    copy = r.to_json()
    copy["summary"]["E_first"]["final_median"] = -1
    assert r.payload["summary"]["E_first"]["final_median"] >= 0
