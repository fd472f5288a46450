"""Theorem 4.2 needs d >= 2 (docs/model.md §8): on S^0 the field vanishes and every start with a token
at -x_1 stays put, a set of positive counting measure.  With d = 1 the answer is "fails" with that
equilibrium as the witness, checked here independently; the reading names the right exceptional set."""
from __future__ import annotations

import json
from fractions import Fraction

import verify
from theorems.catalogue import get
from verify.cli.main import main

D1 = {"d": 1, "beta": 1, "mask": "causal", "heads": [{"P": "identity", "U": "identity"}], "tokens": [[1], [-1], [1]]}


def _field_1d(x: list[Fraction]) -> list[Fraction]:
    """eq. 5 with d = 1, P = U = 1, causal mask: Proj_{x_i} (sum_j a_ij x_j) = (1 - x_i^2) (...)."""
    return [(1 - xi * xi) * sum(x[: i + 1], Fraction(0)) for i, xi in enumerate(x)]


def test_d1_fails_with_the_s0_equilibrium(capsys):
    report = verify.theorem("4.2", instance=D1, simulate=False)
    assert report.verdict == "not_applicable" and report.exit_code == 6
    dim = next(h for h in report.to_json()["hypotheses"] if h["name"] == "dim_at_least_2")
    assert dim["verdict"] == "fails"
    witness = [[Fraction(c) for c in row] for row in dim["witness"]["equilibrium"]]
    assert witness == [[1], [-1]]
    assert _field_1d([row[0] for row in witness]) == [0, 0]  # an equilibrium: x_2 = -x_1 never moves
    assert main(["theorem", "4.2", "--instance", _write(D1), "--no-simulate"]) == 6


def test_d2_is_not_affected():
    data = dict(D1, d=2, tokens=[[1, 0], [0, 1]])
    assert verify.assumptions("4.2", instance=data).verdict == "holds"


def test_the_reading_names_the_measure_zero_exceptional_set():
    reading = get("4.2").reading
    assert "measure-zero set of starts that converge to a configuration with some token at -x_1" in reading
    assert "generally still converges to x_1" in reading and "d >= 2" in reading


def _write(data: dict) -> str:
    import tempfile

    handle = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(data, handle)
    handle.close()
    return handle.name
