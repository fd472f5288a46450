"""The moving-consensus route: consensus (``|x_i - x_j| -> 0``) while the common point keeps rotating.

Random instance 14 (full mask, two heads, ``N = 2``, ``d = 4``, rightmost eigenvalues of ``U_s``
``0.80 +- 0.19i``, ``sym(U_s)`` indefinite) never settles: the cluster rotates.  The route certifies it
with a region around the dominant invariant plane; attacks must not certify.
"""
from __future__ import annotations

import copy
import json
from dataclasses import replace
from fractions import Fraction

import pytest

from fate_cases import diameter, instance_json, oracle, random_problem
from verify.certificate_kinds import certificate_from_json
from verify._fate import Fate, certify_fate
from verify._fate.moving import Moving, check_moving, kappa
from verify._fate.moving_hints import propose_moving

SEED = 14


@pytest.fixture(scope="module")
def report():
    r = certify_fate(random_problem(SEED, nonsymmetric=True))
    assert r.fate is Fate.CONSENSUS and r.route == "moving-consensus", r.reason
    return r


@pytest.fixture(scope="module")
def golden(report):
    return json.loads(json.dumps(report.certificate.to_json()))


def test_rotating_instance_is_certified_without_a_limit(report):
    assert report.limit is None and report.certificate.moving is not None
    data = report.to_json()
    assert data["limit"] is None and "no limit x* is reported" in data["message"]
    assert "limit: none claimed" in report.render()
    assert report.certificate.moving.region is not None  # sym(U_s) is indefinite: the region is needed


def test_golden_rechecks_from_json(golden):
    verdict = certificate_from_json(golden).recheck()
    assert verdict.holds, verdict.reason


def test_oracle_diameter_is_small_at_ten_times_entry(report):
    X = oracle(report.certificate.problem, 10 * float(report.entry_time))
    assert diameter(X) < 1e-3


def _set(data, path, value):
    out = copy.deepcopy(data)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value(node[path[-1]]) if callable(value) else value
    return out


def _scale(factor):
    return lambda v: str(Fraction(v) * factor)


TAMPER = {
    "mu doubled": (("moving", "mu"), _scale(2)),
    "Dmax x4": (("moving", "Dmax"), _scale(4)),
    "entry too early": (("entry",), "1/8"),
    "U entry changed": (("instance", "heads", 0, "U", 1, 1), _scale(-3)),
    "P entry changed": (("instance", "heads", 0, "P", 0, 0), "8"),
    "beta huge": (("instance", "beta"), "100000"),  # kappa <= 0 (a moderate beta may still be a true claim)
    "G entry changed": (("moving", "G", 0, 0), _scale(-1)),
    "g_lo above G": (("moving", "g_lo"), _scale(1000)),
    "g_hi below G": (("moving", "g_hi"), _scale(Fraction(1, 1000))),
    "U norm bound lowered": (("moving", "unorm", 0), _scale(Fraction(1, 4))),
    "P norm bound lowered": (("moving", "pnorm", 1), _scale(Fraction(1, 4))),
    "gamma lowered": (("moving", "region", "gamma"), _scale(Fraction(-1))),
    "Q norm bound lowered": (("moving", "region", "qnorm"), _scale(Fraction(1, 8))),
    "region dropped": (("moving", "region"), None),
    "causal mask": (("instance", "mask"), "causal"),
    "fate relabelled": (("fate",), "non-consensus"),
    "route changed": (("route",), "projective"),
}


@pytest.mark.parametrize("name", sorted(TAMPER))
def test_tampered_certificate_is_rejected(golden, name):
    path, value = TAMPER[name]
    cert = certificate_from_json(_set(golden, path, value))
    assert not cert.recheck().holds, name


def test_diameter_bound_just_above_the_threshold_is_refused(report):
    problem, m = report.certificate.problem, report.certificate.moving
    lo, hi = m.Dmax, Fraction(2)
    assert kappa(problem, replace(m, Dmax=lo)) > 0 >= kappa(problem, replace(m, Dmax=hi))
    for _ in range(40):  # exact bisection for the root of kappa
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if kappa(problem, replace(m, Dmax=mid)) > 0 else (lo, mid)
    above = replace(m, Dmax=hi)
    assert not check_moving(problem, above).ok
    assert not check_moving(problem, replace(m, Dmax=hi * 2)).ok


