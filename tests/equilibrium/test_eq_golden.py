"""Golden equilibrium certificates (tests/golden/equilibrium/*.json) re-check in a fresh interpreter
that imports no solver, no float search and no integrator: only python-flint and fractions decide."""
from __future__ import annotations

import json
import subprocess
import sys

from eq_helpers import GOLDEN

RECHECK_SCRIPT = r"""
import json, sys
from verify.certificate_kinds import certificate_from_json
out = {}
for path in sys.argv[1:]:
    cert = certificate_from_json(json.load(open(path)))
    v = cert.recheck()
    out[path] = [type(cert).__name__, v.status.value, v.reason]
banned = ("cvxpy", "clarabel", "scs", "scipy", "verify._sos.solve", "verify._sos.rounding",
          "verify.equilibrium.search", "numerics")
heavy = sorted(m for m in sys.modules if m.split(".")[0] in banned or m in banned)
print(json.dumps({"results": out, "imported": heavy}))
"""


def test_golden_equilibrium_certificates_recheck_without_solver():
    paths = sorted(str(p) for p in GOLDEN.glob("*.json"))
    assert len(paths) == 2
    proc = subprocess.run([sys.executable, "-c", RECHECK_SCRIPT, *paths], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["imported"] == [], f"the re-check path imported {report['imported']}"
    assert len(report["results"]) == 2
    for path, (kind, status, reason) in report["results"].items():
        assert kind == "EquilibriumCertificate"
        assert status == "holds", f"{path}: {reason}"
        assert "Krawczyk" in reason and "Re lambda <=" in reason
