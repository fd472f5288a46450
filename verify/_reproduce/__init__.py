"""``verify reproduce``: the paper's claims, each beside a measurement and an explicit rule.

From a notebook, ``verify.reproduce(smoke=True, out="report")`` is the whole command as one call
(:func:`verify.api.reproduce.reproduce`, a real signature generated from its option table; this
package is its private implementation, as ``verify._theorem`` is ``verify.theorem``'s).  The pieces, for a custom run::

    from verify._reproduce import reproduce, write_report, SCALES, make_executor
    from verify._reproduce.llm_tasks import llm_cases
    report = reproduce(SCALES["quick"], extra_cases=llm_cases("cpu"), executor=make_executor(workers=4),
                       cache_dir="out/.reproduce-cache", resume=True, progress=lambda fraction, label="": ...)
    write_report(report, "out/")   # report.md, report.json, report.html, figures/*.png, atomically

Modules: :mod:`.records` (frozen records), :mod:`.stats` (bands), :mod:`.rules` (the
decision rules), :mod:`.claims` (the claims and their sources), :mod:`.sim_theory` /
:mod:`.sim_grid` / :mod:`.theorem_cases` (the simulation cases, as tasks), :mod:`.llm_tasks` (the
LLM cases, through ``verify.consensus``: this package never imports :mod:`llm_checks`) and
:mod:`.llm_parts` (their curves as measurements), :mod:`.tasks` (tasks, cache keys, the JSON codec),
:mod:`.executor` (serial or Dask distributed), :mod:`.runner`, :mod:`.report_md`,
:mod:`.report_html`, :mod:`.report_text` (the console summary), :mod:`.writer`.
"""
from __future__ import annotations

from .claims import CLAIMS, Claim
from .executor import DaskExecutor, SerialExecutor, make_executor
from .records import CaseResult, ClaimKind, ClaimRow, ClaimStatus, Figure, Measurement, Report
from .rules import Rule, decide
from .runner import LLM_CASE_IDS, SIM_CASES, Case, reproduce
from .tasks import Task
from .scale import FULL, QUICK, SCALES, SMOKE, LLMScale, Scale
from .writer import check_out_dir, write_report

__all__ = ["CLAIMS", "Claim", "CaseResult", "ClaimKind", "ClaimRow", "ClaimStatus", "Figure", "Measurement", "Report", "decide",
           "Rule", "Task", "DaskExecutor", "SerialExecutor", "make_executor",
           "LLM_CASE_IDS", "SIM_CASES", "Case", "reproduce", "FULL", "QUICK", "SCALES", "SMOKE", "LLMScale", "Scale",
           "check_out_dir", "write_report"]
