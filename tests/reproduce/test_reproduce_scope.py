"""What a claim row may claim: no two rules contradict each other, claims about trained or
full-size models are not decided on other weights or test shapes, one run decides nothing, and
``verify reproduce`` refuses input that would write an empty or misleading report (exit 2)."""
from __future__ import annotations

import math

import pytest

from verify.cli.main import main
from verify._reproduce import CLAIMS, SMOKE, Case, ClaimStatus, Measurement, decide, reproduce
from verify._reproduce import rules as R
from verify._reproduce.claims import Claim
from verify._reproduce.runner import build_row, figure_command
from verify._reproduce.stats import UNBOUNDED, median_band


def _orders(rule):
    """Every ``(larger, smaller)`` pair a rule asserts."""
    kind = rule["kind"]
    if kind == "all_of":
        return {p for r in rule["rules"] for p in _orders(r)}
    if kind == "greater":
        return {(rule["a"], rule["b"])}
    if kind == "decrease":
        return {(rule["first"], rule["last"])}
    if kind == "ordered":
        return set(zip(rule["qs"], rule["qs"][1:]))
    return set()


def test_no_two_claims_read_the_same_quantities_with_opposite_inequalities():
    pairs = {c.id: _orders(c.rule.to_json()) for c in CLAIMS}
    assert sum(len(p) for p in pairs.values()) >= 8  # the check saw the ordering claims
    for a in CLAIMS:
        for b in CLAIMS:
            clash = {(x, y) for x, y in pairs[a.id] if (y, x) in pairs[b.id]}
            assert not clash, (a.id, b.id, clash)


def test_llm_ffn_mixed_reads_trained_cases_only_and_says_why_it_is_not_testable():
    mixed = next(c for c in CLAIMS if c.id == "llm-ffn-mixed")
    hurts = next(c for c in CLAIMS if c.id == "llm-ffn-random-hurts")
    assert "trained" in mixed.claim.lower()
    assert not set(R.quantities(mixed.rule)) & set(R.quantities(hurts.rule))
    assert all(q.split(":")[0].endswith("-trained") for q in R.quantities(mixed.rule))
    row = build_row(mixed, {})
    assert row.status is ClaimStatus.NOT_TESTABLE
    assert "needs the trained GPT-2 XL and GPT-Neo 2.7B weights, not available offline" in row.reason


def test_asymptotic_rate_ordering_claim_is_gone_and_the_time_one_kept():
    ids = {c.id for c in CLAIMS}
    assert "rate-ordering" not in ids and "rate-ordering-time" in ids
    assert not any("sim-grid:rate_" in q for c in CLAIMS for q in R.quantities(c.rule))


def _shape_case(model):
    def run(scale, progress):
        return {"measurements": {"first": median_band([1.0, 1.1, 0.9], f"{model}: first", UNBOUNDED),
                                 "last": median_band([0.1, 0.11, 0.09], f"{model}: last", UNBOUNDED)},
                "details": {"model": model}}
    return run


def test_a_claim_about_a_large_model_is_not_decided_on_a_test_shape():
    claim = Claim("big", "about gpt2-xl", "test", ("shape",), R.decrease("shape:first", "shape:last"),
                  models=(("shape", "gpt2-xl"),))
    tiny = reproduce(SMOKE, extra_cases=[Case("shape", "t", _shape_case("gpt2-tiny"))], only=["shape"], claims=(claim,)).rows[0]
    assert tiny.status is ClaimStatus.NOT_TESTABLE
    assert "gpt2-tiny" in tiny.reason and "gpt2-xl" in tiny.reason and "'agrees'" in tiny.reason
    assert set(tiny.measurements) == {"shape:first", "shape:last"}  # the measurement is kept
    big = reproduce(SMOKE, extra_cases=[Case("shape", "t", _shape_case("gpt2-xl"))], only=["shape"], claims=(claim,)).rows[0]
    assert big.status is ClaimStatus.AGREES


def test_large_model_claims_declare_their_models():
    for cid in ("llm-depth-noffn", "llm-depth-ffn", "llm-ffn-random-hurts"):
        claim = next(c for c in CLAIMS if c.id == cid)
        assert dict(claim.models) == {"llm-gpt2": "gpt2-xl", "llm-neo": "gpt-neo-2.7B"}


@pytest.mark.parametrize("rule", [R.upper_below("q", 1e-8), R.lower_above("q", 0.0), R.greater("q", "r"),
                                  R.decrease("r", "q"), R.ordered("r", "q")])
def test_a_single_run_has_no_band_and_decides_nothing(rule):
    ms = {"q": median_band([1e-9], "one run", UNBOUNDED), "r": median_band([5.0, 5.1, 4.9], "three runs", UNBOUNDED)}
    status, reason = decide(rule, ms)
    assert status is ClaimStatus.NOT_TESTABLE and "single run has no band" in reason
    ms["q"] = median_band([1e-9, 2e-9], "two runs", UNBOUNDED)
    assert decide(rule, ms)[0] is not ClaimStatus.NOT_TESTABLE


def test_single_checks_and_means_are_still_decided():
    one = Measurement(1.0, 1.0, 1.0, 1, "x", "single check")
    assert decide(R.upper_below("q", 2.0), {"q": one})[0] is ClaimStatus.AGREES
    assert decide(R.at_least("q", 1.0), {"q": median_band([1.0], "x", UNBOUNDED)})[0] is ClaimStatus.AGREES


def test_median_band_says_how_many_runs_were_dropped():
    m = median_band([1.0, math.nan, 2.0, math.inf, 3.0], "rate", UNBOUNDED)
    assert m.n == 3 and "2 of 5 runs non-finite, dropped" in m.what
    assert median_band([1.0, 2.0], "rate", UNBOUNDED).what == "rate"


def test_figure_commands_cover_a_claim():
    for case in ("sim-3.2", "llm-gpt2", "llm-minilm"):
        only = figure_command(SMOKE, case).split("--only ")[1].split()[0].split(",")
        assert only[0] == case and any(set(c.cases) <= set(only) for c in CLAIMS), case


@pytest.mark.parametrize("argv, message", [
    (["--device", "foo", "--only", "sim-3.2"], "--device"),
    (["--device", "cuda:x", "--only", "sim-3.2"], "--device"),
    (["--only", "llm-neo"], "cover at least one claim"),
    (["--only", "llm-gpt2,llm-neo", "--no-llm"], "--no-llm"),
    (["--only", "sim-3.3"], "--only: expected known case ids"),
    (["--only", "sim-3.3"], "did you mean 'sim-3.2'"),
    (["--only", ","], "at least one case"),
])
def test_reproduce_bad_input_exits_2_before_any_work(argv, message, tmp_path, capsys):
    rc = main(["reproduce", "--smoke", "--out", str(tmp_path / "r"), "--no-progress", *argv])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()
