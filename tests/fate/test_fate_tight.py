"""The second, tighter enclosure: run only after the default one grows too wide, named in the
certificate, and re-checked with the enclosure the certificate names (never silently the default)."""
from __future__ import annotations

import copy
import dataclasses
import json
from fractions import Fraction

import pytest

from fate_cases import assert_named_enclosure_only, random_problem
from theorems.errors import InvalidInput
from verify._fate import Fate, certify_fate, fate_from_file
from verify._fate import flow
from verify._fate.certificate_json import ENCLOSURE_NAMES
from verify.certificate_kinds import certificate_from_json


@pytest.fixture(scope="module")
def golden():
    report = fate_from_file("examples/counterexample_same_sign.json")
    assert report.fate is Fate.NON_CONSENSUS
    return json.loads(json.dumps(report.certificate.to_json()))


def test_the_names_in_json_are_the_enclosures():
    assert ENCLOSURE_NAMES == tuple(flow.ENCLOSURES)
    assert flow.ENCLOSURES["default"] is flow.OPTIONS
    tight = flow.ENCLOSURES["tight"]
    assert tight.tol < flow.OPTIONS.tol and tight.prec > flow.OPTIONS.prec and tight.order > flow.OPTIONS.order
    assert not flow.OPTIONS.damping and not tight.damping
    assert flow.ENCLOSURES["damped"] == dataclasses.replace(tight, damping=True)


STATUSES = ("entered", "t_max", "step_too_small", "max_steps", "width")


@pytest.mark.parametrize("statuses", [(s,) for s in STATUSES[:-1]] + [("width", s) for s in STATUSES[:-1]]
                         + [("width", "width", s) for s in STATUSES])
def test_each_next_enclosure_runs_only_after_width(monkeypatch, statuses):
    """default, then tight, then damped: the next one only when the previous one grew too wide; the
    last one's result is returned whatever its status."""
    calls = []

    def fake(field, tokens, t_max, entered, options):
        calls.append(options)
        status = statuses[len(calls) - 1]
        return flow.FlowRun(status == "entered", Fraction(1), (), 3, status, 0.0)

    monkeypatch.setattr(flow, "run_until", fake)
    run, name = flow.run_tiered(None, None, Fraction(5), lambda X: False)
    assert calls == [flow.OPTIONS, flow.TIGHT, flow.DAMPED][:len(statuses)]
    assert name == ("default", "tight", "damped")[len(statuses) - 1]
    assert run.status == statuses[-1]


def test_default_certificates_name_no_enclosure_and_load_as_default(golden):
    assert "enclosure" not in golden
    assert certificate_from_json(golden).enclosure == "default"


def test_a_certificate_naming_the_tight_enclosure_rechecks_with_it(golden):
    data = copy.deepcopy(golden)
    data["enclosure"] = "tight"
    cert = certificate_from_json(data)
    assert cert.enclosure == "tight" and cert.to_json()["enclosure"] == "tight"
    verdict = cert.recheck()
    assert verdict.holds, verdict.reason


@pytest.mark.parametrize("value", ["huge", "TIGHT", "Damped", "", 1, 1.0, None, ["tight"], {"order": 40}])
def test_an_unknown_enclosure_is_bad_input(golden, value):
    data = copy.deepcopy(golden)
    data["enclosure"] = value
    with pytest.raises(InvalidInput) as err:
        certificate_from_json(data)
    assert "certificate.enclosure" in str(err.value)


@pytest.mark.parametrize("value", ["huge", ["tight"], None, 1])
def test_an_enclosure_name_set_in_code_is_checked_before_any_run(golden, value):
    cert = dataclasses.replace(certificate_from_json(golden), enclosure=value)
    verdict = cert.recheck()
    assert not verdict.holds and "enclosure must be one of" in verdict.reason


@pytest.mark.slow
def test_seed_21_needs_the_tight_enclosure_and_its_certificate_says_so():
    """Random general-U instance 21 (causal, 2 heads, beta = 2): the default enclosure grows too
    wide at t ~ 41, the tight one enters the certified basin at t ~ 52.5.  Renamed to ``default``,
    the same certificate is rejected: the re-check never falls back on its own."""
    report = certify_fate(random_problem(21, nonsymmetric=True), t_max="100")
    assert report.fate is Fate.CONSENSUS and report.route == "basin"
    assert_named_enclosure_only(report, "tight", "default")


@pytest.mark.parametrize("name, says", [("default", ""), ("tight", "with the tight enclosure"),
                                        ("damped", "with the damped enclosure")])
def test_an_unknown_names_the_enclosure_that_grew_too_wide(name, says):
    from verify._fate.driver import _why

    run = flow.FlowRun(False, Fraction(58), (), 900, "width", 0.51)
    text = _why(run, "certified region", Fraction(300), name)
    assert text.startswith("the enclosure grew too wide (width 0.51 at t = 58)")
    assert (says in text) if says else "enclosure, after" not in text
