"""``verify recheck FILE``: re-check a saved certificate in exact arithmetic.

Uses only the certificate modules (:mod:`verify._sos.certificate`,
:mod:`verify._sos.lyapunov_certificate` and the kinds in their ``LOADERS`` table: rational
arithmetic and arb balls; the solver is never imported).  Verdicts: ``holds`` (exit 0, the
certificate is valid and its claim holds) or ``certificate_invalid`` (exit 5: well formed, but its
exact re-check fails, so it proves nothing and says nothing against its claim either).  A file
that cannot be read or is not a well-formed certificate raises :class:`InvalidInput` naming the field.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, final

from theorems.errors import InvalidInput
from theorems.verdict import ExitCode, Verdict
from verify.report import Report

from ._table import REQUIRED, Command, Option, api

MAX_BYTES = 50 * 1024 * 1024
NOTE = "the certificate fails its exact re-check: it proves nothing about its claim (not a refutation)"
COMMAND = Command(
    "recheck", "recheck", "re-check a saved certificate with exact arithmetic",
    "verify recheck FILE: re-check a saved certificate in exact arithmetic (rationals and arb balls; the SDP solver "
    "is never imported).",
    """Re-check a certificate: a path to a file written by ``save``, its decoded JSON (a dict), or a
    certificate record (re-checked from its ``to_json()``, never from the object in memory).
    ``record`` is a :class:`Recheck`.""",
    (Option("path_or_certificate_json", flag="FILE", default=REQUIRED, positional=True,
            help="certificate JSON written by --save (with --coq: a .v file or a directory of them)"),
     Option("coq", "bool", False, help="FILE is a Coq file, or a directory of them, written by 'verify theorem "
            "--export-coq': compile it with coqc and accept it only if its final theorem rests on no undeclared axiom"),),
    {"epilog": "exit codes: 0 valid, 5 certificate invalid (proves nothing), 2 malformed file"})


@final
@dataclass(frozen=True)
class Recheck:
    """The certificate as read back from its JSON, and the verdict of its exact re-check."""

    certificate: Any
    verdict: Verdict

    def render(self) -> str:
        """The console text: the verdict, the label and claim, the reason (escaped: they come from a file)."""
        from verify._sos.cert_schema import escape_label

        label = escape_label(str(getattr(self.certificate, "label", "") or ""))
        lines = [f"recheck: {'HOLDS' if self.verdict.holds else 'CERTIFICATE INVALID'}"] + ([f"label: {label}"] if label else [])
        lines += [f"claim: {escape_label(str(self.certificate.claim))}", f"reason: {escape_label(self.verdict.reason)}"]
        return "\n".join(lines + ([] if self.verdict.holds else [f"note: {NOTE}"]))


def _recheck(path_or_certificate_json: str | Path | dict[str, Any] | Any, coq: bool = False) -> Report:
    from verify._sos.cert_schema import escape_label

    source = path_or_certificate_json
    if coq:
        return _recheck_coq(source)
    if isinstance(source, (str, Path)):
        cert, shown = load(str(source)), str(source)
    elif isinstance(source, dict):
        cert, shown = _from_json(source, "certificate", "certificate", "a dict"), None
    elif callable(getattr(source, "to_json", None)) and callable(getattr(source, "recheck", None)):
        cert, shown = _from_json(source.to_json(), "certificate", "certificate", type(source).__name__), None
    else:
        raise InvalidInput("certificate", "a path to a certificate file, its JSON (a dict) or a certificate record",
                           type(source).__name__)
    result = Recheck(cert, cert.recheck())
    valid = result.verdict.holds
    # the claim is built from validated names; escaped again, cheaply, for any new kind
    payload = {"verdict": "holds" if valid else "certificate_invalid", "file": shown,
               "claim": escape_label(str(cert.claim)), "label": escape_label(str(getattr(cert, "label", "") or "")),
               "result": result.verdict.to_json()} | ({} if valid else {"note": NOTE})
    code = ExitCode.OK if valid else ExitCode.CERT_INVALID
    return Report("recheck", payload, result.render(), exit_code=int(code), record=result)


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
                     f"{', '.join(f.declared_axioms) or 'none'}" + (f"; undeclared: {', '.join(f.undeclared)}" if f.undeclared else ""))
        if f.verdict != "accepted":
            lines.append("    " + f.stderr.strip().replace("\n", "\n    ")[-800:])
    result = {"name": "coq", "verdict": "holds" if check.accepted else "fails",
              "reason": "every file compiles and rests only on its declared axioms" if check.accepted else
              "some file is rejected by coqc or rests on an undeclared axiom", "exact": True, "witness": check.to_json()}
    payload = {"verdict": "holds" if check.accepted else "certificate_invalid", "file": str(source),
               "claim": f"the Coq proofs in {Path(source).name} are accepted by the kernel", "label": "coq",
               "result": result, "coq": check.to_json()}
    code = ExitCode.OK if check.accepted else ExitCode.CERT_INVALID
    return Report("recheck", payload, "\n".join(lines), exit_code=int(code), record=check)


def load(path: str):
    """Read and validate the certificate file ``path``; :class:`InvalidInput` names the file and the field."""
    from theorems.safe_json import read_json

    data = read_json(path, "FILE", max_bytes=MAX_BYTES)
    return _from_json(data, "FILE", f"FILE {path}", path)


def _from_json(data: Any, field: str, where: str, got: Any):
    """The certificate record of ``data``; errors name ``where`` and the certificate's field."""
    from verify.certificate_kinds import certificate_from_json

    try:
        return certificate_from_json(data)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc.field}", exc.expected, exc.got, exc.hint) from None
    except (ValueError, TypeError) as exc:
        raise InvalidInput(field, "a consensus-verify certificate", got, str(exc)) from None


recheck = api(COMMAND, _recheck, __name__)
