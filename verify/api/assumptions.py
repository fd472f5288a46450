"""``verify assumptions ID``: every hypothesis of a result with its verdict on an instance.

Evaluate every hypothesis of ``theorem_id`` on ``instance`` (a path, a JSON-like dict or an
``AttentionSystem``; default: the result's example).  The verdict is the three-valued conjunction of the
hypotheses (and of a claim's symbolic proof): exit code 0 all hold, 3 some fails (its witness is in the
entry), 4 some unknown.  ``record`` is the :class:`~theorems.catalogue.base.HypothesisReport`.
"""
from __future__ import annotations

from typing import Any

from verify.instances import resolve_instance
from verify.report import Report

from ._table import REQUIRED, Command, Option, api

THEOREM_ID = Option("theorem_id", "text", REQUIRED, flag="ID", positional=True,
                    expected="a result id as text, such as '4.2' (see 'verify list')",
                    help="result id, e.g. 3.2, 4.2, 4.4-sym (see 'verify list')")
INSTANCE = Option("instance", positional=True, metavar="FILE",
                  help="attention-system JSON file, or example:NAME (verify examples); default: the result's example")
"""A result id and the instance it is checked on (``verify theorem`` takes them too)."""
COMMAND = Command(
    "assumptions", "assumptions", "check the hypotheses of a result on an instance",
    "Check every hypothesis of a result on an instance, each with its verdict (holds / fails / unknown) and witness.",
    None, (THEOREM_ID, INSTANCE))


def _assumptions(theorem_id: str, instance: Any) -> Report:
    from theorems.catalogue import get  # lazily: the catalogue imports SymPy (cold start)
    from theorems.render import render_hypotheses

    report = get(theorem_id).check(resolve_instance(instance))
    return Report("assumptions", report.to_json(), render_hypotheses(report), record=report)


assumptions = api(COMMAND, _assumptions, __name__)
