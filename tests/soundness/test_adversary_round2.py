"""Adversarial round 2: reproducers that assert the CORRECT behaviour (each fails while its hole is open).

Ground truth is computed independently (mpmath at 40 digits, exact fractions), never by the tool.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction as F
from pathlib import Path

import mpmath as mp

ROOT = Path(__file__).resolve().parents[2]


def _base_depth_cert(tmp_path: Path) -> dict:
    """A genuine late-entry depth certificate produced by the tool itself (examples/late_entry.json)."""
    import subprocess
    import sys

    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "verify.cli.main", "depth", "3.2", "--model", "layers", "--instance",
                        str(ROOT / "examples" / "late_entry.json"), "--no-simulate", "--save", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads((out / "3_2__depth_layers.json").read_text())


def _layer_map_metric(tokens, P, beta, tau, layers, heads=1):
    """max_ij (1 - <x_i, x_j>) after `layers` steps of eq. 4, full attention, U = I, `heads` copies of P."""
    mp.mp.dps = 40
    q = lambda x: mp.mpf(F(x).numerator) / F(x).denominator  # noqa: E731
    X = [[q(x) for x in r] for r in tokens]
    Pm = [[q(x) for x in r] for r in P]
    d, n = len(X[0]), len(X)
    for _ in range(layers):
        out = []
        for i in range(n):
            s = [sum(X[i][a] * Pm[a][b] * X[j][b] for a in range(d) for b in range(d)) for j in range(n)]
            e = [mp.exp(q(beta) * v) for v in s]
            Z = sum(e)
            v = [X[i][k] + q(tau) * heads * sum(e[j] / Z * X[j][k] for j in range(n)) for k in range(d)]
            nn = mp.sqrt(sum(c * c for c in v))
            out.append([c / nn for c in v])
        X = out
    return max(1 - sum(X[i][k] * X[j][k] for k in range(d)) for i in range(n) for j in range(n))


def test_depth_late_entry_H_must_match_stored_heads(tmp_path):
    """Hole: the late-entry re-check evaluates the stored P (1 head) but takes the contraction rate from
    the stored H, never checking H == len(late_entry.P).  With H = 4096, tau = 1/1000 the certificate
    claims the metric <= 1/100 from layer 39; the stored one-head system has metric 0.611 there."""
    from verify._depth.certificate import DepthCertificate, derive

    c = _base_depth_cert(tmp_path)
    toks = [["1", "0", "0"], ["3/5", "4/5", "0"], ["3/5", "0", "4/5"]]
    P = [["1/2", "0", "0"], ["0", "1/2", "0"], ["0", "0", "1/2"]]
    c.update(H=4096, tau="1/1000", tokens=toks, z=["1", "0", "0"], late_entry={"L0": 0, "P": [P]})
    cc = DepthCertificate.from_json(c)
    try:
        der = derive(cc.result, cc.model, cc.H, cc.beta, cc.p, cc.eps, cc.tau, cc.tokens, cc.z, cc.late_entry)
    except ArithmeticError:
        return  # refusing to derive is correct behaviour
    c["derived"] = der
    cc = DepthCertificate.from_json(c)
    bound = der["bound"]
    truth = _layer_map_metric(toks, P, 1, F(1, 1000), bound, heads=1)
    assert truth > mp.mpf(1) / 100  # the claim is false for the stored one-head system
    assert not cc.recheck().holds, f"forged claim accepted: {cc.claim}; true metric at layer {bound} is {truth}"


def test_depth_ode_nested_invariance_must_be_the_invariance_statement(tmp_path):
    """Weakness: the ODE depth re-check accepts ANY SOS certificate that re-checks as its nested
    'hemisphere-invariance certificate' (here 4.2's antipode-tangent inequality), so the stored
    certificate no longer carries the proof step it says it carries."""
    import subprocess
    import sys

    from verify._depth.certificate import DepthCertificate
    from verify._sos.certificate import Certificate

    r = subprocess.run([sys.executable, "-m", "verify.cli.main", "depth", "4.2", "--no-simulate", "--save",
                        str(tmp_path / "d")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "verify.cli.main", "theorem", "4.2", "--no-simulate", "--save",
                        str(tmp_path / "t")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    c = json.loads((tmp_path / "d" / "4_2__depth_ode.json").read_text())
    other = json.loads((tmp_path / "t" / "4_2__antipode_tangent.json").read_text())
    assert Certificate.from_json(other).recheck().holds  # a valid certificate of a different statement
    assert other["claim"] != c["invariance"]["claim"]
    c["invariance"] = other
    assert not DepthCertificate.from_json(c).recheck().holds
