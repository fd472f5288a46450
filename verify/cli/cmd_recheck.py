"""``verify recheck FILE``: re-check a saved certificate in exact arithmetic.

Uses only the certificate modules (:mod:`verify.sos.certificate`, :mod:`verify.sos.lyapunov_certificate`
and the kinds listed in their ``LOADERS`` table; rational arithmetic, the solver is never imported).
Exit codes: 0 the certificate is valid (its claim holds), 5 **certificate invalid** (well formed but
its exact re-check fails: it proves nothing, and says nothing against its claim either), 2 the file
cannot be read or is not a well-formed certificate (the message names the field).
"""
from __future__ import annotations

from theorems.errors import InvalidInput
from theorems.safe_json import read_json

from .common import EXIT_CERT_INVALID, EXIT_OK, add_format_option, emit

MAX_BYTES = 50 * 1024 * 1024


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("recheck", help="re-check a saved certificate with exact arithmetic",
                                   description=__doc__.split("\n\n")[0],
                                   epilog="exit codes: 0 valid, 5 certificate invalid (proves nothing), 2 malformed file")
    parser.add_argument("file", metavar="FILE", help="certificate JSON written by --save")
    add_format_option(parser)
    parser.set_defaults(run=run)


def load(path: str):
    """Read and validate ``path``; :class:`InvalidInput` names the file and the field."""
    from verify.sos.lyapunov_certificate import certificate_from_json

    data = read_json(path, "FILE", max_bytes=MAX_BYTES)
    try:
        return certificate_from_json(data)
    except InvalidInput as exc:
        raise InvalidInput(f"FILE {path}: {exc.field}", exc.expected, exc.got, exc.hint) from None
    except (ValueError, TypeError) as exc:
        raise InvalidInput("FILE", "a consensus-verify certificate", path, str(exc)) from None


def run(args) -> int:
    from verify.sos.cert_schema import escape_label

    cert = load(args.file)
    verdict = cert.recheck()
    valid = verdict.holds
    label = escape_label(str(getattr(cert, "label", "") or ""))
    claim = escape_label(str(cert.claim))  # built from validated names; escaped again, cheaply, for any new kind
    payload = {"verdict": "holds" if valid else "certificate_invalid", "file": args.file, "claim": claim,
               "label": label, "result": verdict.to_json()}
    if not valid:
        payload["note"] = "the certificate fails its exact re-check: it proves nothing about its claim (not a refutation)"
    lines = [f"recheck: {'HOLDS' if valid else 'CERTIFICATE INVALID'}"]
    if label:
        lines.append(f"label: {label}")
    lines += [f"claim: {claim}", f"reason: {escape_label(verdict.reason)}"]
    if not valid:
        lines.append(f"note: {payload['note']}")
    emit("\n".join(lines), payload, args.format)
    return EXIT_OK if valid else EXIT_CERT_INVALID
