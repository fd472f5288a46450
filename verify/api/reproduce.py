"""The ``reproduce`` report of the JSON contract: a finished reproduction as a :class:`~verify.report.Report`.

``verify reproduce`` runs :func:`verify.reproduce.reproduce` (with the LLM cases the CLI passes in)
and writes the report directory; :func:`report_of` wraps the result: the payload is the report's
JSON (what ``report.json`` holds) with the contract's header, ``status`` ``completed`` and ``out``;
the text is the console summary (:mod:`verify.reproduce.report_text`); ``files`` the files written;
``record`` the :class:`verify.reproduce.records.Report`.  A reproduction is a set of measurements,
not a verdict (each claim row carries its own status), so the exit code is 0.
"""
from __future__ import annotations

from pathlib import Path

from verify.report import Report
from verify.reproduce.records import Report as Reproduction
from verify.reproduce.report_text import render_console
from verify.reproduce.writer import REPORT_FILES


def report_of(result: Reproduction, out: str | Path) -> Report:
    """The contract's ``reproduce`` report of ``result``, written to the directory ``out``."""
    out = Path(out)
    body = {"status": "completed", **result.to_json(), "out": str(out)}
    files = [out / name for name in REPORT_FILES]
    files += [out / fig.to_json()["file"] for case in result.cases for fig in case.figures]
    return Report("reproduce", body, render_console(result, out), files=files, record=result)


__all__ = ["report_of"]
