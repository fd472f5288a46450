"""``verify reproduce``: the paper's claims, each beside a measurement and an explicit rule.

Library API (no printing; progress through a callback)::

    from verify.reproduce import reproduce, write_report, SCALES
    report = reproduce(SCALES["quick"], extra_cases=[...], progress=lambda case, frac: ...)
    write_report(report, "out/")   # report.md, report.json, report.html, figures/*.png, atomically

Modules: :mod:`.records` (frozen records), :mod:`.stats` (95% bands), :mod:`.rules` (the
decision rules), :mod:`.claims` (the claims and their sources), :mod:`.sim_theory` /
:mod:`.sim_grid` / :mod:`.theorem_cases` (the cases), :mod:`.runner`, :mod:`.report_md`,
:mod:`.report_html`, :mod:`.writer`.  The LLM cases live in :mod:`llm_checks.reproduce_cases` and
are passed in by the CLI (this package never imports :mod:`llm_checks`).
"""
from __future__ import annotations

from .claims import CLAIMS, Claim
from .records import CaseResult, ClaimRow, ClaimStatus, Figure, Measurement, Report
from .rules import decide
from .runner import LLM_CASE_IDS, SIM_CASES, Case, reproduce
from .scale import FULL, QUICK, SCALES, SMOKE, LLMScale, Scale
from .writer import check_out_dir, write_report

__all__ = ["CLAIMS", "Claim", "CaseResult", "ClaimRow", "ClaimStatus", "Figure", "Measurement", "Report", "decide",
           "LLM_CASE_IDS", "SIM_CASES", "Case", "reproduce", "FULL", "QUICK", "SCALES", "SMOKE", "LLMScale", "Scale",
           "check_out_dir", "write_report"]
