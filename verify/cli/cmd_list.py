"""``verify list``: the catalogue of results."""
from __future__ import annotations

from .common import EXIT_OK, add_format_option, emit


def add_parser(sub) -> None:
    p = sub.add_parser("list", help="list the results of the paper in the catalogue")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from theorems.catalogue import all_theorems  # lazily: the catalogue imports SymPy (cold start)

    theorems = all_theorems()
    payload = {"theorems": [th.describe() for th in theorems]}
    width = max(len(th.id) for th in theorems)
    lines = [f"{th.id:<{width}}  {th.kind:<11} {th.title}" for th in theorems]
    lines.append("")
    lines.append("verify assumptions ID   checks the hypotheses of ID on an instance (default: its example)")
    emit("\n".join(lines), payload, args.format)
    return EXIT_OK
