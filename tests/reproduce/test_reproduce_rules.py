"""The decision rules and the bands, on hand-made numbers (two-sided checks)."""
from __future__ import annotations

import dataclasses
import json
import math
import re

import numpy as np
import pytest
from scipy.stats import binomtest

from verify._reproduce import CLAIMS, ClaimStatus, Measurement, decide
from verify._reproduce import rules as R
from verify._reproduce.stats import UNBOUNDED, extreme, median_band, share_band


def m(mean, low, high, n=10):
    return Measurement(mean, low, high, n, "x", "10-90% quantiles")


A, C, S, T = ClaimStatus.AGREES, ClaimStatus.CONTRADICTED, ClaimStatus.NOT_SUPPORTED, ClaimStatus.NOT_TESTABLE


@pytest.mark.parametrize("rule, ms, expected", [
    (R.upper_below("a", 1.0), {"a": m(0.5, 0.2, 0.99)}, A),
    (R.upper_below("a", 1.0), {"a": m(0.5, 0.2, 1.0)}, S),
    (R.upper_below("a", 1.0), {"a": m(1.5, 1.0, 2.0)}, C),
    (R.lower_above("a", 0.0), {"a": m(0.1, 0.0, 0.3)}, S),
    (R.lower_above("a", 0.0), {"a": m(0.1, 1e-9, 0.3)}, A),
    (R.lower_above("a", 0.0), {"a": m(-0.1, -0.3, 0.0)}, C),
    (R.at_least("a", 1.0), {"a": m(1.0, 0.9, 1.0)}, A),
    (R.at_least("a", 1.0), {"a": m(0.99, 0.9, 1.0)}, S),
    (R.at_least("a", 1.0), {"a": m(0.8, 0.7, 0.9)}, C),
    (R.share_typical("a", 0.5, 0.25), {"a": m(0.8, 0.6, 0.9)}, A),
    (R.share_typical("a", 0.5, 0.25), {"a": m(0.5, 0.3, 0.7)}, S),
    (R.share_typical("a", 0.5, 0.25), {"a": m(0.1, 0.0, 0.24)}, C),
    (R.greater("a", "b"), {"a": m(2, 1.5, 2.5), "b": m(1, 0.5, 1.4)}, A),
    (R.greater("a", "b"), {"a": m(2, 1.3, 2.5), "b": m(1, 0.5, 1.4)}, S),
    (R.greater("a", "b"), {"a": m(1, 0.5, 1.4), "b": m(2, 1.5, 2.5)}, C),
    (R.decrease("a", "b", 0.5), {"a": m(1, 0.9, 1.1), "b": m(0.4, 0.3, 0.5)}, A),
    (R.decrease("a", "b", 0.5), {"a": m(1, 0.9, 1.1), "b": m(0.6, 0.5, 0.7)}, S),
    (R.decrease("a", "b", 0.5), {"a": m(1, 0.3, 1.7), "b": m(0.4, 0.1, 0.7)}, S),
    (R.decrease("a", "b", 0.5), {"a": m(1, 0.9, 1.1), "b": m(2, 1.5, 2.5)}, C),
    (R.down_trend("s", "e", 0.05), {"s": m(-1e-3, -2e-3, -1e-4), "e": m(0.01, 0.005, 0.02)}, A),
    (R.down_trend("s", "e", 0.05), {"s": m(-1e-3, -2e-3, -1e-4), "e": m(0.3, 0.2, 0.4)}, S),
    (R.down_trend("s", "e", 0.05), {"s": m(-1e-3, -2e-3, 1e-4), "e": m(0.01, 0.005, 0.02)}, S),
    (R.down_trend("s", "e", 0.05), {"s": m(1e-3, 1e-4, 2e-3), "e": m(0.01, 0.005, 0.02)}, C),
    (R.ordered("a", "b", "c"), {"a": m(3, 2.8, 3.2), "b": m(2, 1.8, 2.2), "c": m(1, 0.8, 1.2)}, A),
    (R.ordered("a", "b", "c"), {"a": m(3, 2.8, 3.2), "b": m(2, 1.8, 2.2), "c": m(2.1, 1.9, 2.3)}, S),
    (R.ordered("a", "b", "c"), {"a": m(3, 2.8, 3.2), "b": m(2, 1.8, 2.2), "c": m(3, 2.5, 3.5)}, C),
    (R.upper_below("a", 1.0), {}, T),
    (R.upper_below("a", 1.0), {"a": Measurement(math.nan, math.nan, math.nan, 3, "x", "10-90% quantiles")}, T),
    (R.all_of(R.upper_below("a", 1.0), R.upper_below("b", 1.0)), {"a": m(2, 1.5, 2.5)}, T),
    (R.all_of(R.upper_below("a", 1.0), R.upper_below("b", 1.0)), {"a": m(2, 1.5, 2.5), "b": m(0, 0, 0.5)}, C),
    (R.all_of(R.upper_below("a", 1.0), R.upper_below("b", 1.0)), {"a": m(0.9, 0.5, 1.5), "b": m(0, 0, 0.5)}, S),
    (R.all_of(R.upper_below("a", 1.0), R.upper_below("b", 1.0)), {"a": m(0, 0, 0.5), "b": m(0, 0, 0.5)}, A),
])
def test_decide(rule, ms, expected):
    status, reason = decide(rule, ms)
    assert status is expected and reason
    # the same rule read back from its JSON gives the same status and reason
    assert decide(rule.to_json(), ms) == (status, reason) == rule.evaluate(ms)


