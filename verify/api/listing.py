"""``verify list``: the catalogue of results, as a :class:`~verify.report.Report`."""
from __future__ import annotations

from verify.report import Report

HINT = "verify assumptions ID   checks the hypotheses of ID on an instance (default: its example)"


def list_results() -> Report:
    """Every result of the catalogue (:func:`theorems.catalogue.all_theorems`), described.

    ``payload["theorems"]`` holds each result's id, kind, title, setting, hypotheses, conclusion,
    citation and reading; ``record`` is the tuple of :class:`~theorems.catalogue.base.Theorem`.
    """
    from theorems.catalogue import all_theorems  # lazily: the catalogue imports SymPy (cold start)

    theorems = all_theorems()
    payload = {"status": "ok", "theorems": [th.describe() for th in theorems]}
    width = max(len(th.id) for th in theorems)
    lines = [f"{th.id:<{width}}  {th.kind:<11} {th.title}" for th in theorems]
    lines += ["", HINT]
    return Report("list", payload, "\n".join(lines), exit_code=0, record=theorems)
