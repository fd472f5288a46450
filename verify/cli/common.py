"""Helpers shared by the CLI commands: exit codes, output formats, atomic file writes."""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from theorems.verdict import Status

EXIT_OK = 0
EXIT_CRASH = 1
EXIT_USAGE = 2
EXIT_REFUTED = 3
EXIT_INCONCLUSIVE = 4


class UsageError(Exception):
    """Bad command-line usage detected after argparse (mutually exclusive options, ...)."""


def add_format_option(parser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def exit_code(status: Status) -> int:
    return status.exit_code


def emit(text: str | None, payload: Any, fmt: str) -> None:
    """Write the report to stdout: the rendered text or the JSON payload."""
    if fmt == "json":
        sys.stdout.write(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    else:
        sys.stdout.write((text or "").rstrip("\n") + "\n")


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write a file via a temporary sibling and rename, so nothing is left half-written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def load_instance_arg(path: str | None, default_factory):
    """Load ``--instance FILE`` or return the built-in default from ``default_factory()``."""
    from theorems.system_json import load_system

    return load_system(path) if path else default_factory()
