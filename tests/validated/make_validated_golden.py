"""Regenerate ``golden/oracle_values.json``: the independent oracle's values (tests/validated/
validated_oracle.py) at the sample times of every instance of ``validated_cases.case``.

Run from the repository root: ``python tests/validated/make_validated_golden.py`` (a few minutes).
The file stores 40 significant digits per coordinate and each instance's fingerprint; the
containment test re-checks a few instances against the live oracle, so a stale file is caught.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import mpmath

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from validated_cases import CASES, case, fingerprint  # noqa: E402
from validated_oracle import ode_solution  # noqa: E402

DIGITS = 40


def decimal(q) -> str:
    ctx = mpmath.MPContext()
    ctx.dps = DIGITS + 5
    return ctx.nstr(ctx.mpf(q.numerator) / q.denominator, DIGITS)


def main() -> None:
    out = []
    for index in range(CASES):
        c = case(index)
        values = ode_solution(c["tokens"], c["P"], c["U"], c["beta"], c["mask"], c["times"])
        out.append({"index": index, "fingerprint": fingerprint(c),
                    "values": [[[decimal(v) for v in row] for row in S] for S in values]})
    path = HERE / "golden" / "oracle_values.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"digits": DIGITS, "oracle": "tests/validated/validated_oracle.py", "cases": out},
                               separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
