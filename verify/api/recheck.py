"""``verify recheck FILE|DIR``: re-check saved certificates in exact arithmetic (:mod:`verify.rechecking`).

The source: a certificate file, a report a ``--save`` wrote, a ``--save`` directory, decoded JSON or a
certificate record (re-checked from its ``to_json()``); ``record`` is a :class:`verify.rechecking.Recheck`.  Verdicts:
``holds`` (exit 0) or ``certificate_invalid`` (exit 5: well formed, but an exact re-check fails, so it
proves nothing, and says nothing against its claim).  A file that is not a well-formed certificate raises
:class:`InvalidInput` naming the file and the field.  ``coq=True``: compile Coq files with ``coqc``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from theorems.errors import InvalidInput
from verify.rechecking import Rechecks
from verify.report import Report

from ._table import REQUIRED, Command, Option, api

COMMAND = Command(
    "recheck", "recheck", "re-check a saved certificate with exact arithmetic",
    "verify recheck FILE|DIR: re-check saved certificates in exact arithmetic (rationals and arb balls; the SDP solver "
    "is never imported).",
    None,
    (Option("path_or_certificate_json", flag="FILE", default=REQUIRED, positional=True,
            help="a certificate JSON written by --save, the report saved beside it (its certificates), or the --save "
            "directory (every certificate in it); with --coq: a .v file or a directory of them"),
     Option("coq", "bool", False, help="FILE is a Coq file, or a directory of them, written by 'verify theorem "
            "--export-coq': compile it with coqc and accept it only if its final theorem rests on no undeclared axiom"),),
    {"epilog": "exit codes: 0 valid, 5 certificate invalid (proves nothing), 2 malformed file"})


def _recheck(path_or_certificate_json: str | Path | dict[str, Any] | Any, coq: bool = False) -> Report:
    from verify.rechecking import recheck_source

    if coq:
        return _recheck_coq(path_or_certificate_json)
    result = recheck_source(path_or_certificate_json)
    valid = result.holds if isinstance(result, Rechecks) else result.verdict.holds
    payload = {"verdict": "holds" if valid else "certificate_invalid", **result.to_json()}
    return Report("recheck", payload, result.render(), record=result)


def _recheck_coq(source: Any) -> Report:
    """``coqc`` on a ``.v`` file or a directory of them (:func:`verify.coq.check_coq`): holds when every
    file compiles and its final theorem rests only on the axioms its header declares."""
    from verify.coq import check_coq

    if not isinstance(source, (str, Path)):
        raise InvalidInput("FILE", "a path to a .v file or a directory of them (with coq=True)", type(source).__name__)
    check = check_coq(source)
    lines = [f"recheck --coq: {'ACCEPTED' if check.accepted else 'REJECTED'} by the Coq kernel ({check.coqc_version})"]
    for f in check.files:
        lines.append(f"  [{f.verdict}] {f.path.name}: {f.seconds:.1f} s wall, {f.cpu_seconds:.1f} s CPU; axioms: "
                     f"{', '.join(f.declared_axioms) or 'none'}"
                     + (f"; undeclared: {', '.join(f.undeclared)}" if f.undeclared else ""))
        if f.verdict != "accepted":
            lines.append("    " + f.stderr.strip().replace("\n", "\n    ")[-800:])
    result = {"name": "coq", "verdict": "holds" if check.accepted else "fails",
              "reason": "every file compiles and rests only on its declared axioms" if check.accepted else
              "some file is rejected by coqc or rests on an undeclared axiom", "exact": True, "witness": check.to_json()}
    payload = {"verdict": "holds" if check.accepted else "certificate_invalid", "file": str(source),
               "claim": f"the Coq proofs in {Path(source).name} are accepted by the kernel", "label": "coq",
               "result": result, "coq": check.to_json()}
    return Report("recheck", payload, "\n".join(lines), record=check)  # exit 0, or 5


recheck = api(COMMAND, _recheck, __name__)
