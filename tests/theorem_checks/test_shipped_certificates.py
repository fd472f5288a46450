"""Issue 14 (cold start): a default instance's certificate ships as package data and is re-checked
instead of searched; only for exactly the same request (claim), otherwise the search runs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from theorems.verdict import Status
from verify._sos import shipped
from verify._theorem.check import check_theorem

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "theorems"


def test_every_shipped_certificate_rechecks_and_matches_a_golden_claim():
    files = sorted(shipped.SHIPPED_DIR.glob("*.json"))
    assert len(files) >= 8
    golden_claims = {json.loads(p.read_text())["claim"] for p in GOLDEN.glob("*.json")}
    from verify._sos.certificate import Certificate

    for path in files:
        entry = json.loads(path.read_text())
        cert = Certificate.from_json(entry["certificate"])
        assert cert.recheck().holds, path.name
        assert cert.claim in golden_claims, path.name


def test_default_4_2_rechecks_the_shipped_certificates_and_says_so():
    report = check_theorem("4.2", simulate=False)
    steps = [s for s in report.to_json()["steps"] if s["kind"] == "certificate"]
    assert len(steps) == 4
    for step in steps:
        assert step["verdict"]["verdict"] == "holds"
        assert step["verdict"]["reason"].startswith("re-checked the shipped certificate "), step["verdict"]["reason"]
        assert step["data"]["origin"] == "shipped"


def test_a_different_instance_searches(tmp_path):
    """Another instance changes the token-2 claim (its w_lo): that step is searched, and says so."""
    data = {"d": 3, "beta": 1, "mask": "causal", "heads": [{"P": [["1/2", 0, 0], [0, 0, 0], [0, 0, 0]], "U": "identity"}],
            "tokens": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}
    from theorems.system_json import system_from_dict

    report = check_theorem("4.2", system_from_dict(data), simulate=False)
    steps = {s["id"]: s for s in report.to_json()["steps"] if s["kind"] == "certificate"}
    assert steps["token2_decrease"]["data"]["origin"] == "searched"
    assert steps["token2_decrease"]["verdict"]["reason"].startswith("searched: exact SOS certificate")
    assert steps["token2_decrease"]["verdict"]["verdict"] == "holds"


def test_lookup_is_exact_and_off_by_default():
    from fractions import Fraction

    from verify.certificates import certify_token2_decrease

    w_lo = Fraction(18394273007, 200000000000)  # the default 4.2 instance's
    plain = certify_token2_decrease(w_lo=w_lo, w_hi=Fraction(2))  # not inside use_shipped: a search
    assert plain.status is Status.HOLDS and plain.verdict.witness.get("origin") is None
    with shipped.use_shipped():
        reused = certify_token2_decrease(w_lo=w_lo, w_hi=Fraction(2))
        other = certify_token2_decrease(w_lo=w_lo, w_hi=Fraction(3))  # a different claim
    assert reused.status is Status.HOLDS and reused.verdict.witness["origin"] == "shipped"
    assert reused.certificate.recheck().holds
    assert reused.certificate.to_json()["claim"] == plain.certificate.to_json()["claim"]
    assert other.status is Status.HOLDS and other.verdict.witness.get("origin") is None


def test_a_tampered_shipped_certificate_is_not_used(tmp_path, monkeypatch):
    path = sorted(shipped.SHIPPED_DIR.glob("01_*.json"))[0]
    entry = json.loads(path.read_text())
    gram = entry["certificate"]["sos_terms"][0]["gram"]
    gram[0][0] = "0"
    (tmp_path / path.name).write_text(json.dumps(entry))
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path)
    monkeypatch.setattr(shipped.lookup, "__defaults__", (tmp_path,))
    report = check_theorem("4.2", simulate=False)
    steps = {s["id"]: s for s in report.to_json()["steps"] if s["kind"] == "certificate"}
    assert steps["token2_decrease"]["data"]["origin"] == "searched"
    assert steps["token2_decrease"]["verdict"]["verdict"] == "holds"


def test_cold_4_2_and_help_import_no_solver():
    code = ("import sys\nfrom verify.cli.main import main\nimport contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    rc = main(sys.argv[1:])\n"
            "print(rc, sorted(m for m in ('cvxpy', 'scipy', 'clarabel', 'scs', 'numba', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, "theorem", "4.2", "--no-simulate"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "0 []", out.stdout + out.stderr[-2000:]
    code = ("import sys\nfrom verify.cli.main import build_parser\nbuild_parser().format_help()\n"
            "print(sorted(m for m in ('sympy', 'numpy', 'scipy', 'cvxpy', 'flint') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr[-2000:]
