"""The three routes on instances with a known fate, the certificate's JSON round trip and ``verify recheck``'s table."""
from __future__ import annotations

import json
import random
from fractions import Fraction

import numpy as np
import pytest

from fate_cases import disagreement, eye, limit_points
from theorems.errors import InvalidInput
from theorems.system_json import load_system
from verify.certificate_kinds import certificate_from_json
from verify._fate import Fate, FateCertificate, FateProblem, certify_fate, fate_from_file, problem_from_system


def hemisphere_problem(seed: int, mask: str) -> FateProblem:
    """U = I, random P, tokens with positive first coordinate (an open hemisphere, around e1 as well)."""
    rng = random.Random(seed)
    d, N = rng.randint(2, 3), rng.randint(2, 4)
    P = tuple(tuple(Fraction(rng.randint(-8, 8), 8) for _ in range(d)) for _ in range(d))
    toks = tuple((Fraction(rng.randint(1, 8), 8),) + tuple(Fraction(rng.randint(-8, 8), 8) for _ in range(d - 1))
                 for _ in range(N))
    return FateProblem(Fraction(1), mask, ((P, eye(d)),), toks, True, f"hemisphere-{seed}")


def test_same_sign_counterexample_is_certified_non_consensus():
    report = fate_from_file("examples/counterexample_same_sign.json")
    assert report.fate is Fate.NON_CONSENSUS and report.route == "basin"
    assert report.exit_code == 0 and 0 < report.entry_time < 10
    assert [list(g) for g in report.limit.groups] == [[0], [1]]
    x1, x2 = limit_points(report)
    np.testing.assert_allclose(x1, [1, 0, 0], atol=1e-8)
    np.testing.assert_allclose(x2, [-1, 0, 0], atol=1e-8)
    data = json.loads(json.dumps(report.to_json()))
    assert data["fate"] == "non-consensus" and data["verdict"] == "holds"
    cert = certificate_from_json(data["certificate"])
    assert isinstance(cert, FateCertificate) and cert == report.certificate
    verdict = cert.recheck()
    assert verdict.holds, verdict.reason
    assert "fate of counterexample-same-sign: non-consensus" in report.render()


@pytest.mark.parametrize("mask", ["full", "causal"])
@pytest.mark.parametrize("seed", [1, 2])
def test_hemisphere_instances_with_identity_values_are_consensus(mask, seed):
    p = hemisphere_problem(seed, mask)
    report = certify_fate(p, t_max=20)
    assert report.fate is Fate.CONSENSUS, report.reason
    assert report.route == ("hemisphere" if mask == "full" else "cap")
    assert report.entry_time == 0  # already in the hemisphere / cap at t = 0
    assert report.certificate.recheck().holds
    assert disagreement(report, factor=50, digits=30) < 1e-3  # entry at t = 0: compare at t = 50


def test_late_hemisphere_entry_is_certified():
    # full mask, U = I, P = I: three tokens in no open hemisphere (every gap is below 180 degrees)
    toks = ((Fraction(1), Fraction(0)), (Fraction(-3, 5), Fraction(4, 5)), (Fraction(0), Fraction(-1)))
    p = FateProblem(Fraction(1), "full", ((eye(2), eye(2)),), toks, False, "late")
    report = certify_fate(p, t_max=30)
    assert report.fate is Fate.CONSENSUS and report.entry_time > 0, report.reason
    assert report.certificate.recheck().holds


def test_antipodal_pair_is_unknown():
    # e1, -e1 with U = I: an equilibrium that never enters a hemisphere
    toks = ((Fraction(1), Fraction(0)), (Fraction(-1), Fraction(0)))
    report = certify_fate(FateProblem(Fraction(1), "full", ((eye(2), eye(2)),), toks, False), t_max=5)
    assert report.fate is Fate.UNKNOWN and "hemisphere" in report.reason
    assert report.certificate is None and report.exit_code == 4


def test_consensus_basin_general_U():
    # one head, U = diag(1, 1/2, -1/2): the dominant eigenvector e1 attracts a consensus
    d = 3
    U = tuple(tuple(Fraction(v) if i == j else Fraction(0) for j in range(d)) for i, v in enumerate(("1", "1/2", "-1/2")))
    P = tuple(tuple(Fraction(int(i == j), 2) for j in range(d)) for i in range(d))
    toks = ((Fraction(2, 3), Fraction(2, 3), Fraction(1, 3)), (Fraction(2, 3), Fraction(-1, 3), Fraction(2, 3)))
    for mask in ("full", "causal"):
        report = certify_fate(FateProblem(Fraction(1), mask, ((P, U),), toks, False), t_max=40)
        assert report.fate is Fate.CONSENSUS and report.route in ("projective", "basin"), report.reason
        x = limit_points(report)[0]
        assert abs(abs(x[0]) - 1) < 1e-8 and abs(x[1]) < 1e-8 and abs(x[2]) < 1e-8
        assert report.certificate.recheck().holds


def test_bad_input():
    with pytest.raises(InvalidInput):
        certify_fate(hemisphere_problem(1, "full"), t_max=-1)
    with pytest.raises(InvalidInput):
        certify_fate(hemisphere_problem(1, "full"), t_max="abc")
    with pytest.raises(InvalidInput):
        problem_from_system(load_system("examples/hemisphere_full.json"))  # P(t) is not constant
    with pytest.raises(InvalidInput):
        FateProblem(Fraction(1), "sideways", ((eye(2), eye(2)),), ((Fraction(1), Fraction(0)),), False)
    with pytest.raises(InvalidInput):
        FateProblem(Fraction(1), "full", ((eye(2), eye(2)),), ((Fraction(1), Fraction(1)),), False)  # not unit
    with pytest.raises(Exception) as info:
        certify_fate("examples/counterexample_same_sign.json")
    assert "instance" in str(info.value)
