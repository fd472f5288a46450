"""Helpers shared by the CLI commands: exit codes, output formats, atomic file writes."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from theorems.errors import ConsensusVerifyError
from theorems.verdict import ExitCode, Status

# Short names the commands use; the one table is theorems.verdict.ExitCode (verdicts: Status.exit_code).
EXIT_OK, EXIT_CRASH, EXIT_USAGE, EXIT_CERT_INVALID = ExitCode.OK, ExitCode.CRASH, ExitCode.USAGE, ExitCode.CERT_INVALID


class UsageError(ConsensusVerifyError):
    """Bad command-line usage detected after argparse (mutually exclusive options, ...)."""


def add_format_option(parser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def add_force_option(parser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="replace output files that already exist (never a directory, device, FIFO or symbolic link)")


def exit_code(status: Status) -> int:
    """``status.exit_code`` (kept for ``cmd_audit``; new code uses :attr:`Status.exit_code`)."""
    return status.exit_code


def emit(text: str | None, payload: Any, fmt: str) -> None:
    """Write the report to stdout: the rendered text or the JSON payload."""
    if fmt == "json":
        sys.stdout.write(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    else:
        sys.stdout.write((text or "").rstrip("\n") + "\n")


def write_atomic(path: str | Path, data: str | bytes, option: str = "output", force: bool = True) -> Path:
    """Write one file safely (see :mod:`verify.outputs`): temporary sibling, umask, rename."""
    from verify.outputs import Target, write_all

    return write_all([(Target(option, Path(path)), data)], force)[0]
