"""``verify list``: every result of the catalogue (:func:`theorems.catalogue.all_theorems`), described.

``payload["theorems"]`` holds each result's id, kind, title, setting, hypotheses, conclusion, citation and
reading; ``record`` is the tuple of :class:`~theorems.catalogue.base.Theorem`.
"""
from __future__ import annotations

from verify.report import Report

from ._table import Command, api

HINT = "verify assumptions ID   checks the hypotheses of ID on an instance (default: its example)"
COMMAND = Command("list", "list_results", "list the results of the paper in the catalogue",
                  "List the results of the paper in the catalogue (id, kind, title).", None, ())


def _list() -> Report:
    from theorems.catalogue import all_theorems  # lazily: the catalogue imports SymPy (cold start)

    theorems = all_theorems()
    width = max(len(th.id) for th in theorems)
    lines = [f"{th.id:<{width}}  {th.kind:<11} {th.title}" for th in theorems]
    return Report("list", {"status": "ok", "theorems": [th.describe() for th in theorems]}, "\n".join(lines + ["", HINT]),
                  record=theorems)


list_results = api(COMMAND, _list, __name__)
