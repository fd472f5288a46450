"""Write a finished report: everything into a temporary sibling directory, then one rename.

``--out`` ends up holding ``report.md``, ``report.json``, ``report.html`` and ``figures/*.png``
of one finished run, or is left as it was: an interrupted or failed run never leaves a report
claiming more than it measured.  An existing ``--out`` is replaced only when it is empty or holds
a previous report (its ``report.json`` says so), and a previous report only with ``force``
(``--force``); anything else is refused before any work starts: a symbolic link (never followed),
a file, a device or a FIFO where the directory should be, or a parent directory that cannot be
written.  The directory and the files honour the umask.

``--out``/``.reproduce-cache`` holds the finished tasks of a run (JSON, :mod:`.tasks`) so that an
interrupted run can be resumed; a directory that holds only that cache counts as empty.  The cache
is dropped with the rest of the old directory when the finished report replaces it.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

from theorems.errors import InvalidInput

from .records import Report
from .report_html import render_html
from .report_md import render_markdown

KIND = "consensus-verify reproduction report"
REPORT_FILES = ("report.md", "report.json", "report.html")
CACHE_DIR = ".reproduce-cache"


def _is_previous_report(path: Path) -> bool:
    try:
        return json.loads((path / "report.json").read_text()).get("kind") == KIND
    except (OSError, ValueError, AttributeError):
        return False


def check_out_dir(out: str | Path, force: bool = False) -> Path:
    """``out`` as a path, after checking that writing a report there replaces nothing else."""
    from verify.outputs import check_dir

    path = Path(out)
    check_dir("--out", path)  # not a symlink, not a file/device/FIFO; its parent is writable
    try:
        cache = os.lstat(path / CACHE_DIR)
    except (FileNotFoundError, NotADirectoryError):
        cache = None
    if cache is not None and not stat.S_ISDIR(cache.st_mode):
        raise InvalidInput("--out", f"a directory whose {CACHE_DIR} is a real directory (not a link or a file)", str(path),
                           hint=f"remove {path / CACHE_DIR}")
    if path.is_dir() and any(p.name != CACHE_DIR for p in path.iterdir()):
        if not _is_previous_report(path):
            raise InvalidInput("--out", "a new or empty directory, or one holding a previous report", str(path),
                               hint="choose another directory; a non-report directory is never overwritten")
        for name in REPORT_FILES:
            try:
                st = os.lstat(path / name)
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(st.st_mode):
                raise InvalidInput("--out", f"a previous report whose {name} is a regular file", str(path))
        if not force:
            raise InvalidInput("--out", "a new or empty directory", str(path),
                               hint="it holds a previous report; pass --force to replace it")
    return path


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


def write_report(report: Report, out: str | Path, force: bool = False) -> Path:
    """Write ``report`` into ``out`` atomically (module docstring); returns ``out``."""
    target = check_out_dir(out, force).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.tmp-"))
    backup = None
    try:
        tmp.chmod(0o777 & ~_umask())  # mkdtemp makes it private; a report directory is meant to be read
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
