"""One statistic everywhere: the consensus text, JSON and figure give the same median and 10-90% band,
every band inside the metric's range, and round-off below zero shown as 0 with its raw value."""
from __future__ import annotations

import re

import numpy as np
import pytest

from llm_checks.consensus import ConsensusOptions, ConsensusResult
from numerics.spread import METRIC_RANGES, show, spread

ROUNDOFF = -2.220446049250313e-16


def _cases():
    rng = np.random.default_rng(7)
    decay = np.exp(-np.arange(8) / 2)[None, :]
    return {
        "two prompts far apart": {k: np.vstack([np.full(8, 0.01), np.full(8, hi)]) for k, hi in
                                  (("E_first", 1.9), ("E_first_abs", 0.9), ("E_pair", 0.95))},
        "negative round-off": {k: np.vstack([decay[0] * 0.5, np.r_[decay[0, :-1] * 0.5, ROUNDOFF], np.full(8, ROUNDOFF)])
                               for k in METRIC_RANGES},
        "one prompt": {k: decay * 0.3 for k in METRIC_RANGES},
        "random spread": {k: rng.random((9, 8)) * METRIC_RANGES[k][1] for k in METRIC_RANGES},
        "all converged": {k: np.zeros((4, 8)) for k in METRIC_RANGES},
    }


def _record(E):
    n = E["E_first"].shape[0]
    return ConsensusResult(ConsensusOptions(prompts=n, tokens=8, passes=2, ffn=False, weights_mode="random"),
                           {"model": "toy", "source": "test", "dtype": "float64", "device": "cpu"}, 4, E,
                           np.zeros((n, 8), dtype=np.int64))


def _number(text: str) -> float:
    return float(text.split(" (round-off")[0])


@pytest.mark.parametrize("case", list(_cases()))
def test_text_json_and_figure_show_the_same_statistic_inside_the_range(case):
    E = _cases()[case]
    record = _record(E)
    summary = record.to_json()["summary"]
    text = record.render()
    fig = record.figure()
    lines = {line.get_label().split(":")[0]: line for line in fig.axes[0].get_lines()}
    for name, (lo, hi) in METRIC_RANGES.items():
        row = summary[name]
        s = spread(E[name], (lo, hi))
        assert row["final_median"] == s.median[-1] and row["final_band"] == [s.low[-1], s.high[-1]]
        assert row["first_block_median"] == s.median[0] and row["first_block_band"] == [s.low[0], s.high[0]]
        for value in (row["final_median"], row["first_block_median"], row["min_median"], *row["final_band"],
                      *row["first_block_band"]):
            assert lo <= value <= hi, (name, value)
        assert row["final_band"][0] <= row["final_median"] <= row["final_band"][1]
        m = re.search(rf"^  {name} +(\S+) +(\S+(?: \(round-off \S+\))?) +\[(.+), (\S+)\]$", text, re.M)
        assert m, text
        shown = [_number(m.group(1)), _number(m.group(2)), _number(m.group(3)), _number(m.group(4))]
        expected = [row["first_block_median"], row["final_median"], *row["final_band"]]
        np.testing.assert_allclose(shown, expected, rtol=1e-5, atol=0)
        assert all(v >= lo for v in shown)  # nothing printed below the range
        if name in lines:  # the single-prompt figure draws the run itself, which is the median
            drawn = lines[name].get_ydata()
            floor = 1e-17 if fig.axes[0].get_yscale() == "log" else lo
            np.testing.assert_allclose(drawn[-1], max(row["final_median"], floor), rtol=1e-12, atol=0)


def test_round_off_is_shown_as_zero_with_its_raw_value():
    record = _record(_cases()["negative round-off"])
    row = record.to_json()["summary"]["E_pair"]
    assert row["final_median"] == 0.0 and row["final_raw_min"] == ROUNDOFF
    assert "0 (round-off -2.2e-16)" in record.render()
    assert "-2.2" not in record.render().replace("(round-off -2.2e-16)", "")
    assert show(0.0, ROUNDOFF) == "0 (round-off -2.2e-16)" and show(0.5, ROUNDOFF) == "0.5"


def test_two_prompts_never_give_a_band_outside_the_metric():
    row = _record(_cases()["two prompts far apart"]).to_json()["summary"]["E_first"]
    assert 0 <= row["final_band"][0] <= row["final_band"][1] <= 2  # the old mean +- t band was [-1.29, 2.68]
