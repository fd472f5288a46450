"""Regenerate the golden SOS certificates: ``python tests/golden/make_golden.py``.

The paper inequalities (docs/model.md §3) with their default parameters, plus two general examples used by
the tamper suite.  Each certificate is re-checked exactly before it is written; a golden file is
only replaced by one that passes.  The tests (tests/sos/test_sos_golden.py) re-check the stored
files with exact arithmetic only, in a process that never imports the solver.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import sympy

HERE = Path(__file__).resolve().parent


def build() -> dict[str, object]:
    from verify.certificates import (certify_first_token_alignment, certify_hemisphere_invariance,
                                     certify_token2_decrease, certify_token_iss)
    from verify._sos import find_lyapunov, prove_nonnegative

    x, y = sympy.symbols("x y")
    results = {
        "sos_4_2_token2.json": certify_token2_decrease(),
        "sos_4_2_token_iss.json": certify_token_iss(),
        "sos_3_2_hemisphere.json": certify_hemisphere_invariance(),
        "sos_4_4_sym_first_token.json": certify_first_token_alignment(),
        "sos_parrilo_quartic.json": prove_nonnegative(2 * x**4 + 2 * x**3 * y - x**2 * y**2 + 5 * y**4, [x, y],
                                                      label="Parrilo's quartic"),
        "lyapunov_damped_oscillator.json": find_lyapunov([y, -x - y], [x, y], label="damped oscillator"),
    }
    out = {}
    for name, result in results.items():
        if result.certificate is None or not result.certificate.recheck().holds:
            raise SystemExit(f"{name}: no valid certificate ({result.verdict.reason})")
        out[name] = result.certificate
    return out


THEOREMS = ("3.2", "4.2", "4.4-sym", "4.4-hemisphere")
"""Theorems whose default-instance certificates are stored in ``theorems/`` (as ``verify theorem ID --save``
names them)."""


def build_theorems() -> dict[str, object]:
    from theorems.catalogue import get
    from theorems.errors import UnknownName
    from verify._theorem.check import check_theorem

    out = {}
    for tid in THEOREMS:
        try:
            get(tid)
        except UnknownName:
            continue
        report = check_theorem(tid, simulate=False)
        if report.status.value != "holds":
            raise SystemExit(f"theorem {tid}: {report.explanation}")
        for step_id, cert in report.certificates:
            out[f"{tid.replace('.', '_')}__{step_id}.json"] = cert
    return out


def main() -> int:
    """``make_golden.py`` writes everything; ``make_golden.py --theorems`` only ``theorems/``."""
    only_theorems = "--theorems" in sys.argv[1:]
    for name, cert in ({} if only_theorems else build()).items():
        (HERE / name).write_text(json.dumps(cert.to_json(), indent=1) + "\n", encoding="utf-8")
        sys.stdout.write(f"wrote {name}: {cert.claim[:100]}\n")
    theorem_dir = HERE / "theorems"
    for name, cert in build_theorems().items():
        # exactly as `verify theorem ID --save DIR` writes them (no trailing newline)
        (theorem_dir / name).write_text(json.dumps(cert.to_json(), indent=1), encoding="utf-8")
        sys.stdout.write(f"wrote theorems/{name}: {cert.claim[:100]}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
