"""``verify fate --instance FILE``: where the tokens of one constant instance go, proved or "unknown".

:func:`verify._fate.driver.certify_fate` on ``instance`` (constant ``P^h``, ``U^h``, ``beta``, any mask),
enclosed at most to ``t_max``: the fate (consensus / non-consensus / unknown), the entry time into the
certified region, the route, the limit and the fate certificate (``save`` writes it beside the report;
``verify recheck`` re-runs every step).  A statement about this instance's tokens only (docs/fate.md).
``record`` is the :class:`~verify._fate.report.FateReport`.  Exit codes: 0 a certified fate, 4 unknown.
"""
from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from verify.instances import resolve_instance
from verify.outputs import dir_targets, write_all
from verify.report import Report

from ._table import FORCE, REQUIRED, Command, Option, api

COMMAND = Command(
    "fate", "fate", "certify where the tokens of a constant instance go (consensus or not)",
    "verify fate --instance FILE: integrate the instance with validated enclosures until they lie in a certified "
    "basin (consensus, or a non-consensus equilibrium), then stop; unknown with the reason otherwise.",
    None,
    (Option("instance", "any", REQUIRED, metavar="FILE",
            help="attention-system JSON file (constant P^h, U^h), or example:NAME (verify examples)"),
     Option("t_max", "rational", "100", low=Fraction(0), high=Fraction(10000), closed=False,
            help="run the enclosure at most to this time (a rational in (0, 10000), default 100)"),
     Option("save", "path", metavar="DIR", help="write the report and the fate certificate (verify recheck)"),
     FORCE),
    {"epilog": "exit codes: 0 a certified fate, 4 unknown, 2 bad input"})


def _fate(instance: Any, t_max: Fraction, save: str | None, force: bool) -> Report:
    from verify._fate.driver import certify_fate

    system = resolve_instance(instance, None)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in (system.name or "instance"))[:60]
    names = [f"{safe}__fate.json", f"{safe}__report.json"]
    targets = dir_targets("save", save, names, force) if save is not None else []
    report = certify_fate(system, t_max=t_max)
    body, text, files = report.to_json(), report.render(), []
    if targets:  # computed and rendered before anything is written
        batch = [(targets[1], json.dumps(Report("fate", body, text).to_json(), indent=1))]
        if report.certificate is not None:
            batch.insert(0, (targets[0], json.dumps(report.certificate.to_json(), indent=1)))
        files = write_all(batch, force)
    return Report("fate", body, text, exit_code=report.exit_code, files=tuple(files), record=report)


fate = api(COMMAND, _fate, __name__)

__all__ = ["COMMAND", "fate"]
