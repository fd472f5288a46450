"""``verify recheck FILE``: re-check a saved certificate in exact arithmetic (:func:`verify.api.recheck.recheck`).

Exit codes: 0 the certificate is valid (its claim holds), 5 certificate invalid (well formed but
its exact re-check fails: it proves nothing, and says nothing against its claim either), 2 the file
cannot be read or is not a well-formed certificate (the message names the field).
"""
from __future__ import annotations

from .common import add_format_option, emit

DESCRIPTION = ("verify recheck FILE: re-check a saved certificate in exact arithmetic (rationals and arb balls; "
               "the SDP solver is never imported).")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("recheck", help="re-check a saved certificate with exact arithmetic",
                                   description=DESCRIPTION,
                                   epilog="exit codes: 0 valid, 5 certificate invalid (proves nothing), 2 malformed file")
    parser.add_argument("file", metavar="FILE", help="certificate JSON written by --save")
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from verify.api.recheck import recheck

    report = recheck(args.file)
    emit(report.text, report.to_json(), args.format)
    return report.exit_code
