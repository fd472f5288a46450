"""Verdict validates its fields; the predicates that proofs read carry typed, frozen evidence."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

from theorems.catalogue import get
from theorems.errors import ConsensusVerifyError, InvalidInput, InvalidType
from theorems.predicates.evidence import PBound, TopEigen
from theorems.verdict import ExitCode, Status, Verdict, holds


@pytest.mark.parametrize("args", [("x", "holds", "r"), ("", Status.HOLDS, "r"), ("x", Status.HOLDS, 3),
                                  ("x", Status.HOLDS, "r", []), ("x", Status.HOLDS, "r", {}, "yes")])
def test_verdict_refuses_malformed_fields(args):
    with pytest.raises(InvalidInput):
        Verdict(*args)


def test_verdict_accepts_numpy_bool_and_frozen_evidence_only():
    v = Verdict("x", Status.HOLDS, "r", {}, np.bool_(True))
    assert v.exact is True and type(v.exact) is bool

    @dataclass
    class Mutable:
        a: int

    with pytest.raises(InvalidInput):
        holds("x", "r", evidence=Mutable(1))
    assert holds("x", "r", evidence=PBound(Fraction(1))).evidence == PBound(Fraction(1))


def test_p_bounded_and_top_eigenvalue_carry_typed_evidence():
    report = get("4.4-sym").check()
    bound = report.evidence(PBound)
    by_name = {v.name: v for v in report.verdicts}
    assert bound is not None and bound.p == Fraction(by_name["P_bounded"].witness["p"])
    top = report.evidence(TopEigen)
    w = by_name["U_simple_top_eigenvalue"].witness
    assert top.lambda_1 == w["lambda_1"] and top.gap_lower_bound == Fraction(w["gap_lower_bound"])
    assert top.v_float == tuple(w["v_float"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        bound.p = Fraction(0)
    assert "evidence" not in by_name["P_bounded"].to_json()  # the witness carries the JSON form


def test_error_tree_and_exit_codes():
    assert issubclass(InvalidType, InvalidInput) and issubclass(InvalidType, TypeError)
    assert issubclass(InvalidInput, ConsensusVerifyError)
    assert [Status.HOLDS.exit_code, Status.FAILS.exit_code, Status.UNKNOWN.exit_code] == [0, 3, 4]
    assert Status.FAILS.exit_code is ExitCode.REFUTED
