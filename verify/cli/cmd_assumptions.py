"""``verify assumptions ID [--instance FILE]``: every hypothesis of a result with its verdict
(:func:`verify.api.assumptions.assumptions`).

Exit codes: 0 all hold, 3 some hypothesis fails, 4 some unknown, 2 bad input.
"""
from __future__ import annotations

from .common import add_format_option, emit


def add_parser(sub) -> None:
    p = sub.add_parser("assumptions", help="check the hypotheses of a result on an instance",
                       description="Check every hypothesis of a result on an instance, each with its verdict "
                                   "(holds / fails / unknown) and witness.")
    p.add_argument("theorem", metavar="ID", help="result id, e.g. 3.2, 4.2, 4.4-sym (see 'verify list')")
    p.add_argument("--instance", metavar="FILE", help="attention-system JSON file (default: the result's example)")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from verify.api.assumptions import assumptions

    report = assumptions(args.theorem, args.instance)
    emit(report.text, report.to_json(), args.format)
    return report.exit_code
