"""Regenerate the golden equilibrium certificates: ``python tests/golden/equilibrium/make_golden.py``.

The two shipped counterexamples (``examples/counterexample_4_4_sym.json`` for ``4.4-sym-later``,
``examples/counterexample_same_sign.json`` for ``4.4-same-sign``), each found by the float search
and written only after its re-check passes.  ``tests/equilibrium/test_eq_golden.py`` re-checks the
stored files in a process that never imports a solver.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CASES = {
    "counterexample_4_4_sym.json": ("examples/counterexample_4_4_sym.json", "later-token-alignment"),
    "counterexample_same_sign.json": ("examples/counterexample_same_sign.json", "same-sign-consensus"),
}


def main() -> int:
    from theorems.system_json import load_system
    from verify.equilibrium.search import find_counterexample

    for name, (instance, refutes) in CASES.items():
        result = find_counterexample(load_system(str(ROOT / instance)), refutes)
        cert = result.certificate
        if cert is None or not cert.recheck().holds:
            raise SystemExit(f"{name}: no valid certificate ({result.verdict.reason})")
        (HERE / name).write_text(json.dumps(cert.to_json(), indent=1) + "\n", encoding="utf-8")
        sys.stdout.write(f"wrote {name}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
