"""The catalogue: no vacuous theorem, symbolic claims proved, registry lookups."""
from __future__ import annotations

import pytest
import sympy

from theorems import UnknownName
from theorems.catalogue import all_theorems, get
from theorems.catalogue.claim_ln1 import _difference
from theorems.verdict import Status

EXPECTED_IDS = {"weights", "3.2", "4.2", "4.4-sym", "4.4-hemisphere", "iss-causal", "grad-energy", "D1", "LN1",
                "4.4-sym-later", "4.4-same-sign"}


def test_registry_has_every_result_of_the_spec():
    assert {th.id for th in all_theorems()} == EXPECTED_IDS


@pytest.mark.parametrize("theorem", all_theorems(), ids=lambda th: th.id)
def test_example_satisfies_every_hypothesis(theorem):
    report = theorem.check()
    assert report.status is Status.HOLDS, [v for v in report.verdicts if not v.holds]
    assert len(report.verdicts) == len(theorem.hypotheses)
    payload = report.to_json()
    assert payload["verdict"] == "holds"
    assert payload["theorem"]["citation"] and payload["theorem"]["reading"]


@pytest.mark.parametrize("theorem", [th for th in all_theorems() if th.kind != "claim"], ids=lambda th: th.id)
def test_results_other_than_claims_have_hypotheses(theorem):
    assert theorem.hypotheses


def test_claims_are_proved_symbolically():
    for claim_id in ("D1", "LN1"):
        proof = get(claim_id).proof()
        assert proof.status is Status.HOLDS and proof.exact


def test_ln1_proof_detects_a_wrong_radius():
    wrong = _difference(3, radius=sympy.sqrt(2))
    assert any(v != 0 for v in wrong)
    assert all(v == 0 for v in _difference(3))


@pytest.mark.parametrize("alias,expected", [("4.4", "4.4-sym"), ("theorem 4.2", "4.2"), ("ln1", "LN1"), ("3.2", "3.2")])
def test_aliases(alias, expected):
    assert get(alias).id == expected


def test_unknown_id_suggests_close_matches():
    with pytest.raises(UnknownName) as err:
        get("4.3")
    assert "4.2" in str(err.value) and "did you mean" in str(err.value)
