"""`verify theorem`: defaults certified and re-checkable, violated hypotheses refuted, goldens."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from verify.cli.main import main
from verify.certificate_kinds import certificate_from_json

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "theorems"
A = [[1, "1/2", 0], [0, "1/2", "-1/3"], ["1/4", 0, 1]]
TOKENS = [["2/3", "2/3", "1/3"], [0, 1, 0], ["-3/5", 0, "4/5"], ["2/7", "-3/7", "6/7"]]


def run_json(capsys, argv):
    code = main(argv + ["--format", "json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out)


@pytest.mark.parametrize("theorem_id,expected_certs", [("4.2", 4), ("3.2", 1), ("4.4-sym", 1), ("4.4-hemisphere", 2)])
def test_default_instances_are_certified_and_every_certificate_rechecks(tmp_path, capsys, theorem_id, expected_certs):
    code, payload = run_json(capsys, ["theorem", theorem_id, "--save", str(tmp_path), "--t-end", "8"])
    assert code == 0 and payload["verdict"] == "holds"
    certs = [s for s in payload["steps"] if s["kind"] == "certificate"]
    assert len(certs) == expected_certs and all(s["verdict"]["verdict"] == "holds" for s in certs)
    for step in certs:  # the JSON report's certificates re-check on their own
        assert certificate_from_json(step["certificate"]).recheck().holds
    saved = sorted(p for p in tmp_path.glob("*.json") if not p.name.endswith("__report.json"))
    assert len(saved) == expected_certs
    for path in saved:
        assert main(["recheck", str(path)]) == 0
    capsys.readouterr()
    assert payload["numerical_evidence"]["kind"].startswith("numerical evidence")
    cited = [s["id"] for s in payload["steps"] if s["kind"] == "cited"]
    assert all(c in payload["explanation"] for c in cited)
    assert bool(cited) == (theorem_id != "4.4-sym")  # 4.4-sym claims only what it certifies


def _write(tmp_path, **overrides):
    data = {"d": 3, "beta": 1, "mask": "causal", "heads": [{"P": A, "U": "identity"}], "tokens": TOKENS}
    data.update(overrides)
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(data))
    return str(path)


VIOLATIONS = [
    ("4.2", {"mask": "full"}, "mask_causal"),
    ("4.2", {"heads": [{"P": A, "U": [[1, 0, 0], [0, 2, 0], [0, 0, 1]]}]}, "U_identity"),
    ("4.2", {"heads": [{"P": [["t", 0, 0], [0, 1, 0], [0, 0, 1]], "U": "identity"}]}, "P_bounded"),
    ("3.2", {"mask": "full", "tokens": [["2/3", "2/3", "1/3"], ["-2/3", "-2/3", "-1/3"]]}, "open_hemisphere"),
    ("3.2", {"mask": "full", "heads": [{"P": [["sin(t^2)", 0, 0], [0, 1, 0], [0, 0, 1]], "U": "identity"}],
             "tokens": [[1, 0, 0], [0, 1, 0]]}, "P_uniformly_continuous"),
    ("4.4-sym", {"heads": [{"P": A, "U": [[1, 1, 0], [0, 1, 0], [0, 0, -1]]}]}, "U_symmetric"),
    ("4.4-sym", {"heads": [{"P": A, "U": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]}]}, "U_simple_top_eigenvalue"),
    ("4.4-sym", {"heads": [{"P": A, "U": "identity"}, {"P": A, "U": "identity"}]}, "one_head"),
]


@pytest.mark.parametrize("theorem_id,overrides,failing", VIOLATIONS, ids=[f"{v[0]}-{v[2]}" for v in VIOLATIONS])
def test_violated_hypothesis_exits_6_and_nothing_claims_the_conclusion(tmp_path, capsys, theorem_id, overrides, failing):
    code, payload = run_json(capsys, ["theorem", theorem_id, "--instance", _write(tmp_path, **overrides), "--no-simulate"])
    verdicts = {h["name"]: h["verdict"] for h in payload["hypotheses"]}
    assert verdicts[failing] in ("fails", "unknown")
    assert code in (6, 4) and payload["verdict"] in ("not_applicable", "unknown")
    if verdicts[failing] == "fails":  # the result does not apply: not a refutation (exit 3 is kept for those)
        assert code == 6 and payload["verdict"] == "not_applicable"
    # no certificate, no step claims the conclusion; 3.2 may show its attempt at a later entry (not proved)
    assert [s["id"] for s in payload["steps"]] in ([], ["late_entry"])
    assert all(s["verdict"]["verdict"] != "holds" for s in payload["steps"])
    assert "does not apply" in payload["explanation"] or "could not be decided" in payload["explanation"]


def test_simple_top_eigenvalue_violation_is_a_failure(tmp_path, capsys):
    """A repeated top eigenvalue is a refutation of Assumption 4.4 (4.4 does not apply), not an unknown."""
    code, payload = run_json(capsys, ["theorem", "4.4-sym", "--no-simulate", "--instance",
                                      _write(tmp_path, heads=[{"P": A, "U": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]}])])
    assert code == 6


def test_text_report_names_each_kind_of_step(capsys):
    assert main(["theorem", "4.2", "--no-simulate"]) == 0
    out = capsys.readouterr().out
    for word in ("[certificate]", "[symbolic", "[cited", "verdict: holds"):
        assert word in out


def test_bad_usage(tmp_path, capsys):
    assert main(["theorem", "4.2", "--t-end", "-1"]) == 2
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["theorem", "4.2", "--save", str(f)]) == 2
    assert main(["theorem", "4.3"]) == 2
    assert "did you mean" in capsys.readouterr().err


RECHECK = r"""
import json, sys
from verify.certificate_kinds import certificate_from_json
res = {p: certificate_from_json(json.load(open(p))).recheck().status.value for p in sys.argv[1:]}
print(json.dumps({"results": res, "heavy": sorted(m for m in ("cvxpy", "clarabel", "scs") if m in sys.modules)}))
"""


def test_golden_theorem_certificates_recheck_without_the_solver():
    paths = sorted(str(p) for p in GOLDEN.glob("*.json"))
    assert len(paths) == 8  # 3.2: 1, 4.2: 4, 4.4-sym: 1, 4.4-hemisphere: 2
    out = subprocess.run([sys.executable, "-c", RECHECK, *paths], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert data["heavy"] == []
    assert set(data["results"].values()) == {"holds"}


def test_golden_claims_match_what_the_defaults_prove_today():
    from verify._theorem.check import check_theorem

    for tid in ("4.2", "3.2", "4.4-sym", "4.4-hemisphere"):
        report = check_theorem(tid, simulate=False)
        for step_id, cert in report.certificates:
            golden = json.loads((GOLDEN / f"{tid.replace('.', '_')}__{step_id}.json").read_text())
            assert golden["claim"] == cert.to_json()["claim"], (tid, step_id)


def test_4_4_sym_evidence_shows_alignment_without_a_common_sign(capsys):
    code, payload = run_json(capsys, ["theorem", "4.4-sym", "--t-end", "30"])
    assert code == 0
    ev = payload["numerical_evidence"]
    assert ev["E_variant"] == "abs" and 0 <= ev["final"]["E_first"] < 1e-8
    al = ev["alignment"]
    assert al["same_sign"] is False and set(al["signs"]) == {1, -1}
    assert all(abs(abs(c) - 1) < 1e-8 for c in al["inner_with_v"])


def test_4_4_sym_counterexample_is_reported_but_not_claimed(capsys):
    """Every hypothesis holds, later tokens settle off span(v): 4.4-sym claims only the first token
    (certified), and the report says which later tokens end off the line."""
    path = Path(__file__).resolve().parents[2] / "examples" / "counterexample_4_4_sym.json"
    code, payload = run_json(capsys, ["theorem", "4.4-sym", "--instance", str(path), "--t-end", "100"])
    assert all(h["verdict"] == "holds" for h in payload["hypotheses"])
    assert code == 0 and "not claimed to align" in payload["explanation"]
    assert "NOT claimed" in payload["theorem"]["conclusion"]
    assert not [s for s in payload["steps"] if s["kind"] == "cited"]
    cert = [s for s in payload["steps"] if s["kind"] == "certificate"]
    assert len(cert) == 1 and cert[0]["verdict"]["verdict"] == "holds"  # the first token is certified
    inner = payload["numerical_evidence"]["alignment"]["inner_with_v"]
    assert -0.83 < inner[3] < -0.81 and -0.56 < inner[11] < -0.54


def _u_instance(tmp_path, U, tokens=None):
    data = {"d": len(U), "beta": 1, "mask": "causal", "heads": [{"P": "zero", "U": U}],
            "tokens": tokens or [[1] + [0] * (len(U) - 1)]}
    path = tmp_path / "u.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_4_4_sym_near_rational_eigenvalue_is_not_rounded(tmp_path, capsys):
    """lambda_2 = 1/2 + 2e-18 (exact data): the certificate must use the proven gap, not 1/2."""
    U = [[1, 0, 0], [0, "1/2", "1/1000000000"], [0, "1/1000000000", 0]]
    code, payload = run_json(capsys, ["theorem", "4.4-sym", "--no-simulate", "--instance", _u_instance(tmp_path, U)])
    assert code == 0
    step = next(s for s in payload["steps"] if s["id"] == "first_token_alignment")
    assert "shifted spectrum" in step["statement"] and "(exact)" not in step["statement"]
    gap_lb = Fraction(next(h for h in payload["hypotheses"] if h["name"] == "U_simple_top_eigenvalue")["witness"]["gap_lower_bound"])
    assert gap_lb < Fraction(1, 2)


def test_4_4_sym_in_one_dimension_and_orthogonal_start(tmp_path, capsys):
    code, payload = run_json(capsys, ["theorem", "4.4-sym", "--no-simulate", "--instance", _u_instance(tmp_path, [[2]])])
    assert code in (0, 3, 4) and payload["verdict"] in ("holds", "fails", "unknown")
    U = [[1, 0, 0], [0, "-1/2", 0], [0, 0, -2]]
    code, payload = run_json(capsys, ["theorem", "4.4-sym", "--no-simulate",
                                      "--instance", _u_instance(tmp_path, U, [[0, 1, 0], [1, 0, 0]])])
    assert code == 0 and "exceptional start" in payload["explanation"]


def test_4_2_names_the_exceptional_start(tmp_path, capsys):
    tokens = [["2/3", "2/3", "1/3"], ["-2/3", "-2/3", "-1/3"], [0, 1, 0]]
    code, payload = run_json(capsys, ["theorem", "4.2", "--no-simulate", "--instance", _write(tmp_path, tokens=tokens)])
    assert code == 0 and "exceptional set" in payload["explanation"]
    code, payload = run_json(capsys, ["theorem", "4.2", "--no-simulate"])
    assert code == 0 and "exceptional set" not in payload["explanation"]


@pytest.mark.parametrize("beta,expected", [(0.125, 0), ("1/1000000000000000000000000000000", 0), (10000, 4), ("1/sqrt(3)", 0)])
def test_4_2_temperatures(tmp_path, capsys, beta, expected):
    """Float beta is the binary rational it holds; tiny beta stays certifiable; a huge beta p gives
    unknown (the weight lower bound is useless), never a crash."""
    code, payload = run_json(capsys, ["theorem", "4.2", "--no-simulate", "--instance",
                                      _write(tmp_path, beta=beta, heads=[{"P": "identity", "U": "identity"}])])
    assert code == expected, payload["explanation"]


def test_unequal_layer_norm_scales_refute_the_sphere_model(tmp_path, capsys):
    """Theorems are about tokens on a sphere: unequal LN scales (an ellipsoid, docs/model.md §1) fail."""
    path = _write(tmp_path, mask="full", tokens=[[1, 0, 0], [0, 1, 0]], layer_norm={"scale": [1, 5, 1]})
    code, payload = run_json(capsys, ["theorem", "3.2", "--no-simulate", "--instance", path])
    assert code == 6
    assert {h["name"]: h["verdict"] for h in payload["hypotheses"]}["equal_ln_scales"] == "fails"
