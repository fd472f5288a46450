"""``verify assumptions ID [--instance FILE]``: every hypothesis of a result with its verdict.

Exit codes: 0 all hold, 3 some hypothesis fails, 4 some unknown, 2 bad input.
"""
from __future__ import annotations

from .common import add_format_option, emit
from .render import hypothesis_report_text


def add_parser(sub) -> None:
    p = sub.add_parser("assumptions", help="check the hypotheses of a result on an instance")
    p.add_argument("theorem", metavar="ID", help="result id, e.g. 3.2, 4.2, 4.4-sym (see `verify list`)")
    p.add_argument("--instance", metavar="FILE", help="attention-system JSON file (default: the result's example)")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from theorems.catalogue import get  # lazily: the catalogue imports SymPy (cold start)
    from theorems.system_json import load_system

    theorem = get(args.theorem)
    system = load_system(args.instance) if args.instance else None
    report = theorem.check(system)
    payload = report.to_json()
    emit(hypothesis_report_text(payload), payload, args.format)
    return report.status.exit_code
