"""Write the shipped certificates (package data of :mod:`verify._sos.shipped`) from fresh searches.

``python -m verify._theorem.ship [DIR]`` runs ``verify theorem`` on the built-in example of every
result below with the search forced (no shipped certificate used) and stores, per SOS request, the
request and the certificate found.  Review the diff: the claims must not change.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

DEFAULT_THEOREMS = ("4.2", "3.2", "4.4-sym", "4.4-hemisphere")


def write_shipped(directory: Path, theorem_ids=DEFAULT_THEOREMS) -> list[Path]:
    from verify._sos import shipped
    from verify._theorem.check import check_theorem

    found: list = []
    with shipped.record_searched(found):
        for tid in theorem_ids:
            check_theorem(tid, simulate=False)
    directory.mkdir(parents=True, exist_ok=True)
    written, seen = [], set()
    for draft, cert in found:
        key = json.dumps(shipped.request_key(draft), sort_keys=True)
        if key in seen or not cert.recheck().holds:
            continue
        seen.add(key)
        label = re.sub(r"[^A-Za-z0-9]+", "_", cert.label or "certificate")[:48].strip("_")
        path = directory / f"{len(seen):02d}_{label}.json"
        path.write_text(json.dumps(shipped.shipped_entry(draft, cert), indent=1) + "\n")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    from verify._sos.shipped import SHIPPED_DIR

    args = sys.argv[1:] if argv is None else argv
    directory = Path(args[0]) if args else SHIPPED_DIR
    for path in write_shipped(directory):
        sys.stdout.write(f"{path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
