"""Unit tests of the Coq exporter that need no ``coqc``: exact literals, LDL^T witnesses, refusals."""
from __future__ import annotations

import json
import shutil
from fractions import Fraction

import pytest

from theorems.errors import InvalidInput, MissingDependency
from verify._sos.certificate import Certificate
from verify.coq import build, check_coq, text
from verify.coq.ldl import ldl

from tests.coq.tampering import CERT_DIR, certificate_payload, load_certificates


def test_rationals_are_exact_literals():
    assert text.rational(Fraction(-3, 7)) == "(- (3 / 7))"
    assert text.rational(Fraction(18394273007, 200000000000)) == "(18394273007 / 200000000000)"
    assert text.rational(5) == "5" and text.rational(0) == "0"
    assert text.var("B[v1,x2]") == "v_B_5b_v1_2c_x2_5d_" and text.var("x1_2") == "v_x1_2"


@pytest.mark.parametrize("matrix", [[[4, 2], [2, 3]], [[1, 1, 0], [1, 1, 0], [0, 0, 2]], [[Fraction(1, 3)]],
                                    [[2, -1, 0], [-1, 2, -1], [0, -1, 2]]])
def test_ldl_reconstructs_the_matrix(matrix):
    f = ldl(matrix)
    assert f.ok
    n = len(matrix)
    L = [[Fraction(0)] * n for _ in range(n)]
    for k, col in enumerate(f.columns):
        for i, c in enumerate(col):
            L[k + i][k] = c
    checked = 0
    for i in range(n):
        for j in range(n):
            assert sum(L[i][k] * f.pivots[k] * L[j][k] for k in range(n)) == Fraction(matrix[i][j])
            checked += 1
    assert checked == n * n


def test_ldl_reports_what_it_cannot_factor():
    assert not ldl([[0, 1], [1, 0]]).ok  # zero pivot, nonzero column: indefinite
    assert not ldl([[1, 2], [3, 1]]).ok  # not symmetric
    negative = ldl([[1, 2], [2, 1]])
    assert negative.ok and negative.pivots == (Fraction(1), Fraction(-3))  # written as is: coqc rejects it


def test_a_failing_certificate_is_refused_before_coq_when_rechecking():
    data = load_certificates()["4_2__token2_decrease"]
    data["polynomial"][0][1] = "-1/2"
    assert not Certificate.from_json(data).recheck().holds
    with pytest.raises(InvalidInput, match="re-check"):
        build(certificate_payload("bad", data), recheck=True)
    assert "Lemma bad" in build(certificate_payload("bad", data), recheck=False).text


def test_step_ids_and_report_shape_are_validated():
    data = load_certificates()["4_2__token2_decrease"]
    with pytest.raises(InvalidInput, match="identifier"):
        build(certificate_payload("x; Axiom", data))
    with pytest.raises(InvalidInput, match="steps"):
        build({"theorem": {"id": "4.2"}, "steps": [], "verdict": "fails"})
    cited = {"theorem": {"id": "t"}, "steps": [{"id": "c", "kind": "cited", "obligations": [{"discharged_by": "later"}]}]}
    with pytest.raises(InvalidInput, match="earlier step"):
        build(cited)


def test_missing_coqc_names_the_install_command(monkeypatch, tmp_path):
    (tmp_path / "a.v").write_text("(* FINAL-THEOREM: x *)\n")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(MissingDependency, match="apt-get install -y coq libcoq-interval"):
        check_coq(tmp_path)


def test_the_golden_certificates_are_present():
    assert len(list(CERT_DIR.glob("*.json"))) >= 6
    json.loads(next(CERT_DIR.glob("*.json")).read_text())


def test_a_step_without_a_coq_statement_is_a_listed_axiom():
    data = load_certificates()["4_2__token2_decrease"]
    payload = certificate_payload("cert", data)
    payload["steps"].append({"id": "LN1", "kind": "symbolic", "statement": "layer norm"})
    source = build(payload)
    routes = {s.step_id: s.route for s in source.steps}
    assert routes == {"cert": "kernel", "LN1": "not_exported"}
    assert "(* DECLARED-AXIOMS: unexported_LN1 *)" in source.text and "Axiom unexported_LN1 : S_LN1." in source.text
