"""``verify recheck FILE``: re-check a saved SOS or Lyapunov certificate in exact arithmetic.

Uses only :mod:`verify.sos.certificate` and :mod:`verify.sos.lyapunov_certificate` (rational
arithmetic; the solver is never imported).  Exit codes: 0 valid, 3 the certificate fails,
2 the file cannot be read or is not a certificate.
"""
from __future__ import annotations

import json
from pathlib import Path

from theorems.errors import InvalidInput

from .common import add_format_option, emit


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("recheck", help="re-check a saved certificate with exact arithmetic",
                                   description=__doc__.split("\n\n")[0])
    parser.add_argument("file", metavar="FILE", help="certificate JSON written by --save")
    add_format_option(parser)
    parser.set_defaults(run=run)


def load(path: str):
    from verify.sos.lyapunov_certificate import certificate_from_json

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput("FILE", "a readable certificate file", path, str(exc)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput("FILE", "a JSON certificate", path, f"JSON error: {exc}") from None
    try:
        return certificate_from_json(data)
    except (ValueError, TypeError) as exc:
        raise InvalidInput("FILE", "a consensus-verify certificate", path, str(exc)) from None


def run(args) -> int:
    cert = load(args.file)
    verdict = cert.recheck()
    payload = {"verdict": verdict.status.value, "file": args.file, "claim": cert.claim, "result": verdict.to_json()}
    text = f"recheck: {verdict.status.value.upper()}\nclaim: {cert.claim}\nreason: {verdict.reason}"
    emit(text, payload, args.format)
    return verdict.status.exit_code
