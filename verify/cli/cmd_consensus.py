"""What ``verify consensus`` adds in a terminal: blocks measured with an ETA, and the loader's
messages, on stderr (the parser and the call are generated from :data:`verify.api.consensus.COMMAND`)."""
from __future__ import annotations

import sys

from .common import say


def _Bar(enabled: bool):
    """Blocks measured, with an ETA, on stderr: the project's one progress utility."""
    from numerics.support.progress import TextProgress

    return TextProgress(sys.stderr, "consensus blocks", enabled)


def run(args) -> int:
    from .main import run as run_command

    return run_command(args, progress=_Bar(not args.no_progress), on_event=say(not args.no_progress))
