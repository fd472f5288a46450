"""`verify list` and `verify assumptions`: the acceptance cases of issue 2, through the CLI."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from verify.cli.main import main

A = [[1, "1/2", 0], [0, "1/2", "-1/3"], ["1/4", 0, 1]]
B = [["1/2", 0, "1/5"], ["1/3", -1, 0], [0, "1/4", "1/2"]]
TOKENS = [[1, 0, 0], ["3/5", "4/5", 0], [0, "3/5", "4/5"]]


def instance(tmp_path, P, tokens=TOKENS, mask="full"):
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({"d": 3, "beta": 1, "mask": mask, "heads": [{"P": P, "U": "identity"}], "tokens": tokens}))
    return str(path)


def run_json(capsys, argv):
    code = main(argv + ["--format", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def by_name(payload):
    return {h["name"]: h for h in payload["hypotheses"]}


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for tid in ("3.2", "4.2", "4.4-sym", "iss-causal", "weights", "D1", "LN1"):
        assert tid in out


def test_default_instance_holds(capsys):
    code, payload = run_json(capsys, ["assumptions", "4.2"])
    assert code == 0 and payload["verdict"] == "holds"
    assert {"mask_causal", "U_identity", "P_bounded"} <= set(by_name(payload))


def test_sin_t_squared_is_not_uniformly_continuous(tmp_path, capsys):
    P = [[f"sin(t^2)*({a})" for a in row] for row in A]
    code, payload = run_json(capsys, ["assumptions", "3.2", "--instance", instance(tmp_path, P)])
    assert code == 6 and payload["verdict"] == "not_applicable"
    uc = by_name(payload)["P_uniformly_continuous"]
    assert uc["verdict"] == "fails" and uc["witness"]
    assert by_name(payload)["P_bounded"]["verdict"] == "holds"


def test_t_times_A_is_unbounded(tmp_path, capsys):
    P = [[f"t*({a})" for a in row] for row in A]
    code, payload = run_json(capsys, ["assumptions", "3.2", "--instance", instance(tmp_path, P)])
    assert code == 6
    assert by_name(payload)["P_bounded"]["verdict"] == "fails"


def test_sin_t_A_plus_B_holds_with_a_proven_bound(tmp_path, capsys):
    P = [[f"sin(t)*({a}) + ({b})" for a, b in zip(ra, rb)] for ra, rb in zip(A, B)]
    code, payload = run_json(capsys, ["assumptions", "3.2", "--instance", instance(tmp_path, P)])
    assert code == 0, payload
    bounded = by_name(payload)["P_bounded"]
    p = Fraction(bounded["witness"]["p"])
    # the bound must dominate |A| + |B| in spectral norm at sampled times and be finite
    import numpy as np
    a = np.array([[float(Fraction(str(v))) for v in r] for r in A])
    b = np.array([[float(Fraction(str(v))) for v in r] for r in B])
    sup = max(np.linalg.norm(np.sin(t) * a + b, 2) for t in np.linspace(0, 7, 2001))
    assert sup <= float(p) <= 10 * sup
    assert by_name(payload)["P_uniformly_continuous"]["verdict"] == "holds"


def test_antipodal_tokens_fail_the_hemisphere_with_a_farkas_witness(tmp_path, capsys):
    tokens = [["2/3", "2/3", "1/3"], ["-2/3", "-2/3", "-1/3"], [0, 1, 0]]
    code, payload = run_json(capsys, ["assumptions", "3.2", "--instance", instance(tmp_path, A, tokens)])
    assert code == 6
    hemi = by_name(payload)["open_hemisphere"]
    assert hemi["verdict"] == "fails"
    weights = hemi["witness"]["lambda"]  # token index -> exact weight (tokens outside the support: 0)
    lam = [Fraction(str(weights.get(str(i), 0))) for i in range(len(tokens))]
    assert set(weights) <= {str(i) for i in range(len(tokens))} and weights
    assert all(v >= 0 for v in lam) and sum(lam) == 1
    X = [[Fraction(str(v)) for v in row] for row in tokens]
    assert all(sum(l * x[k] for l, x in zip(lam, X)) == 0 for k in range(3))


def test_text_output_and_unknown_id(capsys):
    assert main(["assumptions", "4.4-sym"]) == 0
    out = capsys.readouterr().out
    assert "U_symmetric" in out and "verdict: holds" in out
    assert main(["assumptions", "4.3"]) == 2
    assert "did you mean" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["assumptions"], ["assumptions", "3.2", "--format", "xml"], ["nonsense"]])
def test_usage_errors_exit_2(capsys, argv):
    assert main(argv) == 2  # argparse's errors are returned as exit 2 (and JSON under --format json)
    captured = capsys.readouterr()
    assert captured.out == "" and "error:" in captured.err and "Traceback" not in captured.err
