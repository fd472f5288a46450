"""Helpers shared by the CLI commands: exit codes, output formats, atomic file writes."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from theorems.verdict import Status

EXIT_OK = 0
EXIT_CRASH = 1
EXIT_USAGE = 2
EXIT_REFUTED = 3
EXIT_INCONCLUSIVE = 4
EXIT_CERT_INVALID = 5
"""``verify recheck``: the file is a well-formed certificate but its exact re-check fails.  A bad
certificate proves nothing about its claim, so this is not "refuted" (3)."""


class UsageError(Exception):
    """Bad command-line usage detected after argparse (mutually exclusive options, ...)."""


def add_format_option(parser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def add_force_option(parser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="replace output files that already exist (never a directory, device, FIFO or symbolic link)")


def exit_code(status: Status) -> int:
    return status.exit_code


def emit(text: str | None, payload: Any, fmt: str) -> None:
    """Write the report to stdout: the rendered text or the JSON payload."""
    if fmt == "json":
        sys.stdout.write(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    else:
        sys.stdout.write((text or "").rstrip("\n") + "\n")


def write_atomic(path: str | Path, data: str | bytes, option: str = "output", force: bool = True) -> Path:
    """Write one file safely (see :mod:`verify.cli.outputs`): temporary sibling, umask, rename."""
    from .outputs import Target, write_all

    return write_all([(Target(option, Path(path)), data)], force)[0]


def load_instance_arg(path: str | None, default_factory):
    """Load ``--instance FILE`` or return the built-in default from ``default_factory()``."""
    from theorems.system_json import load_system

    return load_system(path) if path else default_factory()
