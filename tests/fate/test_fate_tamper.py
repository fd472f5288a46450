"""Tampered fate certificates are rejected; malformed files are bad input naming the field."""
from __future__ import annotations

import copy
import json

import pytest

from fate_cases import disagreement, random_problem
from theorems.errors import InvalidInput
from verify.certificate_kinds import certificate_from_json
from verify._fate import Fate, certify_fate, fate_from_file


@pytest.fixture(scope="module")
def golden():
    report = fate_from_file("examples/counterexample_same_sign.json")
    assert report.fate is Fate.NON_CONSENSUS
    return json.loads(json.dumps(report.certificate.to_json()))


def _set(data, path, value):
    out = copy.deepcopy(data)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value(node[path[-1]]) if callable(value) else value
    return out


TAMPER = {
    "entry too early": (("entry",), "1/8"),
    "box midpoint moved": (("basin", "mid", 0), lambda v: str(__import__("fractions").Fraction(v) + __import__("fractions").Fraction(1, 7))),
    "level r too large": (("basin", "r"), "1000"),
    "box radius below krad": (("basin", "R", 0), "1/2147483648"),
    "S indefinite": (("basin", "S", 0, 0), "-1"),
    "beta changed": (("instance", "beta"), "7"),
    "U changed": (("instance", "heads", 0, "U", 1, 1), "3"),
    "start mirrored": (("instance", "tokens"), lambda t: [[("-" + v).replace("--", "") for v in row] for row in t]),
    "fate relabelled": (("fate",), "consensus"),
    "route changed": (("route",), "hemisphere"),
}


@pytest.mark.parametrize("name", sorted(TAMPER))
def test_tampered_certificate_is_rejected(golden, name):
    path, value = TAMPER[name]
    cert = certificate_from_json(_set(golden, path, value))
    verdict = cert.recheck()
    assert not verdict.holds, name


def test_golden_rechecks(golden):
    assert certificate_from_json(golden).recheck().holds


MALFORMED = {
    "float rational": (("entry",), 2.5),
    "unknown key": (("basin", "extra"), 1),
    "bad kind": (("kind",), "fates"),
    "bad fate": (("fate",), "chaos"),
    "bad sign": (("basin", "charts", 0, "sign"), 0),
    "short S": (("basin", "S"), [["1"]]),
    "bad mask": (("instance", "mask"), "diagonal"),
    "zero denominator": (("basin", "r"), "1/0"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_certificate_is_bad_input(golden, name):
    path, value = MALFORMED[name]
    with pytest.raises(InvalidInput):
        certificate_from_json(_set(golden, path, value))


@pytest.mark.parametrize("path,value,field", [
    (("instance", "beta"), "0", "certificate.instance.beta"),
    (("instance", "tokens", 1), ["0", "0", "0"], "certificate.instance.tokens[1]"),
    (("instance", "beta"), "-1/2", "certificate.instance.beta"),
])
def test_instance_errors_name_the_path_in_the_file(golden, path, value, field):
    """The instance's own checks (a rational > 0, nonzero tokens) name the field by its path in the certificate
    and show the value as written there."""
    with pytest.raises(InvalidInput) as err:
        certificate_from_json(_set(golden, path, value))
    assert err.value.field == field and "Fraction" not in str(err.value)


@pytest.mark.parametrize("seed", [201, 202, 207])  # non-consensus, cap, two-head basin
def test_small_random_instances_agree_with_50_digit_simulation(seed):
    report = certify_fate(random_problem(seed, max_N=3, max_d=3), t_max=60)
    assert report.certified, report.reason
    assert report.certificate.recheck().holds
    assert disagreement(report, factor=10.0, digits=50) < 1e-3
