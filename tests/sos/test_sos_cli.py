"""CLI: ``verify sos``, ``verify lyapunov``, ``verify recheck`` exit codes and output."""
import json

import pytest

from verify.cli.main import main

QUARTIC = "2x^4 + 2x^3 y - x^2 y^2 + 5y^4"


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_sos_quartic_text_and_save(tmp_path, capsys):
    cert = tmp_path / "quartic.json"
    code, out, err = run(capsys, "sos", QUARTIC, "--save", str(cert))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "sos: HOLDS"
    assert lines[1] == "claim: 2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4 >= 0 for all real x, y"
    assert lines[2].startswith("reason: exact SOS certificate (degree 4")
    assert lines[3].startswith("times: float solve ")
    assert f"certificate saved to {cert}" in out
    code, out, _ = run(capsys, "recheck", str(cert))
    assert code == 0 and out.startswith("recheck: HOLDS")


def test_sos_json_has_top_level_verdict(capsys):
    code, out, _ = run(capsys, "sos", QUARTIC, "--vars", "x,y", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "holds"
    assert data["certificate"]["kind"] == "nonnegativity"
    assert data["stats"]["margin_solve_s"] > 0


def test_sos_motzkin_inconclusive(capsys):
    code, out, _ = run(capsys, "sos", "x^4*y^2 + x^2*y^4 - 3*x^2*y^2 + 1", "--format", "json")
    assert code == 4
    data = json.loads(out)
    assert data["verdict"] == "unknown" and data["certificate"] is None and "no exact certificate" in data["reason"]


def test_sos_refuted_on_set(capsys):
    code, out, _ = run(capsys, "sos", "x*y - 1", "--on", "x >= 0, y >= 0, x <= 1, y <= 1", "--format", "json")
    assert code == 3
    data = json.loads(out)
    assert data["verdict"] == "fails" and set(data["result"]["witness"]["point"]) == {"x", "y"}


def test_sos_products_and_solver(capsys):
    code, _, err = run(capsys, "sos", "x*y", "--on", "x >= 0, y >= 0", "--products", "--degree", "2",
                       "--solver", "scs")
    assert code == 0, err
    code, _, _ = run(capsys, "sos", "x*y", "--on", "x >= 0, y >= 0", "--degree", "2", "--no-refute")
    assert code == 4


def test_sos_equality_constraint(capsys):
    code, out, err = run(capsys, "sos", "1 - x", "--on", "x^2 + y^2 == 1", "--vars", "x,y")
    assert code == 0, err + out


@pytest.mark.parametrize("argv, needle", [
    (["sos", "x^2 + y^2", "--vars", "x"], "Unknown symbol(s): y"),
    (["sos", "x^2", "--degree", "1"], "degree"),
    (["sos", "x^2", "--on", "x > 0"], "strict inequalities"),
    (["sos", "x^2 + 0.5.5"], "parsable"),
    (["sos", "x.diff(x)*x^2 + 1"], "parsable"),
    (["sos", "x^2 + 9^9^9"], "Limit"),
    (["sos", "exp(x)"], "Reserved name"),
    (["sos", "__import__('os').system('true')"], "Unexpected character"),
    (["sos", "x^2", "--products", "1"], "--products"),
    (["sos", "x^2 +* y"], "parsable"),
    (["lyapunov", "--field", "y", "--vars", "x,y"], "--field"),
    (["lyapunov", "--field", "y, -x", "--vars", "x,y", "--degree", "3"], "degree"),
    (["lyapunov", "--field", "y, -x", "--vars", "x,y", "--eps", "0.1"], "eps"),
])
def test_bad_input_exits_2_with_message(capsys, argv, needle):
    """Every bad input is named; no traceback; limits are checked before anything is built."""
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert needle in err and "Traceback" not in err


def test_lyapunov_certified_saved_and_rechecked(tmp_path, capsys):
    path = tmp_path / "lyap.json"
    code, out, err = run(capsys, "lyapunov", "--field", "-x + y^2, -y", "--vars", "x,y", "--degree", "4",
                         "--save", str(path))
    assert code == 0, err
    assert out.startswith("lyapunov: HOLDS")
    code, out, _ = run(capsys, "recheck", str(path), "--format", "json")
    assert code == 0 and json.loads(out)["verdict"] == "holds"


def test_lyapunov_exit_codes(capsys):
    code, out, _ = run(capsys, "lyapunov", "--field", "x + y, -y", "--vars", "x,y", "--format", "json")
    assert code == 4 and json.loads(out)["verdict"] == "unknown"
    code, out, _ = run(capsys, "lyapunov", "--field", "1 - x, -y", "--vars", "x,y", "--format", "json")
    assert code == 3 and json.loads(out)["verdict"] == "fails"


@pytest.mark.parametrize("content", ["not json", "[1, 2]", json.dumps({"kind": "nonnegativity"}),
                                     json.dumps({"format": "consensus-verify/sos-certificate", "version": 1,
                                                 "kind": "nonnegativity", "variables": ["x"],
                                                 "polynomial": [[[2], 0.5]]})])
def test_recheck_malformed_file_exits_2(tmp_path, capsys, content):
    path = tmp_path / "c.json"
    path.write_text(content)
    code, _, err = run(capsys, "recheck", str(path))
    assert code == 2 and "FILE" in err and "Traceback" not in err


def test_recheck_missing_file_exits_2(tmp_path, capsys):
    code, _, err = run(capsys, "recheck", str(tmp_path / "absent.json"))
    assert code == 2 and "readable" in err


def test_a_decimal_is_the_exact_rational_it_spells(capsys):
    """``0.5`` is exactly 1/2 (not a float): x^2 + 0.5 >= 0 is certified, x^2 - 0.5 >= 0 refuted."""
    code, out, _ = run(capsys, "sos", "x^2 + 0.5")
    assert code == 0 and "HOLDS" in out
    code, out, _ = run(capsys, "sos", "x^2 - 0.5")
    assert code == 3 and "FAILS" in out