def test_rules_serialise_to_the_same_plain_json_as_before():
    assert R.upper_below("q", 1e-8).to_json() == {"kind": "upper_below", "q": "q", "threshold": 1e-8}
    assert R.greater("a", "b").to_json() == {"kind": "greater", "a": "a", "b": "b"}
    assert R.decrease("f", "l").to_json() == {"kind": "decrease", "first": "f", "last": "l", "ratio": 0.5}
    assert R.ordered("x", "y").to_json() == {"kind": "ordered", "qs": ["x", "y"]}
    nested = R.all_of(R.at_least("q", 1.0), R.lower_above("r", 0.0))
    assert nested.to_json() == {"kind": "all_of", "rules": [{"kind": "at_least", "q": "q", "threshold": 1.0},
                                                            {"kind": "lower_above", "q": "r", "threshold": 0.0}]}
    for claim in CLAIMS:  # every claim's rule round-trips through JSON
        data = json.loads(json.dumps(claim.rule.to_json()))
        assert R.from_json(data) == claim.rule and R.from_json(data).to_json() == data
    with pytest.raises(ValueError, match="unknown rule kind"):
        R.from_json({"kind": "bigger"})


def test_rules_are_frozen_and_one_sentence_each():
    rule = R.upper_below("q", 1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rule.threshold = 2.0
    for cls in R.RULES.values():
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    for claim in CLAIMS:
        text = claim.rule.describe()
        assert "agrees when" in text and "\n" not in text


def test_median_band_is_the_one_statistic():
    band = median_band([1.0, 2.0, 3.0, 4.0], "v", UNBOUNDED)
    # linear interpolation between order statistics: 10% at 1.3, median 2.5, 90% at 3.7
    assert (band.low, band.value, band.high) == pytest.approx((1.3, 2.5, 3.7), rel=1e-12)
    assert band.band == "10-90% quantiles"
    single = median_band([7.0], "v", UNBOUNDED)
    assert single.low == single.value == single.high == 7.0 and single.n == 1 and single.band == "single run (no band)"


@pytest.mark.parametrize("values, rng", [
    ([-2.220446049250313e-16, 1e-16, 3e-16], (0.0, 1.0)),   # round-off below 0 of a 1 - cos metric
    ([0.0, 0.0, 0.0, 1.9, 2.0 + 4e-16], (0.0, 2.0)),        # above the top of E_first's range
    ([-1e-16, -3e-16], (0.0, 1.0)),                        # every run below the range
    ([5.0, 1e-300, 0.3], (0.0, 1.0)),                      # an outlier outside the range
    ([0.05] + [5e-14] * 7, (0.0, 2.0)),                    # ten orders of magnitude apart (SmolLM2's prompts)
])
def test_every_band_lies_inside_the_range_and_round_off_is_shown_as_0(values, rng):
    m = median_band(values, "E", rng)
    assert rng[0] <= m.low <= m.value <= m.high <= rng[1]
    assert m.to_json()["range"] == list(rng)
    assert Measurement.from_json(m.to_json()) == m
    if min(values) < rng[0]:
        assert m.raw_min == min(values)
        if m.value == rng[0]:
            assert m.short().startswith(f"0 (round-off {min(values):.2g})")
    printed = re.sub(r"\(round-off [^)]*\)", "", m.short())
    assert not re.search(r"(^|[\s\[(,])-\d", printed), printed  # no negative number is printed (exponents aside)


def test_measurements_refuse_a_band_outside_their_range():
    with pytest.raises(ValueError, match="inside"):
        Measurement(0.5, -0.1, 0.6, 3, "E", "10-90% quantiles", None, (0.0, 1.0))


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (9, 32), (32, 32)])
def test_share_band_is_clopper_pearson(k, n):
    band = share_band(k, n, "s")
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    assert band.value == pytest.approx(k / n, rel=1e-12, abs=0)
    assert band.low == pytest.approx(ci.low, rel=1e-9, abs=1e-15)
    assert band.high == pytest.approx(ci.high, rel=1e-9, abs=1e-15)


