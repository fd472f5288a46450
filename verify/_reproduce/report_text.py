"""The console summary of a reproduction: the headline, then one row per claim.

The headline is wrapped at spaces like the reasons.  Each row is ``id  kind  status  reason``.  The reason is wrapped at spaces into a column that keeps
every line within :data:`WIDTH` characters, so a number (``0.000295``, ``[-3.1e-16, 1.6e-16]``) is
never split or cut; a token longer than the column stays whole on its own line.  A reason longer
than :data:`MAX_REASON_LINES` lines is abbreviated after a whole word with a pointer to
``report.md``, which has every reason in full.  Returns a string; never prints.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

from .records import Report

WIDTH = 155
"""Longest console line (unless one unbreakable token is longer than the reason column)."""
MAX_REASON_LINES = 4
KIND_WIDTH, STATUS_WIDTH = 28, 17
MIN_REASON_WIDTH = 40
MORE = " ... (full reason in report.md)"


def reason_lines(reason: str, width: int, max_lines: int = MAX_REASON_LINES) -> list[str]:
    """``reason`` wrapped at spaces into lines of at most ``width`` characters (a longer token
    stays whole), at most ``max_lines`` of them; an abbreviated reason ends after a whole word
    with :data:`MORE`."""
    lines = textwrap.wrap(" ".join(reason.split()), width=width, break_long_words=False, break_on_hyphens=False)
    if len(lines) <= max_lines:
        return lines or [""]
    kept = lines[:max_lines]
    words = kept[-1].split(" ")
    while len(words) > 1 and len(" ".join(words)) + len(MORE) > width:
        words.pop()  # whole words only: the last kept word is never cut
    kept[-1] = " ".join(words) + MORE
    return kept


def render_console(report: Report, out: str | Path) -> str:
    """The text ``verify reproduce`` prints (module docstring)."""
    head = f"reproduction ({report.scale} scale) in {report.provenance['wall_time_s']:.0f} s: {report.headline_text()}"
    lines = textwrap.wrap(head, width=WIDTH, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)
    id_width = max((len(r.id) for r in report.rows), default=2)
    indent = 2 + id_width + 2 + KIND_WIDTH + 2 + STATUS_WIDTH + 2
    width = max(MIN_REASON_WIDTH, WIDTH - indent)
    for r in report.rows:
        first, *rest = reason_lines(r.reason, width)
        lines.append(f"  {r.id:<{id_width}}  {r.kind_text():<{KIND_WIDTH}}  {r.status.value:<{STATUS_WIDTH}}  {first}".rstrip())
        lines += [" " * indent + line for line in rest]
    lines.append(f"report written to {out}/report.md (also report.html, report.json, figures/)")
    return "\n".join(lines)


__all__ = ["MAX_REASON_LINES", "WIDTH", "reason_lines", "render_console"]
