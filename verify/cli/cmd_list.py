"""``verify list``: the catalogue of results (:func:`verify.api.listing.list_results`)."""
from __future__ import annotations

from .common import add_format_option, emit


def add_parser(sub) -> None:
    p = sub.add_parser("list", help="list the results of the paper in the catalogue",
                       description="List the results of the paper in the catalogue (id, kind, title).")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from verify.api.listing import list_results

    report = list_results()
    emit(report.text, report.to_json(), args.format)
    return report.exit_code
