"""Helpers shared by the CLI commands: the usage error and the output of a report."""
from __future__ import annotations

import json
import sys
from typing import Any

from theorems.errors import ConsensusVerifyError
from theorems.verdict import ExitCode

# Short names the commands use; the one table is theorems.verdict.ExitCode (verdicts: Status.exit_code).
EXIT_OK, EXIT_CRASH, EXIT_USAGE, EXIT_CERT_INVALID = ExitCode.OK, ExitCode.CRASH, ExitCode.USAGE, ExitCode.CERT_INVALID


class UsageError(ConsensusVerifyError):
    """Bad command-line usage detected after argparse (mutually exclusive options, ...)."""


def emit(text: str | None, payload: Any, fmt: str) -> None:
    """Write the report to stdout: the rendered text or the JSON payload."""
    if fmt == "json":
        sys.stdout.write(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    else:
        sys.stdout.write((text or "").rstrip("\n") + "\n")


def say(enabled: bool):
    """A sink for a command's progress messages: one line each on stderr (nothing when disabled)."""
    def write(message: str) -> None:
        if enabled:
            sys.stderr.write(message.rstrip("\n") + "\n")
            sys.stderr.flush()
    return write
