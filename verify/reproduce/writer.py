"""Write a finished report: everything into a temporary sibling directory, then one rename.

``--out`` ends up holding ``report.md``, ``report.json``, ``report.html`` and ``figures/*.png``
of one finished run, or is left as it was: an interrupted or failed run never leaves a report
claiming more than it measured.  An existing ``--out`` is replaced only when it is empty or holds
a previous report (its ``report.json`` says so); anything else is refused before any work starts.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from theorems.errors import InvalidInput

from .records import Report
from .report_html import render_html
from .report_md import render_markdown

KIND = "consensus-verify reproduction report"
REPORT_FILES = ("report.md", "report.json", "report.html")


def _is_previous_report(path: Path) -> bool:
    try:
        return json.loads((path / "report.json").read_text()).get("kind") == KIND
    except (OSError, ValueError, AttributeError):
        return False


def check_out_dir(out: str | Path) -> Path:
    """``out`` as a path, after checking that writing a report there replaces nothing else."""
    path = Path(out)
    if path.exists():
        if not path.is_dir():
            raise InvalidInput("--out", "a directory (new, empty, or holding a previous report)", str(path))
        if any(path.iterdir()) and not _is_previous_report(path):
            raise InvalidInput("--out", "a new or empty directory, or one holding a previous report", str(path),
                               hint="choose another directory; a non-report directory is never overwritten")
    return path


def write_report(report: Report, out: str | Path) -> Path:
    """Write ``report`` into ``out`` atomically (module docstring); returns ``out``."""
    target = check_out_dir(out).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.tmp-"))
    backup = None
    try:
        tmp.chmod(0o755)  # mkdtemp makes it private; a report directory is meant to be read
        (tmp / "figures").mkdir()
        for case in report.cases:
            for fig in case.figures:
                (tmp / "figures" / fig.name).write_bytes(fig.png)
        (tmp / "report.json").write_text(json.dumps(report.to_json(), indent=1) + "\n")
        (tmp / "report.md").write_text(render_markdown(report))
        (tmp / "report.html").write_text(render_html(report))
        if target.exists():
            backup = target.parent / f".{target.name}.old-{tmp.name.rsplit('-', 1)[-1]}"
            target.rename(backup)
        tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if backup is not None and not target.exists():
            backup.rename(target)
        raise
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)
    return target
