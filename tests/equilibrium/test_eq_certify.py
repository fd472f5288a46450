"""The two shipped counterexamples certify, re-check and carry the documented figures; malformed
input is rejected with InvalidInput; instances without a counterexample stay unknown."""
from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from eq_helpers import CASES, golden, searched
from theorems.errors import InvalidInput
from theorems.verdict import Status
from verify.equilibrium import EquilibriumCertificate
from verify.equilibrium.certificate import MAX_RAD
from verify.certificate_kinds import certificate_from_json


@pytest.mark.parametrize("theorem_id", sorted(CASES))
def test_search_certifies_and_rechecks(theorem_id):
    result = searched(theorem_id)
    assert result.verdict.status is Status.FAILS, result.verdict.reason
    cert = result.certificate
    check = cert.recheck()
    assert check.holds and check.exact
    stats = check.witness
    assert 0 < Fraction(stats["box_width_max"]) <= 2 * MAX_RAD
    assert 0 <= Fraction(stats["krawczyk_contraction_le"]) < Fraction(1, 1000)
    assert Fraction(stats["decay_ge"]) > 0
    assert 0 < Fraction(stats["lyapunov_margin_ge"]) <= 1
    again = certificate_from_json(json.loads(json.dumps(cert.to_json())))
    assert isinstance(again, EquilibriumCertificate) and again.to_json() == cert.to_json()
    assert again.recheck().holds


def test_later_token_counterexample_is_the_four_token_equilibrium():
    """Tokens 1-3 at e1 exactly (mid 0 in the chart at e1) and token 4 on the great circle x_3 = 0."""
    cert = searched("4.4-sym-later").certificate
    assert cert.data.N == 4 and cert.instance_tokens == 12 and cert.witness == (3,)
    assert cert.mid[:6] == (0,) * 6 and cert.mid[7] == 0
    assert cert.data.charts[3] == (0, -1)
    y = float(cert.mid[6])  # x_4 ~ (-1, -y, 0)/|.|  with <v, x_4> ~ -0.8204 (docs/model.md, README)
    assert abs(-1 / (1 + y * y) ** 0.5 - (-0.82042)) < 1e-4
    # the documented decay: the token-4 block has eigenvalues ~ -0.690 and ~ -0.672; the bound is below both
    assert 0.6 < float(Fraction(cert.recheck().witness["decay_ge"])) < 0.672


def test_same_sign_counterexample_is_e1_minus_e1():
    cert = searched("4.4-same-sign").certificate
    assert cert.data.N == 2 and cert.witness == (0, 1)
    assert cert.mid == (0, 0, 0, 0) and cert.data.charts == ((0, 1), (0, -1))
    # token 1's block is exactly (lambda_k - lambda_1) = -19/20 twice: the decay bound is just below 19/20
    decay = Fraction(cert.recheck().witness["decay_ge"])
    assert Fraction(9, 10) < decay < Fraction(19, 20)


def test_golden_files_match_a_fresh_search():
    for theorem_id in CASES:
        assert golden(theorem_id) == searched(theorem_id).certificate.to_json()


def _mutate(data, path, value):
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize("path, value", [
    (("box", "mid", 0), 0.5),                       # a float
    (("box", "mid", 0), "1/0"),
    (("box", "mid", 0), "1" * 500),                 # too many digits
    (("box", "mid"), ["0"] * 3),                     # wrong size
    (("system", "d"), 1),
    (("system", "d"), True),
    (("system", "mask"), "sliding"),
    (("charts", 0, "sign"), 0),
    (("charts", 0, "pivot"), 3),
    (("stability", 0, "S"), [["1"]]),
    (("witness",), [0, 1]),
    (("witness",), [12]),
    (("precision_bits",), 10),
    (("refutes",), "consensus"),
    (("version",), 2),
    (("system", "extra"), 1),
])
def test_malformed_certificates_raise_invalid_input(path, value):
    data = _mutate(copy.deepcopy(golden("4.4-sym-later")), path, value)
    with pytest.raises(InvalidInput):
        certificate_from_json(data)


def test_missing_key_is_invalid_input():
    data = copy.deepcopy(golden("4.4-same-sign"))
    del data["stability"]
    with pytest.raises(InvalidInput, match="stability"):
        certificate_from_json(data)


def test_no_counterexample_is_unknown_never_holds():
    """4.4-sym's own example ends with every token at +-e1: the later-token search finds nothing."""
    from theorems.catalogue.examples import example_4_4_sym
    from verify._theorem.check import check_theorem

    report = check_theorem("4.4-sym-later", example_4_4_sym(), simulate=False)
    assert report.status is Status.UNKNOWN
    assert report.steps[0].verdict.status is Status.UNKNOWN and report.steps[0].certificate is None


def test_same_sign_hypothesis_fails_for_indefinite_u():
    from theorems.catalogue.examples import example_4_4_sym
    from verify._theorem.check import check_theorem

    report = check_theorem("4.4-same-sign", example_4_4_sym(), simulate=False)
    assert report.status is Status.FAILS and not report.steps
    assert [v.name for v in report.hypotheses.failing] == ["U_positive_definite"]


@pytest.mark.parametrize("theorem_id", ["4.4-sym-later", "4.4-same-sign"])
def test_default_examples_satisfy_hypotheses_and_are_refuted(theorem_id):
    from theorems.catalogue import get
    from verify._theorem.check import check_theorem

    assert get(theorem_id).check().status is Status.HOLDS
    report = check_theorem(theorem_id, simulate=False)
    assert report.status is Status.FAILS and report.certificates


@pytest.mark.parametrize("U, expected", [
    ([[1, 0, 0], [0, "1/20", 0], [0, 0, "1/20"]], Status.HOLDS),
    ([[2, 1, 0], [1, 2, 1], [0, 1, 2]], Status.HOLDS),
    ([[1, 0, 0], [0, "-1/2", 0], [0, 0, -2]], Status.FAILS),
    ([[1, 2, 0], [2, 1, 0], [0, 0, 1]], Status.FAILS),       # symmetric, indefinite (eigenvalue -1)
    ([[1, 0, 0], [0, 0, 0], [0, 0, 1]], Status.FAILS),       # semidefinite only
    ([[2, 1, 0], [0, 2, 0], [0, 0, 2]], Status.FAILS),       # not symmetric
    ([[1, 0, 0], [0, "sqrt(2)", 0], [0, 0, 1]], Status.UNKNOWN),
])
def test_u_positive_definite_predicate(U, expected):
    from theorems.predicates.u_definite import UPositiveDefinite
    from theorems.system_build import simple_system

    system = simple_system([[1, 0, 0], [0, 1, 0], [0, 0, 1]], U, [[1, 0, 0]], mask="causal")
    assert UPositiveDefinite().evaluate(system).status is expected
