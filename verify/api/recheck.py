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

MAX_BYTES = 50 * 1024 * 1024
NOTE = "the certificate fails its exact re-check: it proves nothing about its claim (not a refutation)"


@final
@dataclass(frozen=True)
class Recheck:
    """The certificate as read back from its JSON, and the verdict of its exact re-check."""

    certificate: Any
    verdict: Verdict


def recheck(path_or_certificate_json: str | Path | dict[str, Any] | Any) -> Report:
    """Re-check a certificate: a path to a file written by ``save``, its decoded JSON (a dict), or a
    certificate record (re-checked from its ``to_json()``, never from the object in memory).

    ``record`` is a :class:`Recheck`.
    """
    from verify._sos.cert_schema import escape_label

    source = path_or_certificate_json
    if isinstance(source, (str, Path)):
        cert, shown = load(str(source)), str(source)
    elif isinstance(source, dict):
        cert, shown = _from_json(source, "certificate", "certificate", "a dict"), None
    elif callable(getattr(source, "to_json", None)) and callable(getattr(source, "recheck", None)):
        cert, shown = _from_json(source.to_json(), "certificate", "certificate", type(source).__name__), None
    else:
        raise InvalidInput("certificate", "a path to a certificate file, its JSON (a dict) or a certificate record",
                           type(source).__name__)
    verdict = cert.recheck()
    valid = verdict.holds
    label = escape_label(str(getattr(cert, "label", "") or ""))
    claim = escape_label(str(cert.claim))  # built from validated names; escaped again, cheaply, for any new kind
    payload = {"verdict": "holds" if valid else "certificate_invalid", "file": shown, "claim": claim,
               "label": label, "result": verdict.to_json()}
    if not valid:
        payload["note"] = NOTE
    lines = [f"recheck: {'HOLDS' if valid else 'CERTIFICATE INVALID'}"]
    if label:
        lines.append(f"label: {label}")
    lines += [f"claim: {claim}", f"reason: {escape_label(verdict.reason)}"]
    if not valid:
        lines.append(f"note: {NOTE}")
    code = ExitCode.OK if valid else ExitCode.CERT_INVALID
    return Report("recheck", payload, "\n".join(lines), exit_code=int(code), record=Recheck(cert, verdict))


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
