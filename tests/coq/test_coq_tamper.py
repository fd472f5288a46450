"""Soundness of the Coq export: a tampered certificate or constant gives a file that ``coqc`` rejects.

The files are written *without* the Python re-check (``recheck=False``), so ``coqc`` alone decides; every
tampering is first confirmed invalid by the exact Python re-check (independent truth), and the untampered
certificates, exported the same way, are accepted (so the test can tell the two apart)."""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from verify.coq import build, check_coq
from tests.coq.tampering import certificate_payload, load_certificates, tamperings

pytestmark = pytest.mark.slow


def _compile(paths: list[Path]):
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda p: check_coq(p, timeout_s=120).files[0], paths))


def test_every_tampered_certificate_is_rejected_by_coqc(coqc, tmp_path):
    cases = tamperings()
    assert len(cases) >= 30, f"only {len(cases)} tamperings"
    kinds = {label.split(": ")[1].split(":")[0] for label, _ in cases}
    assert kinds == {"rational", "dropped", "swapped"}
    paths, labels = [], {}
    for k, (label, data) in enumerate(cases):
        path = tmp_path / f"tampered_{k:02d}.v"
        path.write_text(build(certificate_payload("cert", data), recheck=False).text)
        paths.append(path)
        labels[path] = label
    controls = []
    for key, data in load_certificates().items():
        path = tmp_path / f"control_{key}.v"
        path.write_text(build(certificate_payload("cert", data), recheck=True).text)
        controls.append(path)
    results = _compile(paths + controls)
    accepted = [labels[r.path] for r in results if r.path in labels and r.verdict != "rejected"]
    assert not accepted, f"coqc accepted tampered certificates: {accepted}"
    assert all(r.verdict == "accepted" for r in results if r.path in controls), \
        [(r.path.name, r.stderr[-400:]) for r in results if r.path in controls and r.verdict != "accepted"]
    for r in results:  # a pivot made negative with the identity kept fails at the positivity step, not before
        if r.path in labels and "identity kept" in labels[r.path]:
            line = int(re.search(r"line (\d+)", r.stderr).group(1))
            assert "sos_nonneg." in r.path.read_text().splitlines()[line - 1], (labels[r.path], r.stderr[-300:])


def _weights_step(lo: str, hi: str) -> dict:
    data = {"beta": "1", "p": "1193139/1000000", "H": 2, "exp(-2 beta p) >=": lo, "exp(2 beta p) <=": hi}
    return {"id": "weights", "kind": "cited", "statement": "weights", "data": data, "source": "weights lemma",
            "obligations": [{"hypothesis": "bounded P", "discharged_by": "hypothesis:P_bounded"}]}


DIVERGENCE = {"d": 3, "H": 2, "B (>= beta p)": "24682373547/5000000000", "lo (<= exp(-2 beta p))": "18394273007/200000000000",
              "B used (rounded up)": "79/16", "q": "1/20", "E (|x_i + x_1|^2 <=)": "1/800", "R (r_j <=)": "1/1600",
              "bracket (d-1)(1 - q^2/2) - 4 B q": "101/100", "delta": "9289071/100000000"}


@pytest.mark.parametrize("case", ["valid", "lo above exp(-2 beta p)", "hi below exp(2 beta p)", "delta doubled",
                                  "bracket changed", "q no longer matches E"])
def test_tampered_constants_are_rejected(coqc, tmp_path, case):
    lo, hi = "18394273007/200000000000", "27182373547/2500000000"
    div = dict(DIVERGENCE)
    if case == "lo above exp(-2 beta p)":
        lo = "18394273008/200000000000"  # exp(-2 beta p) = 0.0919713650...: one unit in the last place above lo
    elif case == "hi below exp(2 beta p)":
        hi = "27182373540/2500000000"
    elif case == "delta doubled":
        div["delta"] = "18578142/100000000"
    elif case == "bracket changed":
        div["bracket (d-1)(1 - q^2/2) - 4 B q"] = "102/100"
    elif case == "q no longer matches E":
        div["E (|x_i + x_1|^2 <=)"] = "1/700"
    steps = [_weights_step(lo, hi), {"id": "antipode_divergence", "kind": "symbolic", "statement": "divergence",
                                     "data": div}]
    path = tmp_path / "constants.v"
    path.write_text(build({"theorem": {"id": "constants"}, "steps": steps}, recheck=False).text)
    verdict = check_coq(path).files[0].verdict
    assert verdict == ("accepted" if case == "valid" else "rejected")
