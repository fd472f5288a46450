"""Golden certificates (tests/golden/*.json) re-check with exact arithmetic only, without the solver.

The re-check runs in a fresh interpreter that must never import cvxpy (nor any solver): a
certificate is a proof only if it can be verified without trusting the code that searched for it.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from theorems.verdict import Status

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
PAPER = {
    "sos_4_2_token2.json": "4.2 token 2",
    "sos_4_2_token_iss.json": "4.2/iss-causal",
    "sos_3_2_hemisphere.json": "3.2 hemisphere",
    "sos_4_4_sym_first_token.json": "4.4-sym first token",
}
ALL = sorted(p.name for p in GOLDEN.glob("*.json"))

RECHECK_SCRIPT = r"""
import json, sys
from verify.certificate_kinds import certificate_from_json
out = {}
for path in sys.argv[1:]:
    cert = certificate_from_json(json.load(open(path)))
    v = cert.recheck()
    out[path] = [v.status.value, v.reason]
heavy = sorted(m for m in ("cvxpy", "clarabel", "scs", "verify._sos.solve", "verify._sos.rounding") if m in sys.modules)
print(json.dumps({"results": out, "imported": heavy}))
"""


def test_golden_files_present():
    assert set(PAPER) <= set(ALL)
    assert len(ALL) >= 6


def test_golden_recheck_in_solver_free_process():
    paths = [str(GOLDEN / name) for name in ALL]
    proc = subprocess.run([sys.executable, "-c", RECHECK_SCRIPT, *paths], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["imported"] == [], f"the re-check path imported {report['imported']}"
    assert len(report["results"]) == len(ALL)
    for path, (status, reason) in report["results"].items():
        assert status == "holds", f"{path}: {reason}"


def test_cli_recheck_does_not_import_solver():
    script = ("import sys; from verify.cli.main import main; rc = main(['recheck', sys.argv[1]]); "
              "import json; print(json.dumps({'rc': rc, 'cvxpy': 'cvxpy' in sys.modules}))")
    proc = subprocess.run([sys.executable, "-c", script, str(GOLDEN / "sos_4_2_token_iss.json")],
                          capture_output=True, text=True, timeout=120)
    last = json.loads(proc.stdout.strip().splitlines()[-1])
    assert last == {"rc": 0, "cvxpy": False}, proc.stderr


@pytest.mark.parametrize("name, label", sorted(PAPER.items()))
def test_paper_golden_labels_and_claims(name, label):
    from verify.certificate_kinds import certificate_from_json

    cert = certificate_from_json(json.loads((GOLDEN / name).read_text()))
    assert cert.label.startswith(label)
    verdict = cert.recheck()
    assert verdict.status is Status.HOLDS and verdict.exact


def test_golden_token_iss_is_the_documented_inequality():
    """The stored polynomial is exactly a_j - g a_i - (1/2 (1 - a_i^2) - r_j - r_j^2/2)."""
    import sympy
    from verify.certificate_kinds import certificate_from_json
    from verify._sos.parse import to_exact
    from verify._sos.certificate import thaw

    cert = certificate_from_json(json.loads((GOLDEN / "sos_4_2_token_iss.json").read_text()))
    a_i, a_j, g, r_j = sympy.symbols("a_i a_j g r_j")
    expected = a_j - g * a_i - (sympy.Rational(1, 2) * (1 - a_i**2) - r_j - r_j**2 / 2)
    assert thaw(cert.polynomial) == to_exact(expected, [a_i, a_j, g, r_j], "expected")
