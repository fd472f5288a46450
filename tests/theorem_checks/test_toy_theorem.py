"""Adding a result touches its catalogue entry and its proof module only (docs/adding-a-result.md).

A toy entry, with its proof plan and evidence variant registered on the entry, goes through
``verify theorem`` end to end in a temporary registry; the default catalogue is not modified.
"""
from __future__ import annotations

import json

import pytest
import sympy

from theorems.catalogue import CATALOGUE, Theorem, all_theorems, get, using
from theorems.catalogue.examples import example_3_2
from theorems.errors import InvalidInput, UnknownName
from theorems.predicates.structure import MaskIs
from theorems.verdict import fails, holds
from verify.cli.main import main
from verify._theorem.check import check_theorem
from verify._theorem.obligations import ob
from verify._theorem.plan import Outcome, ProofPlan, Remarks
from verify._theorem.report import ProofStep
from verify._theorem.steps import cited_step, symbolic_step


def _square_identity():
    x = sympy.Symbol("x")
    residual = sympy.expand((x + 1) ** 2 - (x**2 + 2 * x + 1))
    return (holds if residual == 0 else fails)("toy_identity", f"residual {residual}")


class ToyPlan(ProofPlan):
    """A symbolic step and a cited step discharged by it and by a hypothesis."""

    def steps(self, system, hypotheses) -> list[ProofStep]:
        return [symbolic_step("toy_identity", "(x + 1)^2 = x^2 + 2 x + 1", _square_identity),
                cited_step("toy_conclusion", "the toy conclusion", "a toy source",
                           [ob("the identity", "toy_identity"), ob("full attention", "hypothesis:mask_full")])]

    def remarks(self, outcome: Outcome) -> Remarks:
        return Remarks(f"; toy remark on {outcome.system.name}")


def _toy(**changes) -> Theorem:
    fields = dict(id="toy", kind="lemma", title="A toy result", setting="full attention",
                  hypotheses=(MaskIs("full"),), conclusion="the toy conclusion", citation="none",
                  reading="a test entry", example=example_3_2, plan=ToyPlan(), evidence=None)
    return Theorem(**(fields | changes))


def test_a_toy_entry_runs_through_verify_theorem_end_to_end(capsys):
    with using(CATALOGUE.extended(_toy())):
        assert [th.id for th in all_theorems()][-1] == "toy"
        code = main(["theorem", "toy", "--format", "json"])
        payload = json.loads(capsys.readouterr().out)
        assert main(["theorem", "toy"]) == 0
        text = capsys.readouterr().out
    assert code == 0 and payload["verdict"] == "holds"
    assert [s["id"] for s in payload["steps"]] == ["toy_identity", "toy_conclusion"]
    assert all(o["verdict"] == "holds" for o in payload["steps"][1]["obligations"])
    assert payload["explanation"].endswith("; toy remark on " + example_3_2().name)
    assert payload["numerical_evidence"] is None  # evidence=None on the entry: nothing simulated
    assert "Lemma toy: A toy result" in text and "toy_conclusion (holds)" in text
    with pytest.raises(UnknownName):  # the default catalogue is untouched
        get("toy")


def test_a_toy_entry_without_a_plan_is_bad_input(capsys):
    with using(CATALOGUE.extended(_toy(plan=None))):
        assert main(["theorem", "toy", "--no-simulate"]) == 2
    assert "verify._theorem.plans" in capsys.readouterr().err


def test_a_failing_hypothesis_stops_the_toy_before_its_plan():
    with using(CATALOGUE.extended(_toy(hypotheses=(MaskIs("causal"),)))):
        report = check_theorem("toy", simulate=False)
    assert report.status.value == "fails" and report.steps == ()


@pytest.mark.parametrize("changes", [{"plan": "verify._theorem.plan:CLAIM"}, {"plan": "no colon"}, {"evidence": "sin"},
                                     {"hypotheses": (MaskIs("full"), MaskIs("full"))}])
def test_malformed_entries_are_refused_at_construction(changes):
    with pytest.raises(InvalidInput):
        _toy(**changes)


def test_a_plan_that_is_not_a_proof_plan_is_bad_input(capsys):
    with using(CATALOGUE.extended(_toy(plan=object()))):
        assert main(["theorem", "toy", "--no-simulate"]) == 2
    assert "a ProofPlan instance" in capsys.readouterr().err


def test_duplicate_ids_are_refused():
    with pytest.raises(InvalidInput):
        CATALOGUE.extended(_toy(id="4.2"))


@pytest.mark.parametrize("theorem", CATALOGUE.theorems, ids=lambda th: th.id)
def test_every_catalogue_plan_resolves(theorem):
    from verify._theorem.plans import plan_of

    assert theorem.plan is None  # built-in entries never name verify: the table holds their plans
    assert isinstance(plan_of(theorem), ProofPlan)


def test_the_plan_table_and_the_catalogue_have_the_same_ids():
    from verify._theorem.plans import PLANS

    assert set(PLANS) == {th.id for th in CATALOGUE.theorems}