def test_global_claim_with_indefinite_sym_U_is_refused(report):
    """Without the region, ``x^T G U_s x >= mu x^T G x`` on the whole sphere is false for G = I (sym(U_s) indefinite)."""
    problem, m = report.certificate.problem, report.certificate.moving
    eye = tuple(tuple(Fraction(int(a == b)) for b in range(problem.d)) for a in range(problem.d))
    bad = Moving(eye, Fraction(1), Fraction(1), Fraction(1, 100), Fraction(0), m.unorm, m.pnorm, Fraction(1, 10**6))
    out = check_moving(problem, bad)
    assert not out.ok and "step b" in out.reason


@pytest.mark.parametrize("seed", [22, 23])  # full mask, rightmost real part of U_s < 0: no consensus (float)
def test_no_candidate_when_the_rightmost_real_part_is_negative(seed):
    candidates, why = propose_moving(random_problem(seed, nonsymmetric=True))
    assert candidates == [] and "no moving-consensus certificate" in why


def test_full_mask_data_do_not_prove_a_causal_instance(report):
    problem, m = report.certificate.problem, report.certificate.moving
    out = check_moving(replace(problem, mask="causal"), m)
    assert not out.ok and "causal data" in out.reason


CAUSAL_SEED = 8  # causal, one head, N = 3, d = 3, rightmost eigenvalues 1.42 +- 0.11i: token 1 rotates forever


@pytest.fixture(scope="module")
def causal_golden():
    r = certify_fate(random_problem(CAUSAL_SEED, nonsymmetric=True))
    assert r.fate is Fate.CONSENSUS and r.route == "moving-consensus", r.reason
    assert r.certificate.moving.causal is not None and r.limit is None
    return json.loads(json.dumps(r.certificate.to_json()))


def test_causal_rotation_rechecks(causal_golden):
    verdict = certificate_from_json(causal_golden).recheck()
    assert verdict.holds, verdict.reason


CAUSAL_TAMPER = {
    "weight of token 2 lowered": (("moving", "causal", "c", 0), _scale(Fraction(1, 10**6))),
    "lam lowered": (("moving", "causal", "lam", 0), _scale(Fraction(1, 100))),
    "lam_s lowered": (("moving", "causal", "lam_s"), _scale(Fraction(1, 100))),
    "eta zero": (("moving", "causal", "eta"), "0"),
    "mu doubled": (("moving", "mu"), _scale(2)),
    "causal data dropped": (("moving", "causal"), None),
    "mask full": (("instance", "mask"), "full"),
    "entry too early": (("entry",), "1/8"),
    "Dmax 3/2": (("moving", "Dmax"), "3/2"),  # (x100 is still a true claim here)
}


@pytest.mark.parametrize("name", sorted(CAUSAL_TAMPER))
def test_tampered_causal_certificate_is_rejected(causal_golden, name):
    path, value = CAUSAL_TAMPER[name]
    cert = certificate_from_json(_set(causal_golden, path, value))
    assert not cert.recheck().holds, name


@pytest.mark.parametrize("seed", [17, 76])  # causal consensus in float, but (d') fails for every p and both self bounds
def test_causal_without_the_diagonal_margin_is_refused(seed):
    assert propose_moving(random_problem(seed, nonsymmetric=True))[0] == []


def test_the_public_call_reports_the_route_in_its_published_schema():
    import jsonschema

    import verify
    from verify.report import schema_path

    report = verify.fate(instance=instance_json(random_problem(SEED, nonsymmetric=True)))
    payload = report.to_json()
    jsonschema.validate(payload, json.loads(schema_path("fate").read_text()))
    assert payload["fate"] == "consensus" and payload["route"] == "moving-consensus" and payload["limit"] is None
    assert report.exit_code == 0
