"""Theorem 3.2 from a later time: tokens in no open hemisphere at t = 0 that a validated enclosure
proves in one at t0 (verify/_theorem/late_entry.py).  The proof holds only with the entry
re-checked; instances that never enter, or that fail another hypothesis, keep the verdict "fails";
tampered entry certificates are rejected and malformed ones are input errors."""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

import verify
from theorems.errors import InvalidInput
from verify.certificate_kinds import certificate_from_json

ROOT = Path(__file__).resolve().parents[2]
LATE = json.loads((ROOT / "examples" / "late_entry.json").read_text())


@pytest.fixture(scope="module")
def late_report():
    return verify.theorem("3.2", instance=LATE, simulate=False)


@pytest.fixture(scope="module")
def entry_json(late_report):
    step = next(s for s in late_report.record.steps if s.id == "late_entry")
    return step.certificate.to_json()


def test_late_entry_holds(late_report):
    assert late_report.verdict == "holds" and late_report.exit_code == 0
    body = late_report.to_json()
    hyp = {h["name"]: h["verdict"] for h in body["hypotheses"]}
    assert hyp["open_hemisphere"] == "fails"  # at t = 0 the tokens are in no open hemisphere
    steps = {s["id"]: s for s in body["steps"]}
    assert steps["late_entry"]["kind"] == "enclosure" and steps["late_entry"]["verdict"]["verdict"] == "holds"
    cited = steps["time_varying_consensus"]
    assert any(o["discharged_by"] == "late_entry" and o["verdict"] == "holds" for o in cited["obligations"])
    assert not any(o["discharged_by"] == "hypothesis:open_hemisphere" for o in cited["obligations"])
    assert "holds from t0" in body["explanation"]


def _field(x, P):
    """eq. 5 with full attention, U = I, beta = 1 (mpmath, for an independent check)."""
    N, d = len(x), len(x[0])
    out = []
    for i in range(N):
        s = [sum(x[i][a] * P[a][b] * x[j][b] for a in range(d) for b in range(d)) for j in range(N)]
        w = [mpmath.e ** v for v in s]
        tot = sum(w)
        v = [sum(w[j] * x[j][k] for j in range(N)) / tot for k in range(d)]
        dot = sum(v[k] * x[i][k] for k in range(d))
        out.append([v[k] - dot * x[i][k] for k in range(d)])
    return out


def test_entry_agrees_with_a_50_digit_solution(entry_json):
    """At t0 the independent 50-digit RK4 solution has <z, x_i> >= margin, and at t = 0 it does not."""
    with mpmath.workdps(50):
        P = [[mpmath.mpf(Fraction(v).numerator) / Fraction(v).denominator for v in row] for row in entry_json["P"][0]]
        x = [[mpmath.mpf(int(v)) for v in row] for row in entry_json["tokens"]]
        t0 = Fraction(entry_json["t0"])
        n = 400
        h = mpmath.mpf(t0.numerator) / t0.denominator / n
        for _ in range(n):
            k1 = _field(x, P)
            k2 = _field([[a + h / 2 * b for a, b in zip(r, q)] for r, q in zip(x, k1)], P)
            k3 = _field([[a + h / 2 * b for a, b in zip(r, q)] for r, q in zip(x, k2)], P)
            k4 = _field([[a + h * b for a, b in zip(r, q)] for r, q in zip(x, k3)], P)
            x = [[a + h / 6 * (p + 2 * q + 2 * r + s) for a, p, q, r, s in zip(*rows)]
                 for rows in zip(x, k1, k2, k3, k4)]
        z = [mpmath.mpf(Fraction(v).numerator) / Fraction(v).denominator for v in entry_json["z"]]
        margin = Fraction(entry_json["margin"])
        dots = [sum(a * b for a, b in zip(z, row)) for row in x]
        assert min(dots) >= mpmath.mpf(margin.numerator) / margin.denominator
        assert min(sum(a * b for a, b in zip(z, row)) for row in LATE["tokens"]) <= 0


def test_saved_certificate_rechecks(tmp_path):
    report = verify.theorem("3.2", instance=LATE, simulate=False, save=tmp_path)
    path = tmp_path / "3_2__late_entry.json"
    assert str(path) in report.files
    assert verify.recheck(path).verdict == "holds"


@pytest.mark.parametrize("key, value, why", [
    ("t0", "0", "at t = 0 the tokens e1 and -e1 have <z, x> = 0"),
    ("t0", "1/1000000", "the enclosure cannot prove the margin this early"),
    ("z", ["1", "0", "0"], "<e1-direction, -e1> < 0"),
    ("z", ["0", "0", "-1"], "the e3 token has <z, x> ~ -1"),
    ("margin", "1", "|<z, x>| <= |z| < 1"),
    ("margin", "-1/10", "a margin must be positive"),
    ("horizon", "1/100", "the run stops before t0"),
    ("mask", "causal", "causally, -e1 only sees e1 and itself and never moves"),
    ("tokens", [["1", "0", "0"], ["-1", "0", "0"], ["0", "-1", "0"], ["0", "0", "-1"]], "another start"),
])
def test_tampered_entry_is_rejected(entry_json, key, value, why):
    data = copy.deepcopy(entry_json)
    data[key] = value
    assert certificate_from_json(data).recheck().status.value == "fails", why


@pytest.mark.parametrize("key, value", [
    ("kind", "depth-window"), ("format", "x"), ("version", 2), ("extra", 1), ("horizon", "1000"),
    ("z", ["1", "0"]), ("t0", "a/b"), ("tokens", [["0", "0", "0"], ["1", "0", "0"]]), ("mask", "diagonal"),
    ("P", []), ("label", 7), ("beta", "-1"),
])
def test_malformed_entry_is_an_input_error(entry_json, key, value):
    data = copy.deepcopy(entry_json)
    data[key] = value
    with pytest.raises(InvalidInput):
        certificate_from_json(data)


def test_never_entering_instance_still_fails():
    no_entry = json.loads((ROOT / "examples" / "no_entry.json").read_text())
    report = verify.theorem("3.2", instance=no_entry, simulate=False)
    assert report.verdict == "not_applicable" and report.exit_code == 6
    assert "no later entry was proved" in report.to_json()["explanation"]


def test_another_failing_hypothesis_has_no_late_route():
    data = copy.deepcopy(LATE)
    data["heads"][0]["U"] = [[1, 0, 0], [0, 2, 0], [0, 0, 1]]
    report = verify.theorem("3.2", instance=data, simulate=False)
    assert report.verdict == "not_applicable"
    assert not any(s["id"] == "late_entry" for s in report.to_json()["steps"])


def test_hemisphere_start_uses_the_plain_route():
    report = verify.theorem("3.2", simulate=False)
    assert report.verdict == "holds"
    assert not any(s["id"] == "late_entry" for s in report.to_json()["steps"])
