"""``verify reproduce``: the paper's claims, each beside a measurement and an explicit rule.

Library API (no printing; progress through a callback)::

    from verify.reproduce import reproduce, write_report, SCALES
    report = reproduce(SCALES["quick"], extra_cases=[...], executor=make_executor(workers=4),
                       cache_dir="out/.reproduce-cache", resume=True, progress=lambda done, total, label: ...)
    write_report(report, "out/")   # report.md, report.json, report.html, figures/*.png, atomically

Modules: :mod:`.records` (frozen records), :mod:`.stats` (95% bands), :mod:`.rules` (the
decision rules), :mod:`.claims` (the claims and their sources), :mod:`.sim_theory` /
:mod:`.sim_grid` / :mod:`.theorem_cases` / :mod:`.llm_parts` (the cases, as tasks), :mod:`.tasks`
(tasks, cache keys, the JSON codec), :mod:`.executor` (serial or Dask distributed),
:mod:`.runner`, :mod:`.report_md`,
:mod:`.report_html`, :mod:`.report_text` (the console summary), :mod:`.writer`.  The LLM tasks live in :mod:`verify.cli.reproduce_llm` (public
:mod:`llm_checks` functions) and are passed in by the CLI (this package never imports
:mod:`llm_checks`; :mod:`.llm_parts` turns their raw curves into measurements).
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
