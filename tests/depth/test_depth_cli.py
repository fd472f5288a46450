"""``verify depth``: the issue's must-hold commands, exit codes, bad input, --save / recheck."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from verify.cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--format", "json")
    return code, json.loads(out), err


FIELDS = ("verdict", "bound", "rate", "eps", "model", "observed", "tightness")


@pytest.mark.parametrize("argv,integer", [(("4.2",), False), (("3.2",), False),
                                          (("3.2", "--model", "layers", "--tau", "1/2"), True),
                                          (("4.2", "--model", "layers"), True)])
def test_default_instances_certify(capsys, argv, integer):
    code, j, _ = run_json(capsys, "depth", *argv)
    assert code == 0 and j["verdict"] == "holds"
    assert all(k in j for k in FIELDS)
    assert isinstance(j["bound"], int) == integer
    bound = Fraction(j["bound"])
    assert Fraction(j["rate"]) > 0
    assert j["observed"] is not None and 0 <= j["observed"] <= bound
    assert j["tightness"] == pytest.approx(float(bound) / j["observed"], rel=1e-12)


def test_tau_defaults_to_one_and_says_so(capsys):
    code, out, _ = run(capsys, "depth", "3.2", "--model", "layers", "--no-simulate")
    assert code == 0
    assert "tau = 1 (default; set with --tau)" in out
    code, j, _ = run_json(capsys, "depth", "3.2", "--model", "layers", "--no-simulate")
    assert j["tau"] == "1" and j["tau_default"] is True and j["observed"] is None and j["tightness"] is None


def test_late_entry_example(capsys):
    code, j, _ = run_json(capsys, "depth", "3.2", "--model", "layers", "--instance", "examples/late_entry.json")
    assert code == 0 and isinstance(j["bound"], int)
    assert "late entry" in j["explanation"]
    assert j["observed"] <= j["bound"]


def test_no_entry_is_unknown_never_a_bound(capsys):
    code, j, _ = run_json(capsys, "depth", "3.2", "--model", "layers", "--instance", "examples/no_entry.json",
                          "--entry-budget", "20")
    assert code == 4 and j["verdict"] == "unknown" and j["bound"] is None and j["rate"] is None


def test_late_entry_example_is_outside_every_hemisphere_for_the_ode(capsys):
    code, j, _ = run_json(capsys, "depth", "3.2", "--instance", "examples/late_entry.json", "--no-window")
    assert code == 6 and j["bound"] is None  # the closed form alone: the hypothesis fails at t = 0
    code, j, _ = run_json(capsys, "depth", "3.2", "--instance", "examples/late_entry.json")
    assert code == 0 and j["bound"] is None and "late entry" in j["explanation"]  # the enclosure enters a hemisphere
    assert Fraction(j["window"]["T_low"]) < Fraction(j["window"]["T_high"])


def test_hypothesis_failure_exits_6_does_not_apply(capsys):
    code, j, _ = run_json(capsys, "depth", "3.2", "--instance", "examples/causal_two_heads.json")
    assert code == 6 and j["verdict"] == "not_applicable" and j["bound"] is None
    assert any(h["name"] == "mask_full" and h["verdict"] == "fails" for h in j["hypotheses"])


def test_causal_tokens_outside_the_x1_hemisphere_get_no_bound(capsys, tmp_path):
    data = {"name": "spread", "d": 3, "beta": 1, "mask": "causal", "heads": [{"P": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
            "U": "identity"}], "tokens": [["2/3", "2/3", "1/3"], [0, 1, 0], ["-3/5", 0, "4/5"]]}
    path = tmp_path / "spread.json"
    path.write_text(json.dumps(data))
    code, j, _ = run_json(capsys, "depth", "4.2", "--instance", str(path), "--no-window")
    assert code == 4 and j["bound"] is None
    assert j["token2"]["bound"]  # token 2 alone still has its certified time
    code, j, _ = run_json(capsys, "depth", "4.2", "--instance", str(path))
    assert code == 0 and j["bound"] is None and "late entry" in j["explanation"]
    assert Fraction(j["window"]["T_low"]) < Fraction(j["window"]["T_high"])


@pytest.mark.parametrize("argv,option", [(("3.2", "--eps", "2"), "--eps"), (("3.2", "--eps", "abc"), "--eps"),
                                         (("3.2", "--model", "layers", "--tau", "0"), "--tau"),
                                         (("3.2", "--tau", "1/2"), "--tau"), (("4.4-sym",), "ID"),
                                         (("3.2", "--model", "layers", "--entry-budget", "5000"), "--entry-budget")])
def test_bad_input_exits_2_naming_the_option(capsys, argv, option):
    code, _, err = run(capsys, "depth", *argv)
    assert code == 2 and option in err and "Traceback" not in err


def test_save_recheck_and_tamper(capsys, tmp_path):
    code, _, _ = run(capsys, "depth", "3.2", "--model", "layers", "--no-simulate", "--save", str(tmp_path))
    assert code == 0
    cert = tmp_path / "3_2__depth_layers.json"
    assert cert.is_file() and (tmp_path / "3_2__depth_layers__report.json").is_file()
    code, out, _ = run(capsys, "recheck", str(cert))
    assert code == 0 and "recheck: HOLDS" in out
    data = json.loads(cert.read_text())
    data["derived"]["bound"] -= 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, out, _ = run(capsys, "recheck", str(bad))
    assert code == 5 and "CERTIFICATE INVALID" in out
    code, _, err = run(capsys, "depth", "3.2", "--model", "layers", "--no-simulate", "--save", str(tmp_path))
    assert code == 2 and "--save" in err  # refuses to replace without --force


def test_theorem_report_optional_certified_rate(capsys):
    code, j, _ = run_json(capsys, "theorem", "3.2", "--no-simulate", "--certified-rate")
    assert code == 0 and j["certified_rate"]["verdict"] == "holds" and Fraction(j["certified_rate"]["rate"]) > 0
    code, j, _ = run_json(capsys, "theorem", "3.2", "--no-simulate")
    assert "certified_rate" not in j  # opt-in: default reports are unchanged
