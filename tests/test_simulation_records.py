"""The typed summaries of a simulation (numerics.evidence.RunSummary / BatchSummary): their JSON is the
``simulate`` contract's (key order included) and the console text is rendered from their attributes."""
from __future__ import annotations

import dataclasses
import json

import pytest

import verify
from numerics.dop853 import DOP853
from numerics.evidence import HEMISPHERE_NOTE, BatchSummary, RunSummary, batch_summary, summarize
from numerics.metrics import RateFit
from numerics.metrics_mp import summarize_mp
from numerics.presets import preset, with_random_tokens
from numerics.taylor import TaylorMP
from verify.simulation import Simulation

FIT = RateFit(rate=2.0, intercept=-1.0, t_from=0.5, t_to=3.0, points=6, residual=0.01)


def test_a_run_summary_is_the_contracts_json_and_text():
    s = RunSummary("cos", 3.0, 1e-3, 2e-3, 4e-3, 1e-6, None, 2.5, FIT, hemisphere_margin=0.25, hemisphere_entry=1.0,
                   resolution=0.5)
    assert json.dumps(s.to_json()) == json.dumps({
        "E_variant": "cos",
        "final": {"t": 3.0, "E_first": 1e-3, "E_pair": 2e-3, "V": 4e-3, "hemisphere_margin": 0.25},
        "events": {"E_pair_below_eps": {"eps": 1e-6, "t": None}, "E_first_below_eps": {"eps": 1e-6, "t": 2.5},
                   "open_hemisphere": {"t": 1.0, "resolution": 0.5, "note": HEMISPHERE_NOTE}},
        "fitted_rate": {"rate": 2.0, "intercept": -1.0, "t_from": 0.5, "t_to": 3.0, "points": 6,
                        "rms_residual_log": 0.01, "metric": "E_pair"}})
    assert s.render().splitlines() == [
        "at t=3: E_first(cos)=1.000e-03  E_pair=2.000e-03  V=4.000e-03  hemisphere margin=0.25",
        "tokens in an open hemisphere from t=1", "E_pair stays >= 1e-06", "fitted rate of E_pair: 2 on [0.5, 3]"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.t = 4.0  # type: ignore[misc]


def test_without_hemisphere_or_fit_and_with_high_precision():
    s = RunSummary("abs", 2.0, "1.0e-5", "2.0e-5", "3.0e-5", 1e-6, 1.5, None, None, bits=99, digits=20)
    out = s.to_json()
    assert list(out) == ["E_variant", "metrics_precision", "final", "events", "fitted_rate"]
    assert out["metrics_precision"]["bits"] == 99 and out["metrics_precision"]["digits"] == 20
    assert "hemisphere_margin" not in out["final"] and "open_hemisphere" not in out["events"]
    assert s.render().splitlines() == [
        "metrics computed with 99 bits from the high-precision states, 20 significant digits:",
        "at t=2: E_first(abs)=1.0e-5  E_pair=2.0e-5  V=3.0e-5  hemisphere margin=nan",
        "tokens never in an open hemisphere at the samples", "E_pair < 1e-06 from t=1.5",
        "no rate fitted (too few samples above round-off)"]


def test_summaries_of_runs_are_typed_and_agree_with_their_series():
    system = preset("constant-identity-full", N=6, d=3, seed=1)
    run = summarize(DOP853().integrate([system], 3.0, samples=9), 0, "cos")
    assert isinstance(run, RunSummary) and run.t == 3.0 and run.digits is None and run.hemisphere_margin is not None
    assert run.to_json()["final"]["E_pair"] == run.E_pair
    mp = summarize_mp(TaylorMP(digits=20).integrate(system, 1.0, samples=4), 0, "cos")
    assert isinstance(mp, RunSummary) and isinstance(mp.E_pair, str) and mp.digits == 20
    batch = batch_summary(DOP853().integrate(with_random_tokens(system, 4, 0), 2.0, samples=5), "abs")
    assert isinstance(batch, BatchSummary) and batch.instances == 4
    out = batch.to_json()
    assert list(out) == ["instances", "band", "t", "E_first", "E_pair", "V", "final_E_pair"]
    median, low, high = batch.final_E_pair
    assert out["final_E_pair"] == {"median": median, "band": [low, high], "min": batch.final_min,
                                   "max": batch.final_max}
    assert out["E_pair"]["median"][-1] == median and len(out["t"]) == 5
    assert batch.render().startswith("4 initial conditions: final E_pair median ")


def test_the_simulate_report_carries_the_typed_summary():
    r = verify.simulate(t_end=1, points=5)
    assert isinstance(r.record, Simulation) and isinstance(r.record.summary, RunSummary)
    assert r.payload["final"] == r.record.summary.to_json()["final"]
    assert r.text.endswith(r.record.summary.render())
    b = verify.simulate(t_end=1, points=3, samples=2)
    assert isinstance(b.record.summary, BatchSummary) and b.to_json()["batch"] == b.record.summary.to_json()
    assert b.text.splitlines()[-1] == b.record.summary.render()