def test_extreme_has_no_band_and_rejects_non_finite():
    e = extreme([1.0, 5.0, -2.0], "x")
    assert (e.value, e.low, e.high, e.n) == (5.0, 5.0, 5.0, 3)
    assert extreme([1.0, 5.0, -2.0], "x", kind="min").value == -2.0
    with pytest.raises(ValueError):
        extreme([1.0, math.nan], "x")


def test_every_claim_names_its_source_and_reads_only_its_cases():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids)) >= 18
    for claim in CLAIMS:
        assert claim.source and claim.claim
        for q in R.quantities(claim.rule):
            assert q.split(":", 1)[0] in claim.cases


def test_claims_say_whose_they_are():
    kinds = {c.id: c.kind.value for c in CLAIMS}
    assert kinds["check-3.2"] == kinds["check-4.2"] == kinds["check-4.4-sym"] == "self-check"
    assert kinds["thm-4.4-align"] == kinds["same-sign-not-implied"] == "spec"
    labels = {c.id: c.label for c in CLAIMS}
    other = {cid for cid, label in labels.items() if label == "on other models"}
    assert other == {"trained-faster-smollm2", "trained-faster-minilm", "periodicity-reduces-collapse-minilm"}
    assert sum(k == "paper" and cid not in other for cid, k in kinds.items()) == 14  # the paper's claims on its own models
    assert labels["rate-ordering-time"] == "speculation"
    # every paper claim about the LLMs has its own row on the paper's models, stand-in rows beside it
    assert {"llm-trained-consensus", "trained-faster", "periodicity-reduces-collapse", "llm-ffn-mixed"} <= set(kinds)


def test_per_prompt_rules_decide_by_a_sign_test_not_a_band():
    """SmolLM2's case: 7 of 8 prompts at E ~ 5e-14 and one at 0.05; the mean +- t band reaches below 0."""
    def m(values):
        return Measurement(float(np.mean(values)), float(np.min(values)), float(np.max(values)), len(values), "E", "10-90% quantiles",
                           tuple(values))

    seven = m([5e-14] * 7 + [0.05])
    assert decide(R.most_below("q", 1e-6), {"q": seven})[0] is ClaimStatus.AGREES  # 7/8: p = 9/256 < 0.05
    assert decide(R.most_below("q", 1e-6), {"q": m([5e-14] * 6 + [0.05] * 2)})[0] is ClaimStatus.NOT_SUPPORTED  # p = 0.14
    assert decide(R.most_below("q", 1e-6), {"q": m([0.05] * 8)})[0] is ClaimStatus.CONTRADICTED
    random, trained = m([0.4, 0.5, 0.45, 0.6, 0.55]), m([1e-3, 2e-3, 1e-3, 0.7, 1e-4])
    status, reason = decide(R.most_greater("r", "t"), {"r": random, "t": trained})
    assert status is ClaimStatus.NOT_SUPPORTED and "4/5 prompts" in reason  # 4/5 is p = 0.19: not significant
    assert decide(R.most_greater("t", "r"), {"r": random, "t": trained})[0] is ClaimStatus.NOT_SUPPORTED
    nine = m([0.4] * 9 + [0.1]), m([0.2] * 10)
    assert decide(R.most_greater("a", "b"), {"a": nine[0], "b": nine[1]})[0] is ClaimStatus.AGREES  # 9/10: p = 0.011
    assert decide(R.most_greater("b", "a"), {"a": nine[0], "b": nine[1]})[0] is ClaimStatus.CONTRADICTED
    no_values = Measurement(0.1, 0.0, 0.2, 5, "E", "10-90% quantiles", None)
    assert decide(R.most_below("q", 1e-6), {"q": no_values})[0] is ClaimStatus.NOT_TESTABLE
    assert R.from_json(R.most_greater("a", "b").to_json()) == R.most_greater("a", "b")


def test_random_u_rule_states_its_threshold_and_the_rate_rule_reads_early_and_time():
    rule = next(c for c in CLAIMS if c.id == "consensus-random-U").rule.to_json()
    assert {r["kind"] for r in rule["rules"]} == {"share_typical"} and len(rule["rules"]) == 6
    assert all(r["typical"] == 0.5 and r["rare"] == 0.25 for r in rule["rules"])
    qs = R.quantities(next(c for c in CLAIMS if c.id == "rate-ordering-time").rule)
    assert any(":time_to_consensus_random-identity" in q for q in qs) and any(":early_rate_constant-identity" in q for q in qs)
    assert not any("piecewise" in q for q in qs)


def test_one_band_helper():
    from numerics.evidence import clopper_pearson

    assert (share_band(3, 10, "s").low, share_band(3, 10, "s").high) == clopper_pearson(3, 10)
